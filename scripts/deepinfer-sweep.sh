#!/usr/bin/env bash
# DeepInfer's launch sweeps (../shared/REFERENCE.md section 1) on the shipped scenarios deepinfer-decode-gb200
# and deepinfer-prefill-gb200, as `run_sweep.sh decode ce-128k 131072 3 0.75` and `run_sweep.sh prefill
# pe-128k 131072` run them: decode over requests per DP rank, prefill over tokens per GPU per step, both at
# 131,072 tokens of context. Writes sweeps/<tag>/results.jsonl (one `fleetcast step --json` object per point,
# in point order) and prints predicted against read-off figures. The `fleetcast sweep` command will take this
# over. Usage: scripts/deepinfer-sweep.sh [OUT_DIR]   (default: sweeps; FLEETCAST=path to the binary)
set -euo pipefail
cd "$(dirname "$0")/.."
fleetcast=${FLEETCAST:-build/cli/fleetcast}
out=${1:-sweeps}
context=131072

# point tag read-off-throughput read-off-latency: one sweep point as a JSON line and a table row.
run_point() {
  local kind=$1 tag=$2 point=$3 read_tput=$4 read_lat=$5 tmp
  tmp=$(mktemp)
  if [ "$kind" = decode ]; then
    "$fleetcast" step deepinfer-decode-gb200 --decode "$point" --context "$context" --json >"$tmp"
  else
    "$fleetcast" step deepinfer-prefill-gb200 --prefill "$point" --prompt "$context" --json >"$tmp"
  fi
  # `--json` is indented JSON without newlines inside strings: one line of it is one JSON Lines record.
  tr -d '\n' <"$tmp" | tr -s ' ' >>"$out/$tag/results.jsonl.tmp"
  echo >>"$out/$tag/results.jsonl.tmp"
  awk -v kind="$kind" -v point="$point" -v rt="$read_tput" -v rl="$read_lat" '
    /"output_tokens_per_s_per_gpu"|"input_tokens_per_s_per_gpu"/ { gsub(/[",]/, ""); tput = $2 }
    /"tokens_per_s_per_user"/ { gsub(/[",]/, ""); lat = $2 }
    /"mean_step_s"/ { gsub(/[",]/, ""); lat = 1000 * $2 }
    END {
      printf "%-8s %8d %12.0f %12.0f %+7.1f%% %12.1f %12.1f %+7.1f%%\n", kind, point, tput, rt,
             100 * (tput - rt) / rt, lat, rl, 100 * (lat - rl) / rl
    }' "$tmp"
  rm -f "$tmp"
}

sweep() {
  local kind=$1 tag=$2
  shift 2
  mkdir -p "$out/$tag"
  rm -f "$out/$tag/results.jsonl.tmp"
  while [ $# -gt 0 ]; do
    run_point "$kind" "$tag" "$1" "$2" "$3"
    shift 3
  done
  mv "$out/$tag/results.jsonl.tmp" "$out/$tag/results.jsonl"
}

printf "%-8s %8s %12s %12s %8s %12s %12s %8s\n" chart point predicted read-off error predicted read-off error
printf "%-8s %8s %25s %8s %25s\n" "" "" "tokens/s per GPU" "" "tok/s/user or ms/step"
# Read-offs (REFERENCE.md section 1): requests per rank -> output tok/s/GPU, tok/s/user;
# tokens per GPU per step -> input tok/s/GPU, ms per step.
sweep decode ce-128k 8 2600 325 64 15500 248 256 26000 103
sweep prefill pe-128k 4096 60000 68 16384 81000 200 65536 89000 730
echo "wrote $out/ce-128k/results.jsonl and $out/pe-128k/results.jsonl"
