#!/usr/bin/env bash
# The fleetcast command as a user meets it: exit codes, error messages that name the field, nothing written
# on failure, byte-identical reports for the same seed, progress lines.
# usage: cli_test.sh FLEETCAST FIXTURES_DIR
set -u
bin=$1
fixtures=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAILED: $*"; }

# Bad input: exit 2, a message naming the file and the field, and no report written.
expect_bad() {
  local fixture=$1 field=$2
  rm -f "$work/report.json"
  "$bin" simulate "$fixtures/$fixture" -o "$work/report.json" >"$work/out" 2>"$work/err"
  local rc=$?
  [ "$rc" -eq 2 ] || { bad "$fixture: exit $rc, expected 2"; return; }
  grep -q -- "$field" "$work/err" || { bad "$fixture: message does not name '$field': $(cat "$work/err")"; return; }
  grep -q -- "$fixture" "$work/err" || { bad "$fixture: message does not name the file: $(cat "$work/err")"; return; }
  [ ! -e "$work/report.json" ] || { bad "$fixture: a report was written"; return; }
  ls "$work" | grep -q tmp && { bad "$fixture: a temporary file was left"; return; }
  ok
}
expect_bad unknown_key.json "sede"
expect_bad missing_field.json "num_requests"
expect_bad wrong_type.json "deployment.nodes"
expect_bad tp_not_dividing.json "deployment.replica.tp"
expect_bad context_too_long.json "workload.input_tokens"
expect_bad negative_rate.json "workload.arrival.rate_per_s"
expect_bad unknown_hardware.json "deployment.hardware"
expect_bad truncated.json "truncated.json"
expect_bad classes_and_arrival.json "workload.arrival"
expect_bad class_duplicate_name.json "workload.classes\[1\].name"
expect_bad class_slo_zero.json "workload.classes\[0\].slo.ttft_ms"
expect_bad class_context_too_long.json "workload.classes\[1\].input_tokens"
expect_bad unknown_router.json "deployment.router"

# --check: every pre-simulation check, one line, nothing simulated; a model that does not fit is exit 2 naming the
# replica layout, like the simulation itself.
"$bin" simulate "$fixtures/good.json" --check >"$work/check" 2>&1
[ $? -eq 0 ] && grep -q "^ok: scenario 't': 8 GPUs in 8 replicas" "$work/check" && grep -q "300 requests" "$work/check" &&
  ok || bad "--check on good.json: $(cat "$work/check")"
sed 's/"llama-3.1-8b"/"deepseek-v3"/' "$fixtures/good.json" >"$work/too_big.json"
"$bin" simulate "$work/too_big.json" --check >"$work/check" 2>&1
[ $? -eq 2 ] && grep -q "deployment.replica" "$work/check" && grep -q "too_big.json" "$work/check" &&
  ok || bad "--check on a model that does not fit: $(cat "$work/check")"
expect_bad_check() {
  "$bin" simulate "$fixtures/$1" --check >"$work/check" 2>&1
  [ $? -eq 2 ] && grep -q -- "$2" "$work/check" && ok || bad "--check on $1: $(cat "$work/check")"
}
expect_bad_check negative_rate.json "workload.arrival.rate_per_s"
expect_bad_check context_too_long.json "workload.input_tokens"

# An existing report is not clobbered by a failed run.
echo '{"old": true}' >"$work/keep.json"
"$bin" simulate "$fixtures/negative_rate.json" -o "$work/keep.json" >/dev/null 2>&1
grep -q '"old": true' "$work/keep.json" && ok || bad "a failed run overwrote an existing report"

# Usage errors are exit 2 too.
"$bin" frobnicate >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "an unknown command did not exit 2"
"$bin" simulate "$fixtures/good.json" -o "$work/no/such/dir/r.json" >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "an unwritable -o did not exit 2"

# Help and presets.
"$bin" --help >"$work/help" && grep -q "examples:" "$work/help" && ok || bad "--help has no examples"
# A command's own help: its entries of the main help and nothing else, on stdout, exit 0 (wherever --help stands).
"$bin" plan --help >"$work/help-plan" && grep -q "^  fleetcast plan PLAN.json" "$work/help-plan" &&
  ! grep -q "fleetcast simulate" "$work/help-plan" && ok || bad "plan --help is not plan's help"
"$bin" sweep decode --help >"$work/help-sweep" && [ "$(grep -c '^  fleetcast sweep ' "$work/help-sweep")" -eq 3 ] &&
  ok || bad "sweep --help does not list the three sweep kinds"
"$bin" help simulate | grep -q -- "--check" && ok || bad "help simulate does not mention --check"
"$bin" help frobnicate >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "help for an unknown command did not exit 2"
"$bin" presets >"$work/presets" || bad "presets failed"
for name in deepseek-v3 deepseek-r1 deepseek-v4-flash deepseek-v4.1-flash kimi-k2.5 qwen3-235b-a22b qwen3-32b \
  qwen3.5-397b-a17b minimax-m2.5 llama-3.1-8b llama-3.1-70b gpt-oss-120b h100 h200 b200 gb200 b300 gb300 ascend-950dt \
  mi300x mi325x mi355x; do
  grep -q "^  $name " "$work/presets" && ok || bad "presets does not list $name"
done

# Same scenario and seed: byte-identical reports.
"$bin" simulate "$fixtures/good.json" -o "$work/a.json" --quiet || bad "good scenario failed"
"$bin" simulate "$fixtures/good.json" -o "$work/b.json" --progress json --quiet 2>"$work/progress" || bad "second run failed"
cmp -s "$work/a.json" "$work/b.json" && ok || bad "same seed, different report bytes"
grep -q '"phase": "simulate", "done": 300, "total": 300' "$work/progress" && ok || bad "no final progress line"
bad_lines=$(grep -c -v '^{.*}$' "$work/progress")
[ "$bad_lines" -eq 0 ] && ok || bad "progress has non-JSON lines"
# The summary names what the quick start promises.
"$bin" simulate "$fixtures/good.json" >"$work/summary" || bad "summary run failed"
for key in "TTFT p50 / p95" "TPOT" "throughput per GPU" '\$/M'; do
  grep -q "$key" "$work/summary" && ok || bad "summary lacks $key"
done

# A mix of classes: a line per class, goodput, figures per class and per replica, the same bytes twice.
"$bin" simulate "$fixtures/classes_good.json" -o "$work/mix.json" >"$work/mix_summary" || bad "classes scenario failed"
for key in "class chat" "class document" "goodput"; do
  grep -q "$key" "$work/mix_summary" && ok || bad "summary of a mix lacks $key"
done
for key in '"by_class"' '"by_replica"' '"goodput_requests_per_s"' '"slo_attainment"'; do
  grep -q "$key" "$work/mix.json" && ok || bad "report of a mix lacks $key"
done
"$bin" simulate "$fixtures/classes_good.json" -o "$work/mix2.json" --quiet || bad "classes scenario failed twice"
cmp -s "$work/mix.json" "$work/mix2.json" && ok || bad "a mix, same seed, different report bytes"
grep -q "class chat" "$work/summary" && bad "a single-class summary has class lines" || ok

# Timeline and Chrome trace: only when asked; the trace is written atomically, the same bytes for the same seed.
grep -q '"timeline"' "$work/a.json" && bad "a report without --timeline has a timeline" || ok
"$bin" simulate "$fixtures/good.json" -o "$work/tl.json" --timeline --chrome-trace "$work/trace.json" --quiet ||
  bad "--timeline --chrome-trace failed"
for key in '"timeline"' '"t_s"' '"in_system"' '"waiting"' '"running"' '"kv_used_share_by_replica"' \
  '"output_tokens_per_s"'; do
  grep -q "$key" "$work/tl.json" && ok || bad "--timeline report lacks $key"
done
for key in '"traceEvents"' '"ph":"X"' '"ph":"C"' '"ph":"M"' '"name":"step"' '"time_us_by_op"'; do
  grep -q "$key" "$work/trace.json" && ok || bad "the Chrome trace lacks $key"
done
if command -v python3 >/dev/null; then
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/trace.json" && ok || bad "the trace is not JSON"
fi
"$bin" simulate "$fixtures/good.json" --chrome-trace "$work/trace2.json" --quiet || bad "second trace run failed"
cmp -s "$work/trace.json" "$work/trace2.json" && ok || bad "same seed, different trace bytes"
"$bin" simulate "$fixtures/good.json" --chrome-trace "$work/w.json" --trace-window 10:20 --quiet ||
  bad "--trace-window 10:20 failed"
grep -q '"window":"--trace-window"' "$work/w.json" && ok || bad "the trace does not name its window"

# Bad trace flags: exit 2, the flag named, nothing written.
expect_bad_flags() {
  local field=$1
  shift
  rm -f "$work/t.json"
  "$bin" simulate "$fixtures/good.json" "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  [ "$rc" -eq 2 ] || { bad "$*: exit $rc, expected 2"; return; }
  grep -q -- "$field" "$work/err" || { bad "$*: message does not name '$field': $(cat "$work/err")"; return; }
  [ ! -e "$work/t.json" ] || { bad "$*: a trace was written"; return; }
  ok
}
expect_bad_flags "--trace-window" --trace-window 1:2
expect_bad_flags "--trace-window" --chrome-trace "$work/t.json" --trace-window 5:1
expect_bad_flags "--trace-window" --chrome-trace "$work/t.json" --trace-window 1-2
expect_bad_flags "--trace-window" --chrome-trace "$work/t.json" --trace-window -1:2
expect_bad_flags "--trace-window" --chrome-trace "$work/t.json" --trace-window 1:2s
expect_bad_flags "--chrome-trace" --chrome-trace "$work/no/such/dir/t.json"
expect_bad_flags "--chrome-trace" --chrome-trace

# workload fit: a trace with bad rows fits from its good ones and says which it skipped; --strict makes the
# first bad row an error (exit 2, naming the column and the line) and writes nothing; the written workload is
# one the simulator takes.
traces_dir=$fixtures/../../traces/fixtures
"$bin" workload fit "$traces_dir/azure_bad_rows.csv" -o "$work/w.json" >"$work/out" 2>"$work/err"
[ $? -eq 0 ] && grep -q "4 skipped" "$work/out" && grep -q "skipped line 4" "$work/out" && ok ||
  bad "workload fit did not report the skipped rows: $(cat "$work/out" "$work/err")"
"$bin" workload fit "$traces_dir/azure_bad_rows.csv" --strict -o "$work/strict.json" >/dev/null 2>"$work/err"
rc=$?
{ [ $rc -eq 2 ] && grep -q "ContextTokens" "$work/err" && grep -q "line 4" "$work/err" && [ ! -e "$work/strict.json" ]; } &&
  ok || bad "workload fit --strict: exit $rc, $(cat "$work/err")"
"$bin" workload fit "$traces_dir/generic.csv" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q -- "--columns" "$work/err" && ok || bad "an undetectable trace did not ask for --columns"
"$bin" workload fit "$traces_dir/generic.csv" --format csv --columns 'timestamp=arrival, ms,input=prompt,output=completion' \
  --time-unit ms --empirical -o "$work/g.json" >/dev/null 2>"$work/err" && grep -q '"empirical"' "$work/g.json" && ok ||
  bad "workload fit of a mapped CSV failed: $(cat "$work/err")"

# step on a disaggregated deployment: which pool must be said; the step is that pool's layout.
disagg=$fixtures/../../golden/scenarios/deepseek-v3-disaggregated.json
"$bin" step "$disagg" --decode 8 --context 1000 >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q -- "--pool" "$work/err" && ok || bad "step on pools without --pool: $(cat "$work/err")"
"$bin" step "$disagg" --decode 8 --context 1000 --pool decode 2>&1 | grep -q "8 x h200 (dp 1 tp 8" && ok ||
  bad "step --pool decode did not cost the decode pool's tp8 replica"

# validate --silicon: per-row and per-group errors, unmapped rows with their reason, JSON with the measured and
# predicted means; a missing file or flag is exit 2 and writes nothing.
silicon=$fixtures/../../validation/fixtures/silicon-small.csv
"$bin" validate --silicon "$silicon" -j 2 --json "$work/v.json" >"$work/out" 2>"$work/err"
{ [ $? -eq 0 ] && grep -q "coverage: 3 of 6 rows predicted" "$work/out" && grep -q "no model preset unknown-7b" "$work/out" &&
  grep -q '"measured_ttft_ms": 40.0' "$work/v.json" && grep -q '"predicted_tpot_ms"' "$work/v.json"; } && ok ||
  bad "validate --silicon: $(cat "$work/out" "$work/err")"
# --scenarios DIR: each mapped row's scenario, one a file, which `simulate --check` accepts; unmapped rows none.
"$bin" validate --silicon "$silicon" -j 2 --summary-only --scenarios "$work/sc" >/dev/null 2>"$work/err"
{ [ $? -eq 0 ] && [ "$(ls "$work/sc" | wc -l)" -eq 3 ] && [ ! -e "$work/sc/unknown_model_row.json" ] &&
  "$bin" simulate "$work/sc/gptoss_gb200_trtllm_disagg_1024x64.json" --check >/dev/null; } && ok ||
  bad "validate --scenarios: $(ls "$work/sc" 2>&1) $(cat "$work/err")"
# --decompose: two rows differing only in osl, made as TPOT = 6 + 252 / (osl - 1) ms, split back into a 6 ms step and
# 252 ms of the other 3 clients' prefills (84 ms each), in the text and the JSON; a third row at a longer prompt gives
# the TTFT split, whose line a + k x p goes through both measured TTFTs.
{ head -1 "$silicon"
  echo "l8_a,hand-made; silicon_concurrency=4,vllm,0.12.0,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,,agg,512,64,,,4,1,1,1,1,1,,,,,,,,,,,,,,,40.0,10.0"
  echo "l8_b,hand-made; silicon_concurrency=4,vllm,0.12.0,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,,agg,512,253,,,4,1,1,1,1,1,,,,,,,,,,,,,,,40.0,7.0"
  echo "l8_c,hand-made; silicon_concurrency=4,vllm,0.12.0,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,,agg,2048,64,,,4,1,1,1,1,1,,,,,,,,,,,,,,,90.0,10.0"
} >"$work/pair.csv"
"$bin" validate --silicon "$work/pair.csv" -j 2 --summary-only --decompose --json "$work/d.json" --markdown "$work/d.md" >"$work/out" 2>"$work/err"
{ [ $? -eq 0 ] && grep -q "TPOT split by output length" "$work/out" &&
  grep -E -q "^llama-3.1-8b \| h100 \| vllm \| agg +512 tp1 pp1 dp1 moe_tp1 ep1 +4 64,253 +6.00 " "$work/out" &&
  python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['tpot_decomposition']; sys.exit(not (len(d)==1 and abs(d[0]['measured_interference_ms']-252)<1e-6 and d[0]['model_prefill_ms']>0))" "$work/d.json" &&
  grep -E -q "^\| llama-3.1-8b \| h100 \| vllm \| agg \| 1 \| [0-9.]+ \| [-0-9.]+ \| [0-9.]+ \|$" "$work/d.md" &&
  grep -q "TTFT split by prompt length" "$work/out" &&
  python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['ttft_decomposition']; s=d[0]; sys.exit(not (len(d)==1 and s['isls']==[512,2048] and all(abs(s['measured_base_ms']+s['measured_prompts']*p-t)<1e-6 for p,t in zip(s['prompt_ms'],[40.0,90.0])) and s['measured_prompts']>0))" "$work/d.json" &&
  grep -E -q "^\| llama-3.1-8b \| h100 \| vllm \| agg \| 1 \| [0-9.]+ \| [-0-9.]+ \| [-0-9]+ \| [-0-9]+ \|$" "$work/d.md"; } && ok ||
  bad "validate --decompose: $(cat "$work/out" "$work/err")"
# The client mapping: by default (--drawn-lengths) InferenceX's rows (lengths drawn 0.8-1 x) predict differently from
# the same rows at fixed lengths (--fixed-lengths), a genai-perf row (fixed lengths either way, the default window)
# identically; two mappings at once, or one for benchmark files that state their own lengths, exit 2.
clients=$fixtures/../../validation/fixtures/silicon-clients.csv
"$bin" validate --silicon "$clients" -j 2 --summary-only --json "$work/drawn.json" >/dev/null 2>"$work/err" &&
  "$bin" validate --silicon "$clients" -j 2 --summary-only --drawn-lengths --json "$work/drawn2.json" >/dev/null 2>>"$work/err" &&
  "$bin" validate --silicon "$clients" -j 2 --summary-only --fixed-lengths --json "$work/fixed.json" >/dev/null 2>>"$work/err"
{ [ $? -eq 0 ] && python3 - "$work/drawn.json" "$work/fixed.json" "$work/drawn2.json" <<'PY'; } && ok || bad "validate --fixed-lengths: $(cat "$work/err")"
import json, sys
drawn, fixed, drawn2 = ({r["id"]: r for r in json.load(open(f))["rows"]} for f in sys.argv[1:4])
assert drawn["aic_genai_perf"]["predicted_ttft_ms"] == fixed["aic_genai_perf"]["predicted_ttft_ms"], "genai-perf row moved"
for i in ("ix_db_dump", "ix_dashboard"):
    assert drawn[i]["predicted_tpot_ms"] != fixed[i]["predicted_tpot_ms"], i + " mapped at fixed lengths by default"
    assert drawn[i]["predicted_tpot_ms"] == drawn2[i]["predicted_tpot_ms"], i + ": --drawn-lengths is not the default"
PY
"$bin" validate --silicon "$clients" --benchmark-clients --drawn-lengths >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q "give one client mapping" "$work/err"; } && ok || bad "two client mappings: $(cat "$work/err")"
"$bin" validate --bench "$fixtures/../../traces/fixtures/vllm-bench-result.json" --hardware h100 --tp 1 --drawn-lengths \
  >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q "give --silicon FILE" "$work/err"; } && ok || bad "--drawn-lengths with --bench: $(cat "$work/err")"
"$bin" validate --silicon "$work/no-such.csv" --json "$work/v2.json" >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q "no-such.csv" "$work/err" && [ ! -e "$work/v2.json" ]; } && ok ||
  bad "validate of a missing file: $(cat "$work/err")"
"$bin" validate --json "$work/v3.json" >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q -- "--silicon FILE or --bench" "$work/err"; } && ok || bad "validate without --silicon: $(cat "$work/err")"

# A profile in use whose figures leave the kernel-level ones is named under the table and in the JSON: an H100 vLLM
# profile with BF16 GEMMs at 99% of peak (the best measured matmul is 80%) and HBM streaming at 40% (under half of 90%).
mkdir -p "$work/profiles"
"$bin" calibrate datasheet h100 | sed -e 's/"kind": "datasheet"/"kind": "measured"/' -e 's/"runtime": ""/"runtime": "vllm"/' \
  -e 's/"bf16": 0.8,/"bf16": 0.99,/' -e 's/"memory_efficiency": 0.9,/"memory_efficiency": 0.4,/' >"$work/profiles/h100-vllm.json"
FLEETCAST_PROFILE_DIR="$work/profiles" "$bin" validate --bench "$fixtures/../../traces/fixtures/vllm-bench-result.json" \
  --model meta-llama/Llama-3.1-8B-Instruct --hardware h100 --tp 1 -j 2 --summary-only --json "$work/k.json" >"$work/out" 2>"$work/err"
{ [ $? -eq 0 ] && grep -q "h100 vllm (measured): matmul_efficiency.bf16 0.99 above the best kernel-level 0.80; memory_efficiency 0.40 below half of the kernel-level 0.90" "$work/out" &&
  grep -q '"field": "memory_efficiency"' "$work/k.json"; } && ok || bad "validate did not name the profile's figures outside the kernels': $(cat "$work/out" "$work/err")"

# calibrate show of a shipped fit also notes its error on held-out measured runs, on stderr.
"$bin" calibrate show h100 --runtime vllm >"$work/out" 2>"$work/err"
{ [ $? -eq 0 ] && grep -q "^note: measured on h100 vllm: TTFT off by a median" "$work/err" && ! grep -q "note:" "$work/out"; } && ok ||
  bad "calibrate show did not note the shipped fit's measured error: $(cat "$work/err")"
# calibrate show says the same on stderr, the JSON on stdout left whole.
"$bin" calibrate show "$work/profiles/h100-vllm.json" --runtime vllm >"$work/out" 2>"$work/err"
{ [ $? -eq 0 ] && grep -q "note: memory_efficiency 0.40 below half of the kernel-level 0.90" "$work/err" &&
  ! grep -q "note:" "$work/out"; } && ok || bad "calibrate show did not note the profile's figures: $(cat "$work/err")"

# A forecast made with that profile says so under its summary and in the report; with the datasheet ones, nothing.
FLEETCAST_PROFILE_DIR="$work/profiles" "$bin" simulate "$fixtures/good.json" -o "$work/kr.json" >"$work/out" 2>"$work/err"
{ [ $? -eq 0 ] && grep -q "profile (measured) outside the kernel-level figures: matmul_efficiency.bf16 0.99 > 0.80, memory_efficiency 0.40 < half of 0.90" "$work/out" &&
  grep -q '"profile_kernel_caveats": \[$' "$work/kr.json" &&
  ! "$bin" --datasheet-profiles simulate "$fixtures/good.json" | grep -q "kernel-level"; } && ok ||
  bad "simulate did not name the profile's figures outside the kernels': $(cat "$work/out" "$work/err")"

# A plan and a sweep that lean on it say so too: the plan under its tables and per hardware in its JSON, the sweep
# once per GPU and runtime under its table and in every line.
cat >"$work/kplan.json" <<'PLAN'
{"name": "k", "model": "llama-3.1-8b", "hardware": ["h100"], "max_gpus": 1,
 "workload": {"arrival": {"kind": "poisson", "rate_per_s": 1.0},
              "input_tokens": {"kind": "fixed", "value": 200}, "output_tokens": {"kind": "fixed", "value": 20},
              "slo": {"ttft_ms": 10000}},
 "search": {"gpu_counts": [1], "tp": [1], "max_num_seqs": [8], "max_num_batched_tokens": [2048]},
 "simulation": {"num_requests": 40}}
PLAN
FLEETCAST_PROFILE_DIR="$work/profiles" "$bin" plan "$work/kplan.json" -o "$work/kp.json" >"$work/out" 2>"$work/err"
{ [ $? -eq 0 ] && grep -q "^  h100 vllm (measured): no measured error on record$" "$work/out" &&
  grep -q "^    outside the kernel-level figures: matmul_efficiency.bf16 0.99 > 0.80, memory_efficiency 0.40 < half of 0.90$" "$work/out" &&
  python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['profiles']; sys.exit(not (len(p)==1 and p[0]['kind']=='measured' and [c['field'] for c in p[0]['kernel_caveats']]==['matmul_efficiency.bf16','memory_efficiency']))" "$work/kp.json" &&
  ! "$bin" --datasheet-profiles plan "$work/kplan.json" 2>/dev/null | grep -q "outside the kernel-level figures:"; } && ok ||
  bad "plan did not name the profile's figures outside the kernels': $(cat "$work/out" "$work/err")"
FLEETCAST_PROFILE_DIR="$work/profiles" "$bin" sweep grid "$fixtures/good.json" kc --set seed=1,2 --out "$work/ks" >"$work/out" 2>"$work/err"
{ [ $? -eq 0 ] && [ "$(grep -c "^h100 vllm profile outside the kernel-level figures: matmul_efficiency.bf16 0.99 > 0.80, memory_efficiency 0.40 < half of 0.90$" "$work/out")" = 1 ] &&
  [ "$(grep -c '"field":"memory_efficiency"' "$work/ks/kc/results.jsonl")" = 2 ] &&
  grep -q "^h100 vllm profile measured: no measured error on record$" "$work/out" &&
  [ "$(grep -c '"profile_measured_error":null' "$work/ks/kc/results.jsonl")" = 2 ]; } && ok ||
  bad "sweep did not name the profile's figures outside the kernels': $(cat "$work/out" "$work/err")"

# Every forecast quotes the held-out error its exact profile showed (calibration/profiles/accuracy/held-out.json);
# a user's own profile has none on record, and says so.
"$bin" simulate "$fixtures/good.json" >"$work/out" 2>"$work/err"
{ [ $? -eq 0 ] && grep -E -q "^  profile \(fitted\) measured on h100 vllm: TTFT off by a median [0-9]+% \(p90 [0-9]+%, predicted/measured [0-9.]+x\), TPOT [0-9]+% .* held-out measured runs of " "$work/out" &&
  FLEETCAST_PROFILE_DIR="$work/profiles" "$bin" simulate "$fixtures/good.json" | grep -q "^  profile (measured) has no measured error on record for h100 vllm"; } && ok ||
  bad "simulate did not quote its profile's measured error: $(cat "$work/out" "$work/err")"
# Llama-3.1-8B is outside the runs the h100 vllm fit was made on: the forecast also quotes what that fit's recipe did on
# the dense models it was refitted without (calibration/profiles/accuracy/unseen-models.json); a datasheet profile,
# nothing.
{ grep -E -q "^  profile \(fitted\) on a model outside the fit's measured runs: TTFT off by a median [0-9]+% \([0-9]+-[0-9]+% by model, predicted/measured [0-9.]+x\), TPOT .* 2 dense models of h100 vllm left out one at a time" "$work/out" &&
  "$bin" simulate "$fixtures/good.json" -o "$work/unseen-report.json" >/dev/null 2>&1 &&
  python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['derived']['profile_unseen_model_error']; sys.exit(not (e['scope']=='pair' and e['architecture']=='dense' and e['models_left_out']==['llama-3.1-70b','qwen3-32b']))" "$work/unseen-report.json" &&
  ! "$bin" --datasheet-profiles simulate "$fixtures/good.json" 2>/dev/null | grep -q "outside the fit's measured runs"; } &&
  ok || bad "simulate did not quote the error on models left out: $(cat "$work/out")"
# On a GPU without a fit (GB200) the forecast quotes how that pick did on the GPUs with measured runs, each given it
# instead of its own fit, on their runs of dense models like Llama-3.1-8B (calibration/profiles/accuracy/unfitted-gpus.json;
# B300 has none); a fitted GPU's forecast does not.
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); j['deployment']['hardware']='gb200'; json.dump(j, open(sys.argv[2],'w'))" \
  "$fixtures/good.json" "$work/gb200.json"
"$bin" simulate "$work/gb200.json" -o "$work/gb200-report.json" >"$work/gb200-out" 2>"$work/err"
{ [ $? -eq 0 ] && grep -E -q "^  profile \(datasheet\) as a GPU without a fit: TTFT off by a median [0-9]+% \([0-9]+-[0-9]+% by GPU, predicted/measured [0-9.]+x\), TPOT .* on the measured runs of dense models on b200, h100, h200 vllm, each given this pick instead of its own fit" "$work/gb200-out" &&
  python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['derived']['profile_unfitted_gpu_error']; sys.exit(not (e['hardware']=='gb200' and e['architecture']=='dense' and e['gpus']==['b200','h100','h200']))" "$work/gb200-report.json" &&
  ! grep -q "as a GPU without a fit" "$work/out" &&
  ! "$bin" --datasheet-profiles simulate "$work/gb200.json" 2>/dev/null | grep -q "as a GPU without a fit"; } &&
  ok || bad "simulate on gb200 did not quote the unfitted-GPU error: $(cat "$work/gb200-out" "$work/err")"
# So does a hardware spec of the user's own, which no fit can name.
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); h=json.load(open(sys.argv[2])); h['name']='my-gpu'; j['deployment']['hardware']=h; json.dump(j, open(sys.argv[3],'w'))" \
  "$fixtures/good.json" "$fixtures/../../../specs/presets/hardware/h200.json" "$work/my-gpu.json"
"$bin" simulate "$work/my-gpu.json" 2>"$work/err" | grep -q "^  profile (datasheet) as a GPU without a fit: .* h200 vllm, each given this pick" &&
  ok || bad "simulate on a hardware object did not quote the unfitted-GPU error: $(cat "$work/err")"
# --unfitted-profiles validate --accuracy scores every row with its GPU's pick into the unfitted-GPU table; it refuses
# a subset of rows and a held-out table, leaving the file as it was.
"$bin" --unfitted-profiles validate --silicon "$silicon" --split held-out --accuracy "$work/unfitted.json" >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q -- "--unfitted-profiles" "$work/err" && [ ! -e "$work/unfitted.json" ]; } && ok ||
  bad "--unfitted-profiles validate --accuracy on held-out rows: $(cat "$work/err")"
echo '{"schema": "fleetcast.accuracy/1", "pairs": []}' >"$work/unfitted.json"
"$bin" --unfitted-profiles validate --silicon "$silicon" -j 2 --summary-only --accuracy "$work/unfitted.json" >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q "unfitted.json: field 'schema'.*fleetcast.unfitted-gpu-accuracy/2" "$work/err" &&
  grep -q '"fleetcast.accuracy/1"' "$work/unfitted.json"; } && ok ||
  bad "--unfitted-profiles validate --accuracy into a held-out table: $(cat "$work/err")"
rm "$work/unfitted.json"
"$bin" --unfitted-profiles validate --silicon "$silicon" -j 2 --summary-only --accuracy "$work/unfitted.json" >/dev/null 2>"$work/err"
{ [ $? -eq 0 ] && python3 -c "import json,sys; t=json.load(open(sys.argv[1])); sys.exit(not (t['schema']=='fleetcast.unfitted-gpu-accuracy/2' and t['pairs'] and all(p['profile_kind']=='datasheet' and p['architecture'] in ('dense','moe') for p in t['pairs'])))" "$work/unfitted.json"; } &&
  ok || bad "--unfitted-profiles validate --accuracy did not write the table: $(cat "$work/err")"
# validate --accuracy writes the table from held-out rows only, merges into a table, and leaves a bad one as it was.
"$bin" validate --silicon "$silicon" --accuracy "$work/acc.json" >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q -- "--accuracy" "$work/err" && [ ! -e "$work/acc.json" ]; } && ok ||
  bad "validate --accuracy without --split held-out: $(cat "$work/err")"
echo '{"schema": "fleetcast.accuracy/2", "pairs": [{"hardware": "h100"}]}' >"$work/acc.json"
"$bin" validate --silicon "$silicon" --split held-out -j 2 --summary-only --accuracy "$work/acc.json" >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q "acc.json: field 'pairs\[0\].runtime'" "$work/err" &&
  grep -q '"hardware": "h100"}' "$work/acc.json"; } && ok || bad "validate --accuracy into a bad table: $(cat "$work/err")"
rm "$work/acc.json"
"$bin" validate --silicon "$silicon" --split held-out -j 2 --summary-only --accuracy "$work/acc.json" >/dev/null 2>"$work/err"
{ [ $? -eq 0 ] && python3 -c "import json,sys; t=json.load(open(sys.argv[1])); sys.exit(not (t['schema']=='fleetcast.accuracy/2' and all(p['architecture'] in ('dense','moe') for p in t['pairs'])))" "$work/acc.json"; } && ok ||
  bad "validate --accuracy did not write a table: $(cat "$work/err")"

# validate --bench: vLLM and SGLang benchmark-client result files, the deployment from flags and metadata.
bench=$fixtures/../../traces/fixtures
"$bin" validate --bench "$bench/vllm-bench-result.json" --bench "$bench/sglang-bench-serving.jsonl" \
  --model meta-llama/Llama-3.1-8B-Instruct --hardware h100 --tp 1 -j 2 --json "$work/b.json" >"$work/out" 2>"$work/err"
{ [ $? -eq 0 ] && grep -q "coverage: 3 of 6 rows predicted" "$work/out" && grep -q "speculative decoding" "$work/out" &&
  grep -q "skipped record at line 3: mean_tpot_ms: missing" "$work/err" &&
  grep -q '"measured_ttft_ms": 118.4' "$work/b.json"; } && ok || bad "validate --bench: $(cat "$work/out" "$work/err")"
# --bench FILE... takes every file up to the next flag: the same rows as one --bench per file.
"$bin" validate --bench "$bench/vllm-bench-result.json" "$bench/sglang-bench-serving.jsonl" \
  --model meta-llama/Llama-3.1-8B-Instruct --hardware h100 --tp 1 -j 2 --json "$work/b_multi.json" >/dev/null 2>&1
python3 - "$work/b.json" "$work/b_multi.json" <<'PY' && ok || bad "validate --bench FILE FILE"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["rows_read"] == b["rows_read"] == 6 and [r["id"] for r in a["rows"]] == [r["id"] for r in b["rows"]]
assert [r["predicted_ttft_ms"] for r in a["rows"]] == [r["predicted_ttft_ms"] for r in b["rows"]]
PY
# An AIPerf export: the engine given on the command line, its 16 warm-up requests simulated and left out.
"$bin" validate --bench "$bench/aiperf-profile-export.json" --hardware h100 --runtime vllm --tp 1 -j 1 \
  --json "$work/ai.json" >"$work/out" 2>"$work/err"
{ [ $? -eq 0 ] && grep -q "coverage: 1 of 1" "$work/out" && grep -q "16 warm-up requests" "$work/ai.json" &&
  grep -q "^    read as: .*aiperf export" "$work/out"; } && ok ||
  bad "validate --bench an AIPerf export: $(cat "$work/out" "$work/err")"
# A directory stands for the AIPerf and genai-perf exports under it (an artifacts tree), not its other JSON files.
mkdir -p "$work/artifacts/c8" "$work/artifacts/c16" "$work/empty"
cp "$bench/aiperf-profile-export.json" "$work/artifacts/c8/profile_export_aiperf.json"
cp "$bench/genai-perf-profile-export.json" "$work/artifacts/c16/profile_export_genai_perf.json"
echo '{"data": []}' >"$work/artifacts/c8/inputs.json"
"$bin" validate --bench "$work/artifacts" --hardware h100 --runtime vllm --tp 1 -j 1 >"$work/out" 2>"$work/err"
{ [ $? -eq 0 ] && grep -q "of 2 rows predicted" "$work/out" && ! grep -q "skipped record" "$work/err"; } && ok ||
  bad "validate --bench DIR: $(cat "$work/out" "$work/err")"
"$bin" validate --bench "$work/empty" --hardware h100 --runtime vllm --tp 1 >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q "profile_export_aiperf.json" "$work/err"; } && ok || bad "validate --bench EMPTY_DIR: $(cat "$work/err")"
# The percentiles the files report, each against the simulation's own: the measured values as written, and the
# predicted median never above the predicted p99 of the same metric.
python3 - "$work/b.json" <<'PY' && grep -q "percentiles the benchmark files report" "$work/out" && ok || bad "validate --bench percentiles"
import json, sys
j = json.load(open(sys.argv[1]))
row = next(r for r in j["rows"] if r["id"] == "vllm-bench-result.json#1")
got = {(q["metric"], q["percentile"]): q for q in row["percentiles"]}
assert got[("ttft", 50)]["measured_ms"] == 96.2 and got[("e2e", 99)]["measured_ms"] == 1498.0, got
for metric in ("ttft", "tpot", "e2e"):
    assert got[(metric, 50)]["predicted_ms"] <= got[(metric, 99)]["predicted_ms"], metric
summary = {(p["metric"], p["percentile"]): p["count"] for p in j["percentiles"]}
assert summary[("ttft", 99)] == sum(1 for r in j["rows"] if any(q["metric"] == "ttft" and q["percentile"] == 99 for q in r.get("percentiles", []))), summary
PY
"$bin" validate --bench "$bench/sglang-bench-serving.jsonl" --strict --json "$work/b2.json" >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q "line 3, field mean_tpot_ms" "$work/err" && [ ! -e "$work/b2.json" ]; } && ok ||
  bad "validate --bench --strict on a bad record: $(cat "$work/err")"
"$bin" validate --bench "$bench/vllm-bench-result.json" --silicon "$silicon" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && ok || bad "validate with both --bench and --silicon: $(cat "$work/err")"

# validate --bench with the engine's launch settings: TensorRT-LLM's batch waiting holds each prompt back for up to 20
# steps while others decode, so the same run's predicted TTFT grows; a flag the settings contradict is refused.
trt="trtllm-serve meta-llama/Llama-3.1-8B-Instruct --tp_size 1 --max_num_tokens 8192"
printf 'batch_wait_timeout_iters: 20\nbatch_wait_max_tokens_ratio: 0.9\nkv_cache_config:\n  free_gpu_memory_fraction: 0.8\n' >"$work/trt.yml"
"$bin" validate --bench "$bench/vllm-bench-result.json" --hardware h100 --server-args "$trt" -j 1 \
  --json "$work/t0.json" >/dev/null 2>"$work/err" &&
  "$bin" validate --bench "$bench/vllm-bench-result.json" --hardware h100 --server-args "$trt" \
    --server-config "$work/trt.yml" -j 1 --json "$work/t1.json" >/dev/null 2>>"$work/err"
{ [ $? -eq 0 ] && python3 - "$work/t0.json" "$work/t1.json" <<'PY'; } && ok || bad "validate --bench --server-config: $(cat "$work/err")"
import json, sys
plain, waiting = (json.load(open(f))["rows"][0] for f in sys.argv[1:])
assert "batch_wait_timeout_iters 20" in waiting["notes"] and "trtllm" in waiting["group"], waiting["notes"]
assert waiting["predicted_ttft_ms"] > 1.2 * plain["predicted_ttft_ms"], (plain["predicted_ttft_ms"], waiting["predicted_ttft_ms"])
PY

# Speculative decoding as launched: vLLM's --speculative-config with DeepSeek's MTP layers, 3 drafts per step at a mean
# of 2.8 tokens per step, against the same run without. Each step verifies 4 tokens per sequence and runs 3 draft
# passes, but yields 2.8 tokens: the predicted TPOT falls well below the plain run's. Without an acceptance figure
# the run is listed unmapped, and `scenario` refuses the launch.
python3 - "$work/r1.json" <<'PY'
import json, sys
json.dump({"endpoint_type": "vllm", "model_id": "deepseek-ai/DeepSeek-R1", "num_prompts": 16, "completed": 16,
           "total_input_tokens": 16 * 1024, "total_output_tokens": 16 * 256, "mean_ttft_ms": 100.0,
           "mean_tpot_ms": 10.0, "max_concurrency": 4, "request_rate": "inf", "id": "r1"}, open(sys.argv[1], "w"))
PY
r1="vllm serve deepseek-ai/DeepSeek-R1 -tp 8"
mtp="$r1 --speculative-config '{\"method\": \"deepseek_mtp\", \"num_speculative_tokens\": 3}'"
"$bin" validate --bench "$work/r1.json" --hardware b200 --server-args "$r1" -j 1 --json "$work/s0.json" >/dev/null 2>"$work/err" &&
  "$bin" validate --bench "$work/r1.json" --hardware b200 --server-args "$mtp" --acceptance-length 2.8 -j 1 \
    --json "$work/s1.json" >/dev/null 2>>"$work/err" &&
  "$bin" validate --bench "$work/r1.json" --hardware b200 --server-args "$mtp" -j 1 --json "$work/s2.json" >/dev/null 2>>"$work/err"
{ [ $? -eq 0 ] && python3 - "$work/s0.json" "$work/s1.json" "$work/s2.json" <<'PY'; } && ok || bad "validate --bench with MTP: $(cat "$work/err")"
import json, sys
plain, mtp = (json.load(open(f))["rows"][0] for f in sys.argv[1:3])
assert "3 drafts per step" in mtp["notes"], mtp["notes"]
assert mtp["predicted_tpot_ms"] < 0.75 * plain["predicted_tpot_ms"], (plain["predicted_tpot_ms"], mtp["predicted_tpot_ms"])
unmapped = json.load(open(sys.argv[3]))["rows"][0]
assert not unmapped["predicted"] and "--acceptance-length" in unmapped["reason"], unmapped["reason"]
PY
# TensorRT-LLM's per-request timing (/perf_metrics) of the same run under trtllm-serve with MTP: 16 measured requests
# (after 2 warm-ups) of 256 tokens over 102 decode iterations each are 4,080 / 1,632 = 2.5 tokens per iteration, the
# run's accepted length; --acceptance-length beside it is refused.
python3 - "$work/perf.json" <<'PY'
import json, sys
entries = []
for i in range(18):
    t = 10.0 * i
    entries.append({"request_id": i, "perf_metrics": {"first_iter": 200 * i, "last_iter": 200 * i + 102, "timing_metrics": {
        "server_arrival_time": t, "arrival_time": t + 0.005, "first_scheduled_time": t + 0.008, "first_token_time": t + 0.068,
        "server_first_token_time": t + 0.069, "last_token_time": t + 0.068 + 102 * 0.012}}})
json.dump(entries, open(sys.argv[1], "w"))
PY
printf 'speculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: 3\n' >"$work/mtp.yml"
"$bin" validate --bench "$work/r1.json" --hardware b200 --server-args "trtllm-serve deepseek-ai/DeepSeek-R1 --tp_size 8" \
  --server-config "$work/mtp.yml" --perf-metrics "$work/perf.json" -j 1 --json "$work/s3.json" >/dev/null 2>"$work/err"
{ [ $? -eq 0 ] && python3 - "$work/s3.json" <<'PY'; } && ok || bad "validate --bench --perf-metrics: $(cat "$work/err")"
import json, sys
row = json.load(open(sys.argv[1]))["rows"][0]
assert row["predicted"], row["reason"]
for said in ("2.50 tokens per decode iteration", "prompt iteration 60.0 ms", "2 warm-ups left out", "from the engine's decode iterations"):
    assert said in row["notes"], (said, row["notes"])
PY
"$bin" validate --bench "$work/r1.json" --hardware b200 --server-args "trtllm-serve deepseek-ai/DeepSeek-R1 --tp_size 8" \
  --server-config "$work/mtp.yml" --perf-metrics "$work/perf.json" --acceptance-length 3 >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q -- "--acceptance-length" "$work/err"; } && ok || bad "--perf-metrics with --acceptance-length: $(cat "$work/err")"
"$bin" scenario --server-args "$mtp" --hardware b200 >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q -- "--acceptance-length" "$work/err"; } && ok || bad "scenario with MTP and no acceptance: $(cat "$work/err")"
"$bin" scenario --server-args "$mtp" --hardware b200 --acceptance-length 2.8 -o "$work/mtp-scenario.json" 2>"$work/err" &&
  python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['deployment']['speculative']; assert s['num_draft_tokens']==3, s" "$work/mtp-scenario.json" &&
  ok || bad "scenario with MTP: $(cat "$work/err")"
"$bin" validate --bench "$bench/vllm-bench-result.json" --hardware h100 --tp 2 --server-args "$trt" >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q -- "--tp 2" "$work/err"; } && ok || bad "validate --bench, --tp against the settings: $(cat "$work/err")"
printf 'max_num_seqs: [1, 2\n' >"$work/bad.yml"
"$bin" validate --bench "$bench/vllm-bench-result.json" --hardware h100 --tp 1 --server-config "$work/bad.yml" >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q "bad.yml" "$work/err"; } && ok || bad "validate --bench, unparsable settings: $(cat "$work/err")"

# calibrate serving --bench: runs whose "measured" means are the simulation's own under the profile in use give a
# fit from the datasheet profile that reproduces them (0% on training and held-out rows), written as a profile.
python3 - "$work/seed.jsonl" <<'PY'
import json, sys
runs = [(1, 512, 64), (2, 512, 64), (4, 1024, 64), (8, 512, 128), (16, 1024, 64), (32, 512, 64), (48, 2048, 64),
        (64, 512, 128), (12, 1536, 96), (24, 768, 80)]
with open(sys.argv[1], "w") as f:
    for i, (c, isl, osl) in enumerate(runs):
        n = 4 * c
        f.write(json.dumps({"endpoint_type": "vllm", "model_id": "meta-llama/Llama-3.1-8B-Instruct", "num_prompts": n,
                            "completed": n, "total_input_tokens": isl * n, "total_output_tokens": osl * n,
                            "mean_ttft_ms": 100.0, "mean_tpot_ms": 10.0, "max_concurrency": c, "request_rate": "inf",
                            "id": f"r{i}"}) + "\n")
PY
"$bin" validate --bench "$work/seed.jsonl" --hardware h100 --tp 1 -j 2 --json "$work/seed.json" >/dev/null 2>"$work/err" &&
  python3 - "$work/seed.jsonl" "$work/seed.json" "$work/made.jsonl" <<'PY' &&
import json, sys
predicted = {r["id"]: r for r in json.load(open(sys.argv[2]))["rows"]}
with open(sys.argv[3], "w") as f:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        r["mean_ttft_ms"], r["mean_tpot_ms"] = predicted[r["id"]]["predicted_ttft_ms"], predicted[r["id"]]["predicted_tpot_ms"]
        f.write(json.dumps(r) + "\n")
PY
  mkdir -p "$work/fit" && "$bin" --datasheet-profiles calibrate serving --bench "$work/made.jsonl" --hardware h100 \
    --runtime vllm --tp 1 -o "$work/fit" >"$work/out" 2>>"$work/err"
{ [ $? -eq 0 ] && grep -q "^h100     vllm    1 in 5 by id .* ->   0%/  0% | .* ->   0%/  0% |" "$work/out" &&
  grep -q '"kind": "fitted"' "$work/fit/h100-vllm.json"; } && ok || bad "calibrate serving --bench: $(cat "$work/out" "$work/err")"
"$bin" calibrate serving --bench "$work/made.jsonl" --silicon "$silicon" --hardware h100 >/dev/null 2>"$work/err"
[ $? -eq 2 ] && ok || bad "calibrate serving with both --bench and --silicon: $(cat "$work/err")"

# calibrate prompt-ratio: two rows at 1,024 and 4,096 tokens whose "measured" TTFTs are the datasheet profile's own
# prediction at the short prompt and that plus twice the predicted growth at the long one read a ratio of 2, written
# into the fitted profile of the folder given, where it stands in for the shipped H100 fit's in the ratio a GPU
# without a vLLM fit carries; a serving fit made with --prompt-slowdown keeps it. Without a measured ratio in the profile in use, --prompt-slowdown exits 2.
{ head -1 "$silicon"
  echo "pr_a,hand-made; silicon_concurrency=4,vllm,0.12.0,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,,agg,1024,64,,,4,1,1,1,1,1,,,,,,,,,,,,,,,40.0,10.0"
  echo "pr_b,hand-made; silicon_concurrency=4,vllm,0.12.0,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,,agg,4096,64,,,4,1,1,1,1,1,,,,,,,,,,,,,,,90.0,10.0"
} >"$work/pr.csv"
mkdir -p "$work/prp"
"$bin" calibrate datasheet h100 | sed -e 's/"kind": "datasheet"/"kind": "fitted"/' -e 's/"runtime": ""/"runtime": "vllm"/' \
  >"$work/prp/h100-vllm.json"
"$bin" --datasheet-profiles validate --silicon "$work/pr.csv" -j 2 --summary-only --json "$work/pr.json" >/dev/null 2>"$work/err" &&
  python3 - "$work/pr.csv" "$work/pr.json" "$work/pr2.csv" <<'PY' &&
import json, sys
p = {r["id"]: r["predicted_ttft_ms"] for r in json.load(open(sys.argv[2]))["rows"]}
made = {"pr_a": p["pr_a"], "pr_b": p["pr_a"] + 2.0 * (p["pr_b"] - p["pr_a"])}
with open(sys.argv[3], "w") as f:
    for line in open(sys.argv[1]):
        cells = line.rstrip("\n").split(",")
        if cells[0] in made:
            cells[-2] = "%.6f" % made[cells[0]]
        f.write(",".join(cells) + "\n")
PY
  "$bin" calibrate prompt-ratio --silicon "$work/pr2.csv" -j 2 --profiles "$work/prp" >"$work/out" 2>>"$work/err"
{ [ $? -eq 0 ] && grep -E -q "^h100 +vllm +dense +1 +2.00 " "$work/out" &&
  python3 -c "import json,sys; p=json.load(open(sys.argv[1])); sys.exit(not (abs(p['marginal_prompt_ratio']['dense']-2)<0.01 and 'prompt_slowdown' not in p))" "$work/prp/h100-vllm.json" &&
  FLEETCAST_PROFILE_DIR="$work/prp" "$bin" calibrate show gb200 --runtime vllm 2>/dev/null >"$work/prshow.json" &&
  python3 -c "import json,sys; p=json.load(open(sys.argv[1])); sys.exit(not 'h100 2 x' in p['sources']['prompt_slowdown.dense'])" "$work/prshow.json" &&
  mkdir -p "$work/prfit" && FLEETCAST_PROFILE_DIR="$work/prp" "$bin" calibrate serving --bench "$work/made.jsonl" --hardware h100 --runtime vllm --tp 1 \
    --iterations 1 --prompt-slowdown -o "$work/prfit" >/dev/null 2>>"$work/err" &&
  python3 -c "import json,sys; p=json.load(open(sys.argv[1])); sys.exit(not (abs(p['prompt_slowdown']['dense']-2)<0.01 and abs(p['marginal_prompt_ratio']['dense']-2)<0.01))" "$work/prfit/h100-vllm.json"; } && ok ||
  bad "calibrate prompt-ratio: $(cat "$work/out" "$work/err")"
"$bin" calibrate prompt-ratio --silicon "$work/pr2.csv" --profiles "$work/no-such-folder" >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q "no-such-folder" "$work/err"; } && ok || bad "prompt-ratio into a missing folder: $(cat "$work/err")"
mkdir -p "$work/prp0" && "$bin" calibrate datasheet h100 |
  sed -e 's/"kind": "datasheet"/"kind": "fitted"/' -e 's/"runtime": ""/"runtime": "vllm"/' >"$work/prp0/h100-vllm.json"
FLEETCAST_PROFILE_DIR="$work/prp0" "$bin" calibrate serving --bench "$work/made.jsonl" --hardware h100 --runtime vllm --tp 1 \
  --prompt-slowdown >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q "marginal_prompt_ratio" "$work/err"; } && ok || bad "--prompt-slowdown without a ratio: $(cat "$work/err")"
# scenario: a deployment as its serve command starts it, with another scenario's workload carried unchanged; a batch
# cap below the clients makes requests wait for a slot, so flipping --max-num-seqs from 64 to 4 at 32 closed-loop
# clients must raise the TTFT.
printf '{"name": "w", "model": "llama-3.1-8b", "deployment": {"hardware": "h100", "nodes": 1, "replica": {"tp": 1}},
 "workload": {"arrival": {"kind": "closed_loop", "clients": 32}, "input_tokens": {"kind": "fixed", "value": 512},
 "output_tokens": {"kind": "fixed", "value": 64}}, "seed": 5, "num_requests": 320}\n' >"$work/w.json"
for seqs in 4 64; do
  "$bin" scenario --server-args "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs $seqs --gpu-memory-utilization 0.9" \
    --hardware h100 --from "$work/w.json" -o "$work/s$seqs.json" 2>"$work/err" &&
    "$bin" simulate "$work/s$seqs.json" -o "$work/r$seqs.json" >/dev/null 2>>"$work/err" || bad "scenario --max-num-seqs $seqs: $(cat "$work/err")"
done
python3 - "$work/w.json" "$work/s4.json" "$work/s64.json" "$work/r4.json" "$work/r64.json" <<'PY' && ok || bad "scenario: a flipped flag"
import json, sys
w, s4, s64, r4, r64 = (json.load(open(f)) for f in sys.argv[1:])
assert s64["workload"] == w["workload"] and s64["num_requests"] == 320, s64["workload"]
d = s64["deployment"]
assert d["runtime"] == "vllm" and d["scheduler"]["max_num_seqs"] == 64 and d["replica"]["tp"] == 1, d
assert d["scheduler"]["gpu_memory_utilization"] == 0.9 and s4["deployment"]["scheduler"]["max_num_seqs"] == 4
t4, t64 = r4["metrics"]["ttft_ms"]["mean"], r64["metrics"]["ttft_ms"]["mean"]
assert t4 > 2 * t64, (t4, t64)
PY
"$bin" scenario --server-args "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 8" --hardware h100 --from nonesuch >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q -- "--from" "$work/err"; } && ok || bad "scenario --from a missing scenario: $(cat "$work/err")"
"$bin" scenario --server-args "vllm serve --max-num-seqs 8" --hardware h100 >/dev/null 2>"$work/err"
{ [ $? -eq 2 ] && grep -q "names no model" "$work/err"; } && ok || bad "scenario without a model: $(cat "$work/err")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
