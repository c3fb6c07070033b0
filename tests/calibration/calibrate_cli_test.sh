#!/usr/bin/env bash
# `fleetcast calibrate` as a user meets it: fit -> check -> show a profile file, import each kernel format,
# compose on the CPU fixture, FLEETCAST_PROFILE_DIR making a fitted profile the one a hardware gets, and
# bad input exiting 2 with the file and field named and nothing written.
# usage: calibrate_cli_test.sh FLEETCAST FIXTURES_DIR
set -u
bin=$1
fixtures=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAILED: $*"; }

"$bin" calibrate fit "$fixtures/cpu_compose.jsonl" -o "$work/cpu.json" >"$work/out" 2>&1 &&
  grep -q "gemm  *fp32  *20" "$work/out" && ok || bad "fit: $(cat "$work/out")"
grep -q '"sha256": "'"$(sha256sum "$fixtures/cpu_compose.jsonl" | cut -c1-64)"'"' "$work/cpu.json" && ok ||
  bad "the profile does not cite the trace's sha256sum"
"$bin" calibrate check "$work/cpu.json" --threshold 0.5 >"$work/out" 2>&1 && grep -q "flagged (median APE above 50.0%): 0" "$work/out" &&
  ok || bad "check 0.5: $(cat "$work/out")"
"$bin" calibrate check "$work/cpu.json" --threshold 0.01 >"$work/out" 2>&1 && grep -q "gemm fp32" "$work/out" && ok ||
  bad "check 0.01 should flag gemm: $(cat "$work/out")"
"$bin" calibrate show "$work/cpu.json" | grep -q '"kind": "fitted"' && ok || bad "show PROFILE.json"

for f in vllm_kern_sum.csv vllm_gpu_trace.csv vllm_chrome_trace.json; do
  "$bin" calibrate import "$fixtures/$f" --device "NVIDIA H100 80GB HBM3" -o "$work/$f.jsonl" >"$work/out" 2>&1 &&
    grep -q "unmapped: 1\|unmapped: 2" "$work/out" && [ -s "$work/$f.jsonl" ] && ok || bad "import $f: $(cat "$work/out")"
done
"$bin" calibrate fit "$work/vllm_kern_sum.csv.jsonl" -o "$work/h100.json" >/dev/null 2>&1 &&
  grep -q '"hardware": "h100"' "$work/h100.json" && ok || bad "fit of an imported trace"

mkdir "$work/profiles" && cp "$work/h100.json" "$work/profiles/"
FLEETCAST_PROFILE_DIR="$work/profiles" "$bin" calibrate show h100 | grep -q '"kind": "fitted"' && ok ||
  bad "FLEETCAST_PROFILE_DIR: the fitted h100 profile should win over the datasheet one"
"$bin" calibrate show gb200 --runtime trtllm | grep -q '"kind": "datasheet"' && ok ||
  bad "without the folder, for a pair that ships no serving fit (gb200, trtllm): datasheet"
# The shipped serving fit of (h200, vllm) is the default for that pair; --datasheet-profiles and
# FLEETCAST_PROFILES=datasheet ask for the datasheet one, even over FLEETCAST_PROFILE_DIR.
"$bin" calibrate show h200 --runtime vllm | grep -q '"kind": "fitted"' && ok ||
  bad "the shipped fitted h200-vllm profile should be the default"
"$bin" --datasheet-profiles calibrate show h200 --runtime vllm | grep -q '"kind": "datasheet"' && ok ||
  bad "--datasheet-profiles should give the datasheet h200 profile"
FLEETCAST_PROFILES=datasheet FLEETCAST_PROFILE_DIR="$work/profiles" "$bin" calibrate show h100 |
  grep -q '"kind": "datasheet"' && ok || bad "FLEETCAST_PROFILES=datasheet should win over FLEETCAST_PROFILE_DIR"
"$bin" calibrate serving --silicon "$work/none.csv" --iterations 0 -o "$work" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q -- "--iterations" "$work/err" && ok || bad "--iterations 0 with -o should exit 2: $(cat "$work/err")"
FLEETCAST_PROFILES=fitest "$bin" calibrate show h200 >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "FLEETCAST_PROFILES" "$work/err" && grep -q "fitest" "$work/err" && ok ||
  bad "a bad FLEETCAST_PROFILES should exit 2 naming it: $(cat "$work/err")"

"$bin" calibrate compose "$fixtures/cpu_compose.jsonl" --json >"$work/out" 2>&1 &&
  python3 -c "import json,sys; j=json.load(open('$work/out')); sys.exit(0 if len(j['rows'])==9 and j['median_ape']<0.15 else 1)" &&
  ok || bad "compose --json: $(head -5 "$work/out")"
"$bin" calibrate compose "$fixtures/cpu_compose.jsonl" --max-median-ape 0.01 >/dev/null 2>&1
[ $? -eq 1 ] && ok || bad "compose above --max-median-ape should exit 1"

# calibrate steps: measured engine iterations (Dynamo's forward-pass metrics) against the step model; a file without
# the KV-cache columns cannot be costed and exits 2 naming the column.
cat >"$work/steps.json" <<'EOF'
{"name": "steps", "model": "qwen3-32b",
 "deployment": {"hardware": "b300", "nodes": 1, "replica": {"tp": 1}, "runtime": "vllm"},
 "workload": {"arrival": {"kind": "poisson", "rate_per_s": 1}, "input_tokens": {"kind": "fixed", "value": 100},
              "output_tokens": {"kind": "fixed", "value": 10}},
 "seed": 1, "num_requests": 10}
EOF
printf 'ctx_tokens,ctx_requests,ctx_kv_tokens,decode_tokens,decode_requests,decode_kv_tokens,latency_ms\n4096,1,0,0,0,0,205\n0,0,0,1,1,4096,13.5\n0,0,0,0,0,0,1\n' >"$work/fpm.csv"
"$bin" --datasheet-profiles calibrate steps "$work/steps.json" "$work/fpm.csv" >"$work/out" 2>&1 &&
  grep -q "profile datasheet: 2 measured steps" "$work/out" && grep -q "^  context  *1  *205.00" "$work/out" &&
  grep -q "1 idle iterations" "$work/out" && ok || bad "calibrate steps: $(cat "$work/out")"
"$bin" calibrate steps "$work/steps.json" "$work/fpm.csv" --json >"$work/out" 2>&1 &&
  python3 -c "import json,sys; j=json.load(open('$work/out')); sys.exit(0 if len(j['rows'])==2 and j['groups'][-1]['group']=='all' else 1)" &&
  ok || bad "calibrate steps --json: $(head -5 "$work/out")"
# -o fits a profile to the steps (here 2: too few, exit 2, nothing written); 15 steps fit and write one.
"$bin" calibrate steps "$work/steps.json" "$work/fpm.csv" -o "$work/fpm-fit.json" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "too few engine iterations" "$work/err" && [ ! -e "$work/fpm-fit.json" ] && ok ||
  bad "calibrate steps -o on 2 steps should exit 2 and write nothing: $(cat "$work/err")"
{
  echo 'ctx_tokens,ctx_requests,ctx_kv_tokens,decode_tokens,decode_requests,decode_kv_tokens,latency_ms'
  for t in 128 512 1024 2048 4096; do echo "$t,1,0,0,0,0,$((t / 20 + 12))"; done
  for n in 1 2 4 8 16 32 48 64 96 128; do echo "0,0,0,$n,$n,$((n * 4096)),$((14 + n / 8))"; done
} >"$work/fpm15.csv"
"$bin" calibrate steps "$work/steps.json" "$work/fpm15.csv" -o "$work/fpm-fit.json" >"$work/out" 2>&1 &&
  grep -q "held out" "$work/out" && grep -q '"kind": "measured"' "$work/fpm-fit.json" &&
  grep -q '"qwen3-32b"' "$work/fpm-fit.json" && ok || bad "calibrate steps -o: $(cat "$work/out")"
# Several SCENARIO FPM.csv pairs: each checked ({"cases": [...]}); a scenario without its file exits 2.
"$bin" calibrate steps "$work/steps.json" "$work/fpm.csv" "$work/steps.json" "$work/fpm15.csv" --json >"$work/out" 2>&1 &&
  python3 -c "import json,sys; j=json.load(open('$work/out')); sys.exit(0 if [len(c['rows']) for c in j['cases']]==[2,15] else 1)" &&
  ok || bad "calibrate steps with two pairs --json: $(head -5 "$work/out")"
"$bin" calibrate steps "$work/steps.json" "$work/fpm.csv" "$work/steps.json" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "SCENARIO FPM.csv pairs" "$work/err" && ok || bad "an unpaired scenario should exit 2: $(cat "$work/err")"
printf 'num_context_tokens,num_decode_tokens,latency_ms\n128,0,17.1\n' >"$work/compact.csv"
"$bin" calibrate steps "$work/steps.json" "$work/compact.csv" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "compact.csv:1" "$work/err" && grep -q "ctx_kv_tokens" "$work/err" && ok ||
  bad "calibrate steps on a file without KV columns should exit 2: $(cat "$work/err")"

# calibrate serving --cross-validate --accuracy: each model left out in turn, its fold merged into the table; refused
# without --cross-validate, over a fit in use (which saw the model left out), and on a file that is no such table.
{
  echo "id,silicon_data_source,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,prefill_batch_size,prefill_num_workers,prefill_tp_size,prefill_pp_size,prefill_attention_dp_size,prefill_moe_tp_size,prefill_moe_ep_size,decode_batch_size,decode_num_workers,decode_tp_size,decode_pp_size,decode_attention_dp_size,decode_moe_tp_size,decode_moe_ep_size,silicon_ttft_ms,silicon_tpot_ms"
  for model in meta-llama/Llama-3.1-8B Qwen/Qwen3-32B; do
    for c in 1 2 4 8 16 32 64; do
      echo "${model#*/}_c$c,x,vllm,0.12.0,$model,h100_sxm,fp8,agg,256,16,fp8,fp8,$c,1,1,,,,,,,,,,,,,,,,,,$((40 + c)),$((10 + c / 8))"
    done
  done
} >"$work/two-models.csv"
"$bin" --datasheet-profiles calibrate serving --silicon "$work/two-models.csv" --hardware h100 --runtime vllm \
  --train-rows 6 --iterations 1 --cross-validate --accuracy "$work/unseen.json" >"$work/out" 2>&1 &&
  python3 -c "
import json, sys
t = json.load(open('$work/unseen.json'))
p = t['pairs'][0]
folds = {f['left_out']: f['trained_on'] for f in p['folds']}
ok = (t['schema'] == 'fleetcast.unseen-model-accuracy/1' and p['hardware'] == 'h100' and p['runtime'] == 'vllm'
      and folds == {'llama-3.1-8b': ['qwen3-32b'], 'qwen3-32b': ['llama-3.1-8b']}
      and all(f['rows'] == 7 for f in p['folds']) and '--train-rows 6 --iterations 1' in p['recipe'])
sys.exit(0 if ok else 1)" && ok || bad "calibrate serving --cross-validate --accuracy: $(cat "$work/out") $(cat "$work/unseen.json")"
"$bin" calibrate serving --silicon "$work/two-models.csv" --accuracy "$work/unseen.json" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q -- "--cross-validate" "$work/err" && ok || bad "--accuracy alone should exit 2: $(cat "$work/err")"
cp "$work/unseen.json" "$work/unseen.before"
"$bin" calibrate serving --silicon "$work/two-models.csv" --hardware h100 --runtime vllm --cross-validate \
  --accuracy "$work/unseen.json" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q -- "--datasheet-profiles" "$work/err" && cmp -s "$work/unseen.json" "$work/unseen.before" && ok ||
  bad "--accuracy over a fit in use should exit 2 and leave the table: $(cat "$work/err")"
echo '{"schema": "fleetcast.accuracy/1", "pairs": []}' >"$work/other.json"
"$bin" --datasheet-profiles calibrate serving --silicon "$work/two-models.csv" --cross-validate \
  --accuracy "$work/other.json" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "other.json" "$work/err" && grep -q "schema" "$work/err" && ok ||
  bad "--accuracy on another table should exit 2 naming it: $(cat "$work/err")"

head -c 3000 "$fixtures/cpu_compose.jsonl" >"$work/cut.jsonl"
"$bin" calibrate fit "$work/cut.jsonl" -o "$work/cut.json" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "cut.jsonl:" "$work/err" && [ ! -e "$work/cut.json" ] && ok || bad "truncated trace: $(cat "$work/err")"
"$bin" calibrate import "$fixtures/vllm_kern_sum.csv" --format nvprof -o "$work/x.jsonl" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q -- "--format" "$work/err" && [ ! -e "$work/x.jsonl" ] && ok || bad "bad --format: $(cat "$work/err")"
ls "$work" | grep -q '\.tmp$' && bad "a temporary file was left" || ok

echo "calibrate CLI: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
