#!/usr/bin/env bash
# Rewrites calibration/profiles/<hardware>.json, the datasheet-derived profile of every hardware preset,
# from the figures in calibration/src/datasheet_profile.cpp. Run after changing those figures; review the diff.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/cli/fleetcast
for hw in $("$bin" presets hardware | awk 'NR > 1 {print $1}'); do
  tmp=$(mktemp)
  "$bin" calibrate datasheet "$hw" >"$tmp"
  mv "$tmp" "calibration/profiles/$hw.json"
  echo "calibration/profiles/$hw.json"
done
