#!/usr/bin/env bash
# Planner speed: simulated configurations per minute on the bench-plan preset (1,026 configurations, none pruned:
# loose SLOs, a low rate, no budget beyond 8 GPUs). Goal (issue 7): 1,000 simulated configurations in under
# 5 minutes on 2 cores. Prints figures; asserts nothing about wall time.
# usage: scripts/bench-plan.sh [FLEETCAST] [JOBS] [NUM_REQUESTS]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
fleetcast="${1:-$here/build/cli/fleetcast}"
jobs="${2:-2}"
requests="${3:-}"
plan="$here/specs/presets/plans/bench-plan.json"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [[ -n "$requests" ]]; then
  python3 - "$plan" "$tmp/bench-plan.json" "$requests" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["simulation"]["num_requests"] = int(sys.argv[3])
json.dump(p, open(sys.argv[2], "w"))
PY
  plan="$tmp/bench-plan.json"
fi
start=$(date +%s.%N)
"$fleetcast" plan "$plan" -j "$jobs" --rows 5 -o "$tmp/plan.json"
end=$(date +%s.%N)
echo "wall (prune + simulate + output): $(python3 -c "print(f'{$end - $start:.1f}')") s, $jobs workers, $(nproc) cores"
