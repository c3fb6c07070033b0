#!/usr/bin/env bash
# `fleetcast step`: the breakdown adds up to the total, decode-only steps have no prefill time, bad input exits 2.
# usage: step_test.sh FLEETCAST
set -u
bin=$1
passed=0
failed=0
check() { if eval "$2"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $1"; fi; }

out=$("$bin" step default --decode 16 --context 2048 --json)
check "step --json exits 0" "[ $? -eq 0 ]"
total=$(echo "$out" | sed -n 's/^  "total_s": \(.*\),$/\1/p')
prefill=$(echo "$out" | sed -n 's/^  "prefill_s": \(.*\),$/\1/p')
close=$(echo "$out" | awk -v total="$total" '/"time_s":/ {sum += $2} END {d = sum - total; print (d * d < 1e-18) ? "yes" : "no"}')
check "ops add up to the total" "[ $close = yes ]"
check "a decode-only step has no prefill time ($prefill)" "[ \"$prefill\" = \"0.0\" ]"
"$bin" step default --decode many >/dev/null 2>&1
check "a bad count exits 2" "[ $? -eq 2 ]"
"$bin" step default >/dev/null 2>&1
check "no batch exits 2" "[ $? -eq 2 ]"
"$bin" step default --prefill 4096 | grep -q "tp_allreduce"
check "the table lists the TP all-reduce of a TP8 replica" "[ $? -eq 0 ]"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
