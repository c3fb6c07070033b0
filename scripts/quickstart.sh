#!/usr/bin/env bash
# First command of the quick start: install what is missing, build, and run the default forecast
# (DeepSeek-V4.1-Flash on two 8x B200 nodes, chat traffic at two thirds of capacity, B200 at $3.75/GPU-hour).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
mkdir -p out
./build/cli/fleetcast simulate default -o out/default-report.json
echo "full report: out/default-report.json"
