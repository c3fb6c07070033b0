#!/usr/bin/env bash
# Refits the shipped serving profiles (calibration/profiles/serving/<hardware>-<runtime>.json) to the silicon
# development set with `fleetcast calibrate serving`, each from the datasheet profile, 24 training rows per pair, the
# held-out fifth (by id hash) never fitted, without the experts' efficiency (--no-experts: docs/ACCURACY.md, "The
# experts' kernel efficiency by weight format"). Prints each pair's error before and after; review the diff, then
# rerun scripts/validation-report.sh for the full simulations of the held-out rows.
# usage: scripts/refit-serving-profiles.sh [BUILD_DIR] [PAIR...]   (PAIR: hardware-runtime, default: those shipped)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
shift || true
cd "$root"  # the profiles' sources name the file as ../shared/validation/silicon-dev.csv
csv=../shared/validation/silicon-dev.csv
[ -f "$csv" ] || { echo "no $csv: ../shared is not checked out" >&2; exit 2; }
out=$root/calibration/profiles/serving
pairs=("$@")
if [ ${#pairs[@]} -eq 0 ]; then
  for f in "$out"/*.json; do pairs+=("$(basename "$f" .json)"); done
fi
# The pairs whose dense models also get a fit of their own (<pair>-dense.json, `--models dense`): those whose runs
# hold two dense models or more and where, each left out in turn, the dense-only recipe misses them by less than
# the pair's recipe does (docs/ACCURACY.md, "Dense models' own fits"; unseen-models.json holds both records).
dense_pairs=(h100-vllm h200-vllm)
# TensorRT-LLM runs a prompt's iteration eagerly (CUDA graphs for decode-only batches): its pairs also fit the host
# time per kernel launched (--eager-launch), descending from the fit in use as well as from the datasheet profile
# (the lower training cost wins; docs/ACCURACY.md, "Eager prompt iterations"). SGLang's fits do not gain from it.
for pair in "${pairs[@]}"; do
  case "$pair" in *-dense) continue ;; esac  # a dense fit's file: refitted with its pair below
  if [ "${pair#*-}" = trtllm ]; then
    "$build/cli/fleetcast" calibrate serving --silicon "$csv" --hardware "${pair%%-*}" --runtime trtllm \
      --train-rows 24 --no-experts --eager-launch -o "$out"
    continue
  fi
  "$build/cli/fleetcast" --datasheet-profiles calibrate serving --silicon "$csv" --hardware "${pair%%-*}" \
    --runtime "${pair#*-}" --train-rows 24 --no-experts -o "$out"
  for dense in "${dense_pairs[@]}"; do
    [ "$dense" = "$pair" ] || continue
    "$build/cli/fleetcast" --datasheet-profiles calibrate serving --silicon "$csv" --hardware "${pair%%-*}" \
      --runtime "${pair#*-}" --train-rows 24 --no-experts --models dense -o "$out"
  done
done
