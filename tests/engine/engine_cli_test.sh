#!/usr/bin/env bash
# fleetcast-engine as a user meets it: the CPU smoke plan end to end into a trace the strict reader
# accepts; exit code 3 for --backend cuda without a GPU; bad plans exit 2 naming file and field with
# nothing written; help and ops.
# usage: engine_cli_test.sh FLEETCAST_ENGINE READ_TRACE SOURCE_DIR
set -u
bin=$1
read_trace=$2
src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAILED: $*"; }

# The smoke plan on the CPU backend: exit 0, a summary, a trace the reader accepts with every case in it.
"$bin" run "$src/engine/plans/cpu-smoke.json" --backend cpu -o "$work/cpu.jsonl" >"$work/out" 2>"$work/err"
rc=$?
if [ "$rc" -eq 0 ]; then ok; else bad "cpu-smoke exited $rc: $(tail -5 "$work/err")"; fi
cat "$work/out"
grep -q "summary: cpu backend" "$work/out" && ok || bad "no summary"
grep -q "^  gemm " "$work/out" && ok || bad "summary has no gemm row"
counted=$("$read_trace" "$work/cpu.jsonl") && ok || bad "the reader rejects the trace: $counted"
lines=$(wc -l <"$work/cpu.jsonl")
[ "$counted" = "cpu $((lines - 1))" ] && ok || bad "reader counted '$counted' for $lines lines"
[ "$lines" -ge 10 ] && ok || bad "only $lines lines in the trace"
for op in gemm rmsnorm swiglu rope sampling attention_decode_gqa attention_decode_mla attention_prefill memcpy \
  moe_routing moe_permute moe_unpermute moe_grouped_gemm model_step; do
  grep -q "\"op\":\"$op\"" "$work/cpu.jsonl" && ok || bad "no $op measurement in the trace"
done
# The model_step record's shape is a contract the calibration compose check reads: these keys, this order.
grep -q '"op":"model_step","dtype":"fp32","shape":{"model":"llama-3.1-8b","tp":8,"ep":1,"layers":1,"phase":"decode","batch":2,"context":64,"new_tokens":1},"gpus":1' \
  "$work/cpu.jsonl" && ok || bad "the model_step record's shape is not the contract's"
# The bf16 step (the plan's "precision"): its values stored in fp32 on the CPU, the precision last in the shape.
grep -q '"op":"model_step","dtype":"fp32","shape":{"model":"llama-3.1-8b","tp":8,"ep":1,"layers":1,"phase":"decode","batch":2,"context":64,"new_tokens":1,"precision":"bf16"},"gpus":1' \
  "$work/cpu.jsonl" && ok || bad "the bf16 model_step record is missing or its shape is not the contract's"
grep -c '"checked":true' "$work/cpu.jsonl" | grep -qx "$((lines - 1))" && ok || bad "a measurement is unchecked"
ls "$work" | grep -q tmp && bad "a temporary file was left" || ok

# --backend cuda: exit 3 with a message where there is no GPU (or no CUDA backend in this build).
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: a GPU is present, so --backend cuda would run; exit code 3 is tested on machines without one"
else
  "$bin" run "$src/engine/plans/cpu-smoke.json" -o "$work/gpu.jsonl" >/dev/null 2>"$work/err"
  rc=$?
  [ "$rc" -eq 3 ] && ok || bad "--backend cuda without a GPU exited $rc, expected 3: $(cat "$work/err")"
  grep -qi "cuda" "$work/err" && ok || bad "the exit-3 message does not mention CUDA: $(cat "$work/err")"
  [ ! -e "$work/gpu.jsonl" ] && ok || bad "a trace was written without a GPU"
  "$bin" device >/dev/null 2>&1
  [ $? -eq 3 ] && ok || bad "device without a GPU did not exit 3"
fi

# Bad plans: exit 2, the message names the file and the field, nothing written, an old trace kept.
cat >"$work/bad.json" <<'JSON'
{"name": "bad", "ops": [{"op": "gemm", "dtypes": ["bf16"], "sweep": {"m": [1], "n": [64], "k": [0]}}]}
JSON
echo "old" >"$work/keep.jsonl"
"$bin" run "$work/bad.json" --backend cpu -o "$work/keep.jsonl" >/dev/null 2>"$work/err"
rc=$?
[ "$rc" -eq 2 ] && ok || bad "a bad plan exited $rc, expected 2"
grep -q "bad.json" "$work/err" && grep -q "ops\[0\].sweep.k" "$work/err" && ok || bad "message: $(cat "$work/err")"
grep -qx "old" "$work/keep.jsonl" && ok || bad "a failed run overwrote an existing trace"
printf '{"name": "cut", "ops": [' >"$work/cut.json"
"$bin" run "$work/cut.json" --backend cpu -o "$work/x.jsonl" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "cut.json" "$work/err" && ok || bad "a truncated plan: $(cat "$work/err")"
"$bin" run "$src/engine/plans/cpu-smoke.json" --backend cpu -o "$work/no/such/dir/t.jsonl" >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "an unwritable -o did not exit 2"
"$bin" run "$src/engine/plans/cpu-smoke.json" --backend rocm -o "$work/t.jsonl" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q -- "--backend" "$work/err" && ok || bad "an unknown backend did not exit 2"
"$bin" run "$src/engine/plans/cpu-smoke.json" >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "a run without -o did not exit 2"
"$bin" frobnicate >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "an unknown command did not exit 2"

# Help, ops, device on the CPU.
"$bin" --help >"$work/help" && grep -q "examples:" "$work/help" && grep -q "exit codes" "$work/help" && ok ||
  bad "--help lacks examples or exit codes"
"$bin" ops >"$work/ops" && grep -q "attention_decode_mla" "$work/ops" && ok || bad "ops does not list the ops"
slug=$("$bin" device --backend cpu --slug) && [ -n "$slug" ] && ok || bad "device --backend cpu --slug failed"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
