#!/usr/bin/env bash
# The step model against aiconfigurator's FPM golden runs (ai-dynamo/aiconfigurator fpm_golden_runs/: vLLM 0.20.1 on
# B300, Dynamo's forward-pass metrics per engine iteration), as docs/ACCURACY.md "The step model against measured
# engine iterations" records it: each case with the datasheet profile and with the default, each case's own step fit,
# and a fit of Qwen3-32B's TP1 and TP2 steps checked on TP4 and TP8. The runs are not in this repository: give the
# folder that holds them (FPM_ROOT/<run>/<case>/fpm_metrics_phase.csv); a case whose file is missing is skipped.
# Usage: scripts/fpm-steps-check.sh FPM_ROOT   (FLEETCAST=path to the binary)
set -euo pipefail
cd "$(dirname "$0")/.."
fleetcast=${FLEETCAST:-build/cli/fleetcast}
root=${1:?usage: scripts/fpm-steps-check.sh FPM_ROOT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

qwen32=fpm_upfront_qwen32_full_once_20260613_194007
qwen36=fpm_upfront_qwen36_moe_full_once_20260613_201336
dsv4=fpm_upfront_dsv4_flash_moe_full_once_20260613_211059
# name, model preset, tp, ep, FPM file under FPM_ROOT
cases=(
  "q32-tp1 qwen3-32b 1 1 $qwen32/tp1_ep1_past4096/fpm_metrics_phase.csv"
  "q32-tp2 qwen3-32b 2 1 $qwen32/tp2_ep1_past4096/fpm_metrics_phase.csv"
  "q32-tp4 qwen3-32b 4 1 $qwen32/tp4_ep1_past4096/fpm_metrics_phase.csv"
  "q32-tp8 qwen3-32b 8 1 $qwen32/tp8_ep1_past4096/fpm_metrics_phase.csv"
  "q36-tp1 qwen3.5-35b-a3b 1 1 $qwen36/tp1_ep1_past4096/fpm_metrics_phase.csv"
  "q36-tp2-ep2 qwen3.5-35b-a3b 2 2 $qwen36/tp2_ep2_past4096/fpm_metrics_phase.csv"
  "dsv4-tp1 deepseek-v4-flash 1 1 $dsv4/tp1_ep1_past4096/fpm_metrics_phase.csv"
)

# The case's scenario: the model preset on one B300 node at the case's layout under vLLM (the workload is not used).
scenario() {
  cat >"$work/$1.json" <<EOF
{"name": "$1", "model": "$2",
 "deployment": {"hardware": "b300", "nodes": 1, "replica": {"tp": $3, "ep": $4}, "runtime": "vllm",
                "scheduler": {"max_num_seqs": 128, "max_num_batched_tokens": 8192}},
 "workload": {"arrival": {"kind": "poisson", "rate_per_s": 1}, "input_tokens": {"kind": "fixed", "value": 1024},
              "output_tokens": {"kind": "fixed", "value": 64}},
 "seed": 1, "num_requests": 10}
EOF
}

# "group steps measured-ms ratio" per phase group of one `calibrate steps --json` result.
groups() {
  python3 -c 'import json, sys
for g in json.load(sys.stdin)["groups"]:
    if g["steps"] >= 5: print("  %-18s %6d %10.2f  x%.2f" % (g["group"], g["steps"], g["measured_median_ms"], g["median_ratio"]))'
}

present=()
for c in "${cases[@]}"; do
  read -r name model tp ep file <<<"$c"
  [ -f "$root/$file" ] || { echo "$name: no $root/$file, skipped"; continue; }
  scenario "$name" "$model" "$tp" "$ep"
  present+=("$name")
  echo "== $name ($model, TP$tp EP$ep): datasheet profile, then the default"
  "$fleetcast" --datasheet-profiles calibrate steps "$work/$name.json" "$root/$file" --json | groups
  "$fleetcast" calibrate steps "$work/$name.json" "$root/$file" --json | groups
  mkdir -p "$work/fit-$name"
  "$fleetcast" --datasheet-profiles calibrate steps "$work/$name.json" "$root/$file" \
    -o "$work/fit-$name/b300-vllm.json" 2>&1 >/dev/null | sed 's/; wrote.*//; s/^/  own fit: /'
done

file_of() { for c in "${cases[@]}"; do read -r name _ _ _ file <<<"$c"; [ "$name" = "$1" ] && echo "$root/$file"; done; }
if [[ " ${present[*]} " == *" q32-tp1 "* && " ${present[*]} " == *" q32-tp2 "* ]]; then
  echo "== Qwen3-32B TP1 + TP2 fitted together, checked on the layouts it never saw"
  mkdir -p "$work/fit-tp12"
  "$fleetcast" --datasheet-profiles calibrate steps "$work/q32-tp1.json" "$(file_of q32-tp1)" \
    "$work/q32-tp2.json" "$(file_of q32-tp2)" -o "$work/fit-tp12/b300-vllm.json" 2>&1 >/dev/null |
    sed 's/; wrote.*//; s/^/  /'
  for name in q32-tp4 q32-tp8; do
    [[ " ${present[*]} " == *" $name "* ]] || continue
    echo "  $name:"
    FLEETCAST_PROFILE_DIR="$work/fit-tp12" "$fleetcast" calibrate steps "$work/$name.json" "$(file_of "$name")" \
      --json | groups
  done
fi
