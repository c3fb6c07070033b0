#!/usr/bin/env bash
# `fleetcast sweep` end to end: a grid writes one line per point, sorted, with the chart; running it again runs
# nothing and leaves the same bytes; --progress json; bad input exits 2 before any point runs; DeepInfer's decode
# sweep gives `fleetcast step`'s figures.
# usage: sweep_test.sh FLEETCAST FIXTURES
set -u
bin=$1
fixtures=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
check() { if eval "$2"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $1"; fi; }

"$bin" sweep grid "$fixtures/good.json" g --set seed=1,2 --set deployment.scheduler.max_num_seqs=8,16 \
  --out "$work" -j 2 --progress json >"$work/stdout" 2>"$work/stderr"
check "a grid sweep exits 0" "[ $? -eq 0 ]"
check "4 lines in results.jsonl" "[ $(wc -l <"$work/g/results.jsonl") -eq 4 ]"
order=$(grep -o '"point":[0-9]*' "$work/g/results.jsonl" | cut -d: -f2 | tr '\n' ' ')
check "sorted by point ($order)" "[ '$order' = '0 1 2 3 ' ]"
check "every line has a benchmark record" "[ $(grep -c '\"benchmark_record\":{' "$work/g/results.jsonl") -eq 4 ]"
check "the last progress line says 4 of 4" "tail -1 \"$work/stderr\" | grep -q '\"done\": 4, \"total\": 4'"
check "a Pareto SVG" "grep -q '<svg' \"$work/g/pareto.svg\""
cp "$work/g/results.jsonl" "$work/first.jsonl"
"$bin" sweep grid "$fixtures/good.json" g --set seed=1,2 --set deployment.scheduler.max_num_seqs=8,16 \
  --out "$work" >"$work/stdout2"
check "a second run finds every point finished" "grep -q '4 points: 0 run now, 4 found finished' \"$work/stdout2\""
check "and leaves the same bytes" "cmp -s \"$work/first.jsonl\" \"$work/g/results.jsonl\""
"$bin" sweep grid "$fixtures/good.json" g --set seed=3 --out "$work" >/dev/null 2>&1
check "another sweep under the same tag exits 2" "[ $? -eq 2 ]"
"$bin" sweep grid "$fixtures/good.json" h --set deploymnet.replica.tp=1,2 --out "$work" >/dev/null 2>"$work/err"
check "a misspelt field exits 2" "[ $? -eq 2 ] && grep -q deploymnet \"$work/err\""
check "and runs no point" "[ ! -e \"$work/h\" ]"
"$bin" sweep grid "$fixtures/good.json" h --set deployment.replica.tp=1,3 --out "$work" >/dev/null 2>&1
check "a value the spec refuses exits 2" "[ $? -eq 2 ]"
"$bin" sweep decode ../bad 131072 3 0.75 --out "$work" >/dev/null 2>&1
check "a tag that is a path exits 2" "[ $? -eq 2 ]"

"$bin" sweep decode d 131072 3 0.75 --points 64 --out "$work" >/dev/null
check "a decode sweep exits 0" "[ $? -eq 0 ]"
step=$("$bin" step deepinfer-decode-gb200 --decode 64 --context 131072 --json |
  sed -n 's/^    "output_tokens_per_s_per_gpu": \([^,]*\),*$/\1/p')
sweep=$(grep -o '"steady_state":{.*' "$work/d/results.jsonl" | grep -o '"output_tokens_per_s_per_gpu":[0-9.e+-]*' |
  cut -d: -f2)
check "its point is \`fleetcast step\`'s ($sweep = $step)" "awk -v a=\"$sweep\" -v b=\"$step\" 'BEGIN {exit !(a == b && a > 0)}'"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
