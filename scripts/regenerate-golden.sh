#!/usr/bin/env bash
# Rewrites tests/golden/reports/ from the golden scenarios (tests/golden/scenarios.txt) with the built
# fleetcast, volatile fields trimmed. Run it when a change of the model is intended and review the diff in the
# commit: the golden_reports test compares against these files. With the datasheet profiles (--datasheet-profiles),
# as the test runs them: a refit serving profile does not move the goldens.
# usage: scripts/regenerate-golden.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cmake --build "$build" --target fleetcast golden_json
bin=$(find "$build" -type f -name fleetcast -perm -u+x | head -1)
tool=$(find "$build" -type f -name golden_json -perm -u+x | head -1)
golden=$root/tests/golden
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
while read -r name; do
  case "$name" in '' | '#'*) continue ;; esac
  "$bin" --datasheet-profiles simulate "$golden/scenarios/$name.json" -o "$tmp" --quiet
  "$tool" trim "$tmp" "$golden/reports/$name.json"
  echo "wrote tests/golden/reports/$name.json"
done <"$golden/scenarios.txt"
