#!/usr/bin/env bash
# The composition check for real, on this machine's CPU (docs/CALIBRATION.md, "Composition check in CI"):
# fleetcast-engine measures the ops of a llama-3.1-8b model step (TP 16, 1 layer) and whole model steps
# (engine/plans/cpu-compose-ci.json); `calibrate fit` makes this CPU a hardware of its own; `calibrate compose`
# predicts the measured steps with the step-time model using the fitted predictors and fails above the bound;
# and a profile fitted without the interior points (token count 16, decode batch 4) predicts them within the
# leave-one-out error `calibrate check` reports.
# The same for an MoE layer (engine/plans/cpu-compose-moe-ci.json: routing, permute, grouped expert GEMMs) with
# PLAN cpu-compose-moe-ci and its number of model steps.
# usage: compose_ci_test.sh FLEETCAST_ENGINE FLEETCAST SOURCE_DIR MAX_MEDIAN_APE MAX_APE [PLAN STEPS]
set -u
# Timings on a shared machine are noisy (another job's burst can double one op's median), and every check here
# compares timings: a failed attempt measures everything once more, and the test fails only if three attempts
# all fail. A modelling error fails every one; a noise burst rarely hits three. Two were not enough: on a clean
# clone the MoE check failed both with ops-level leave-one-out errors of 46-63% on the GEMMs (the machine's noise,
# not the model's), then passed alone on the same build (2026-12-03 13:37).
if [ -z "${COMPOSE_ATTEMPT:-}" ]; then
  for attempt in 1 2; do
    COMPOSE_ATTEMPT=$attempt bash "$0" "$@" && exit 0
    echo "attempt $attempt failed: measuring again (attempt $((attempt + 1)) of 3)"
  done
  COMPOSE_ATTEMPT=3 exec bash "$0" "$@"
fi
engine=$1
bin=$2
src=$3
max_median=$4
max_ape=$5
plan=${6:-cpu-compose-ci}
steps=${7:-6}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAILED: $*"; }

start=$(date +%s)
# One thread: on two cores shared with other jobs (load 11 to 14), two-thread Eigen GEMMs with m >= 8 took
# 0.3 to 0.6 s whatever their size (threads waiting on each other at every block), against milliseconds on one
# thread. The ops and the model steps run the same kernels on the same one thread, which is what composes.
if OMP_NUM_THREADS=1 "$engine" run "$src/engine/plans/$plan.json" --backend cpu -o "$work/cpu.jsonl" >"$work/out" 2>"$work/err"; then
  ok
else
  bad "fleetcast-engine run: $(tail -5 "$work/err")"
  echo "calibrate compose CI: $passed passed, $failed failed"
  exit 1
fi
echo "engine run: $(($(date +%s) - start)) s, $(grep -c '"measurement"' "$work/cpu.jsonl") measurements on $(grep -o '"device":"[^"]*"' "$work/cpu.jsonl")"

"$bin" calibrate fit "$work/cpu.jsonl" -o "$work/cpu.json" >"$work/out" 2>&1 &&
  grep -q '"hardware": "cpu-' "$work/cpu.json" && grep -q '"predictors"' "$work/cpu.json" && ok ||
  bad "calibrate fit: $(cat "$work/out")"
cat "$work/out"

# An expert-parallel step records the rows its rank's experts got in the checked run (compose costs those, not
# the expected share); a step without experts records none.
python3 - "$work/cpu.jsonl" <<'PY' && ok || bad "model_step records: expert rows missing or where no experts run"
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    if r.get("op") != "model_step":
        continue
    s = r["shape"]
    if s["ep"] == 1:
        assert "expert_rows" not in r, f"expert rows on {s}"
        continue
    rows = r["expert_rows"]
    assert rows and all(len(layer) == len(rows[0]) for layer in rows), f"{s}: {rows}"
    tokens = s["batch"] * s["new_tokens"]
    print(f"model_step {s['phase']} of {tokens} tokens: this rank's experts got {rows}")
PY

# The table for the log, then the bound (median from --max-median-ape, max from the JSON).
"$bin" calibrate compose "$work/cpu.jsonl" --max-median-ape "$max_median" >"$work/table" 2>&1
rc=$?
cat "$work/table"
[ "$rc" -eq 0 ] && ok || bad "compose: median APE above $max_median (exit $rc)"
"$bin" calibrate compose "$work/cpu.jsonl" --json >"$work/compose.json" 2>&1 &&
  python3 - "$work/compose.json" "$max_ape" "$steps" <<'PY' && ok || bad "compose --json: a step above the max APE bound $max_ape"
import json, sys
j = json.load(open(sys.argv[1]))
rows = j["rows"]
assert len(rows) == int(sys.argv[3]), f"{len(rows)} model steps, expected {sys.argv[3]}"
assert {r["phase"] for r in rows} == {"decode", "prefill"}, "decode and prefill steps both composed"
worst = max(r["ape"] for r in rows)
print(f"compose: median APE {j['median_ape']:.3f}, max APE {worst:.3f} over {len(rows)} steps")
sys.exit(0 if worst <= float(sys.argv[2]) else 1)
PY

# Held out: the interior token count 16 of the GEMMs, RMSNorm, SwiGLU and RoPE (16 rows of the grouped expert
# GEMMs) and decode attention at batch 4.
python3 - "$work/cpu.jsonl" "$work/fit.jsonl" "$work/held.jsonl" <<'PY'
import json, sys
fit, held = open(sys.argv[2], "w"), open(sys.argv[3], "w")
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("record") != "measurement":
        fit.write(line); held.write(line); continue
    s = r["shape"]
    # Not routing, permute, unpermute: sub-millisecond copies whose 4-point LOO max (7 to 9% in a run) is below
    # this machine's noise, so "within the LOO max" failed on noise (unpermute 9.6% vs 8.7%); compose checks them.
    tokens = ("rmsnorm", "swiglu", "rope")
    out = (r["op"] == "gemm" and s.get("m") == 16) or (r["op"] in tokens and s.get("tokens") == 16) \
        or (r["op"] == "moe_grouped_gemm" and s.get("rows") == 16) \
        or (r["op"] == "attention_decode_gqa" and s.get("batch") == 4)
    (held if out else fit).write(line)
PY
"$bin" calibrate fit "$work/fit.jsonl" -o "$work/fit.json" >/dev/null 2>&1 && ok || bad "fit without the held-out points"
"$bin" calibrate check "$work/fit.json" --threshold 0.5 --trace "$work/held.jsonl" >"$work/out" 2>&1
rc=$?
sed -n '/held-out measurements/,$p' "$work/out"
# Every held-out op is predicted and reported (the MoE ones too where the plan has them).
missing=""
for op in $(python3 -c 'import json,sys; print(" ".join(sorted({json.loads(l)["op"] for l in open(sys.argv[1]) if "\"measurement\"" in l})))' "$work/held.jsonl"); do
  grep -q "^ *$op fp32" "$work/out" || missing="$missing $op"
done
[ "$rc" -eq 0 ] && [ -z "$missing" ] && ok ||
  bad "held-out points not within the reported LOO error (exit $rc), or not predicted:$missing"

echo "calibrate compose CI: $passed passed, $failed failed ($(($(date +%s) - start)) s)"
[ "$failed" -eq 0 ]
