#!/usr/bin/env bash
# Refits the shipped serving profiles (calibration/profiles/serving/<hardware>-<runtime>[-dense].json) to the silicon
# development set with `fleetcast calibrate serving`, each with the recipe its shipped file was made with (below), 24
# training rows per pair, the held-out fifth (by id hash) never fitted. Prints each fit's error before and after
# (fast replay); the fit is written over the shipped file. Then judge it on the training rows it serves under full
# simulation (`fleetcast validate --silicon ... --split train --json F`, `scripts/served-error.py F HW RT [moe|dense]`,
# docs/ACCURACY.md, "fits chosen on the training rows they serve"), keep it only where that sum falls, and rerun
# scripts/validation-report.sh for the held-out tables.
# usage: scripts/refit-serving-profiles.sh [BUILD_DIR] [FIT...]   (FIT: a file's name without .json; default: all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
shift || true
cd "$root"  # the profiles' sources name the file as ../shared/validation/silicon-dev.csv
csv=../shared/validation/silicon-dev.csv
[ -f "$csv" ] || { echo "no $csv: ../shared is not checked out" >&2; exit 2; }
out=$root/calibration/profiles/serving
# The recipe each shipped file was made with, as its `sources` say. TensorRT-LLM's pairs also fit the host time per
# kernel of an eager prompt iteration (--eager-launch); a -dense file is the pair's fit for dense models alone
# (--models dense), which serves them where it lowered their training rows' error. h200-sglang is the 7a0ed51 fit
# (made when fixed lengths were the default) with its measured prompt ratio written in: no one command remakes it,
# and a refit under this recipe was worse.
declare -A recipe=(
  [b200-sglang]="--fixed-lengths --no-experts"
  [b200-trtllm]="--bounded --no-experts --eager-launch --prompt-slowdown"
  [b200-vllm]="--bounded --no-experts --prompt-slowdown"
  [b300-sglang]="--bounded --refine"
  [b300-vllm]="--bounded --refine"
  [h100-sglang]="--fixed-lengths --no-experts"
  [h100-trtllm]="--fixed-lengths --no-experts --eager-launch"
  [h100-vllm]="--bounded --no-experts --prompt-slowdown"
  [h100-vllm-dense]="--fixed-lengths --no-experts --models dense"
  [h200-sglang]="--fixed-lengths --no-experts"
  [h200-trtllm]="--bounded --refine --eager-launch"
  [h200-trtllm-dense]="--bounded --no-experts --eager-launch --models dense"
  [h200-vllm]="--bounded --no-experts --prompt-slowdown"
  [h200-vllm-dense]="--bounded --no-experts --prompt-slowdown --models dense"
)
fits=("$@")
if [ ${#fits[@]} -eq 0 ]; then
  for f in "$out"/*.json; do fits+=("$(basename "$f" .json)"); done
fi
for fit in "${fits[@]}"; do
  [ -n "${recipe[$fit]+x}" ] || { echo "no recipe for $fit: add it to $0" >&2; exit 2; }
  pair=${fit%-dense}
  # shellcheck disable=SC2086  # the recipe is a list of flags
  "$build/cli/fleetcast" calibrate serving --silicon "$csv" --hardware "${pair%%-*}" --runtime "${pair#*-}" \
    --train-rows 24 ${recipe[$fit]} -o "$out"
done
