#!/usr/bin/env bash
# Regenerates docs/VALIDATION.md: predicted against measured mean TTFT and TPOT on the silicon development set
# (../shared/validation/silicon-dev.csv) with the shipped profiles, on the held-out rows (the fifth of the rows,
# by id hash, that `fleetcast calibrate serving` never fits) and on all rows, and the same with the datasheet-derived
# profiles alone (no serving fit); and the held-out error table every
# forecast quotes, calibration/profiles/accuracy/held-out.json; and the table a forecast on a GPU without a fit quotes,
# calibration/profiles/accuracy/unfitted-gpus.json (every fitted GPU's runs scored with the pick it would get without
# its fit); the TP speedup at a few clients, measured against predicted (scripts/tp-speedup.py); and the fitted
# profiles' fixed costs against the held-out rows' TPOT (scripts/fixed-cost-split.sh).
# usage: scripts/validation-report.sh [BUILD_DIR] [JOBS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
jobs=${2:-2}
csv=$root/../shared/validation/silicon-dev.csv
[ -f "$csv" ] || { echo "no $csv: ../shared is not checked out" >&2; exit 2; }
bin=$build/cli/fleetcast
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The held-out error of every profile in use, by default (the fits) and with the datasheet profiles, into the table
# forecasts quote (calibration/profiles/accuracy/held-out.json, measured_accuracy.hpp).
"$bin" validate --silicon "$csv" --split held-out --summary-only -j "$jobs" --markdown "$tmp/held.md" \
  --accuracy "$tmp/accuracy.json" >/dev/null
"$bin" --datasheet-profiles validate --silicon "$csv" --split held-out --summary-only -j "$jobs" \
  --markdown "$tmp/held-datasheet.md" --accuracy "$tmp/accuracy.json" >/dev/null
"$bin" --datasheet-profiles validate --silicon "$csv" --summary-only -j "$jobs" --markdown "$tmp/all-datasheet.md" \
  --json "$tmp/all-datasheet.json" >/dev/null
# Every row of every GPU with the profile it would take without a fit of its own (unfitted_gpu_accuracy.hpp).
"$bin" --unfitted-profiles validate --silicon "$csv" --summary-only -j "$jobs" --accuracy "$tmp/unfitted.json" >/dev/null
"$bin" validate --silicon "$csv" --summary-only -j "$jobs" --decompose --markdown "$tmp/all.md" --json "$tmp/all.json" \
  >/dev/null
# The fitted profiles' fixed costs against the held-out rows' measured TPOT (scripts/fixed-cost-split.sh, 4 runs).
bash "$root/scripts/fixed-cost-split.sh" "$build" "$tmp/split" -- --silicon "$csv" --split held-out -j "$jobs" \
  >"$tmp/split.txt" 2>/dev/null
python3 "$root/scripts/fixed-cost-split.py" "$tmp/split"/{base,no_kernel,no_collective,no_step}.json --max-clients 8 \
  >"$tmp/split-few.txt"
{
  echo "# Validation against measured serving runs (generated)"
  echo
  echo "Written by \`scripts/validation-report.sh\` on $(date -u +%Y-%m-%d) at commit $(git -C "$root" rev-parse --short HEAD)."
  echo "Absolute percentage error of the mean TTFT and TPOT per row, median and 90th percentile per group; the"
  echo "fitted serving profiles of calibration/profiles/serving/ (the default) where they exist, else datasheet ones."
  echo
  echo "## Held-out rows (never fitted)"
  echo
  echo "\`fleetcast validate --silicon ../shared/validation/silicon-dev.csv --split held-out\`"
  echo
  cat "$tmp/held.md"
  echo
  echo "## All rows"
  echo
  echo "\`fleetcast validate --silicon ../shared/validation/silicon-dev.csv\`"
  echo
  cat "$tmp/all.md"
  echo
  echo "## Runs whose measured rate needs more prompt compute than the GPUs' best GEMM"
  echo
  echo "\`prompt_compute_share\` of \`fleetcast validate --json\` (simulator/validation/src/prompt_compute.cpp): the prompt"
  echo "FLOP/s a closed-loop row's measured rate needs (matmul parameters only) over its GPUs' best kernel-level GEMM"
  echo "rate. Above 1 the run cannot have prefilled every prompt in full (prefix-cache hits, or shorter prompts than the"
  echo "row says), whatever a model predicts; the highest five rows:"
  echo
  echo '```'
  python3 - "$tmp/all.json" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r.get("prompt_compute_share") is not None]
rows.sort(key=lambda r: -r["prompt_compute_share"])
print(f"{sum(r['prompt_compute_share'] > 1 for r in rows)} of {len(rows)} closed-loop rows past 1")
for r in rows[:5]:
    print(f"{r['prompt_compute_share']:5.2f}  {r['id']}")
PY
  echo '```'
  echo
  echo "## Runs with far fewer clients decoding at a time than simulated"
  echo
  echo "Little's law on each closed-loop row's means, C x D / (TTFT + D) with D = (osl - 1) x TPOT, measured against"
  echo "predicted (\`measured_decoding_clients\`, \`predicted_decoding_clients\` of \`fleetcast validate --json\`): under half,"
  echo "the run held requests back in a way the row does not state (a client's connection limit, a lower max_num_seqs, less"
  echo "KV cache)."
  echo
  echo '```'
  python3 - "$tmp/all.json" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"]
        if r.get("measured_decoding_clients") and r.get("predicted_decoding_clients")
        and r["measured_decoding_clients"] < 0.5 * r["predicted_decoding_clients"]]
print(f"{len(rows)} rows")
for r in rows:
    print(f"{r['measured_decoding_clients']:6.0f} of {r['concurrency']:4d} (simulated {r['predicted_decoding_clients']:4.0f})  {r['id']}")
PY
  echo '```'
  echo
  echo "## Datasheet-derived profiles (no serving fit)"
  echo
  echo "The kernel-level figures alone (calibration/profiles/*.json), what a GPU or runtime without measured runs would"
  echo "get before the carried host costs: \`fleetcast --datasheet-profiles validate --silicon"
  echo "../shared/validation/silicon-dev.csv [--split held-out]\`."
  echo
  echo "### Held-out rows"
  echo
  cat "$tmp/held-datasheet.md"
  echo
  echo "### All rows"
  echo
  cat "$tmp/all-datasheet.md"
  echo
  echo "## TP speedup at a few clients"
  echo
  echo "\`scripts/tp-speedup.py REPORT.json\` on the all-rows reports: per group, TPOT(smallest TP) / TPOT(TP k) over rows"
  echo "of 8 clients or fewer that differ only in TP, measured / predicted (medians): what tensor parallelism buys at"
  echo "low load, apart from a profile's overall level (docs/ACCURACY.md, \"The TP all-reduce's latency\")."
  echo
  echo "### Fitted profiles (the default)"
  echo
  echo '```'
  python3 "$root/scripts/tp-speedup.py" "$tmp/all.json" --silicon "$csv"
  echo '```'
  echo
  echo "### Datasheet-derived profiles"
  echo
  echo '```'
  python3 "$root/scripts/tp-speedup.py" "$tmp/all-datasheet.json" --silicon "$csv"
  echo '```'
  echo
  echo "## Fixed costs against measured TPOT (fitted profiles, held-out rows)"
  echo
  echo "\`bash scripts/fixed-cost-split.sh BUILD OUT -- --silicon ../shared/validation/silicon-dev.csv --split held-out\`:"
  echo "each row's predicted TPOT split into streaming and compute (S), kernel latency (K), collective-call latency (A)"
  echo "and host time per step (O), with the non-negative factors on them nearest the measured TPOT (an L1 fit) per"
  echo "group, runtime and overall (docs/ACCURACY.md, \"The step model's fixed costs\"). Within one group the per-kernel and"
  echo "per-step costs are nearly proportional, so its factors say how far a refactoring could go, not what each cost is."
  echo
  echo '```'
  cat "$tmp/split.txt"
  echo
  cat "$tmp/split-few.txt"
  echo '```'
} >"$tmp/VALIDATION.md"
mv "$tmp/VALIDATION.md" "$root/docs/VALIDATION.md"
mkdir -p "$root/calibration/profiles/accuracy"
mv "$tmp/accuracy.json" "$root/calibration/profiles/accuracy/held-out.json"
mv "$tmp/unfitted.json" "$root/calibration/profiles/accuracy/unfitted-gpus.json"
echo "wrote docs/VALIDATION.md, calibration/profiles/accuracy/held-out.json and unfitted-gpus.json (rebuild to compile" \
  "them in)"
