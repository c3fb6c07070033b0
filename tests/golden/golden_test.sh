#!/usr/bin/env bash
# Each golden scenario's report, simulated now, against the one kept in reports/ (scripts/regenerate-golden.sh
# writes those): a change in the model shows up here as differing fields. Datasheet profiles (--datasheet-profiles):
# a golden report checks the simulator, and must not move when a serving fit is refreshed.
# usage: golden_test.sh FLEETCAST GOLDEN_JSON GOLDEN_DIR
set -u
bin=$1
tool=$2
dir=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
checked=0
while read -r name; do
  case "$name" in '' | '#'*) continue ;; esac
  if ! "$bin" --datasheet-profiles simulate "$dir/scenarios/$name.json" -o "$work/$name.json" --quiet; then
    echo "FAILED: $name: the simulation failed"
    failed=$((failed + 1))
    continue
  fi
  if [ ! -f "$dir/reports/$name.json" ]; then
    echo "FAILED: $name: no golden report; run scripts/regenerate-golden.sh"
    failed=$((failed + 1))
    continue
  fi
  if "$tool" compare "$dir/reports/$name.json" "$work/$name.json"; then
    checked=$((checked + 1))
  else
    echo "FAILED: $name differs from its golden report (intended? run scripts/regenerate-golden.sh, review the diff)"
    failed=$((failed + 1))
  fi
done <"$dir/scenarios.txt"
echo "$checked golden reports match, $failed differ"
[ "$failed" -eq 0 ] && [ "$checked" -gt 0 ]
