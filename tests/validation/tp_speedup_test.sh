#!/usr/bin/env bash
# scripts/tp-speedup.py on a hand-made report: one cell of TP1 and TP4 rows at 4 clients, measured TPOT 20 -> 10 ms
# (speedup 2.0), predicted 18 -> 12 ms (1.5): |1.5 / 2.0 - 1| = 25%. A 64-client row, an attention-DP row and a row
# without a prediction stay out. A missing report exits 2.
set -euo pipefail
script=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/rows.csv" <<'CSV'
id,mode,tp_size,attention_dp_size
a,agg,1,
b,agg,4,
c,agg,4,
d,agg,8,4
e,agg,8,
CSV
cat >"$dir/report.json" <<'JSON'
{"rows": [
 {"id": "a", "group": "m | h | r | agg", "isl": 1024, "osl": 1024, "concurrency": 4, "measured_tpot_ms": 20, "predicted_tpot_ms": 18},
 {"id": "b", "group": "m | h | r | agg", "isl": 1024, "osl": 1024, "concurrency": 4, "measured_tpot_ms": 10, "predicted_tpot_ms": 12},
 {"id": "c", "group": "m | h | r | agg", "isl": 1024, "osl": 1024, "concurrency": 64, "measured_tpot_ms": 30, "predicted_tpot_ms": 9},
 {"id": "d", "group": "m | h | r | agg", "isl": 1024, "osl": 1024, "concurrency": 4, "measured_tpot_ms": 5, "predicted_tpot_ms": 1},
 {"id": "e", "group": "m | h | r | agg", "isl": 1024, "osl": 1024, "concurrency": 4, "measured_tpot_ms": 5, "predicted_tpot_ms": null}
]}
JSON
out=$(python3 "$script" "$dir/report.json" --silicon "$dir/rows.csv")
echo "$out"
grep -q "tp1->4 2.00/1.50" <<<"$out"
grep -q "^1 speedups .*median 25.0%" <<<"$out"
if python3 "$script" "$dir/missing.json" --silicon "$dir/rows.csv" 2>/dev/null; then exit 1; else [ $? -eq 2 ]; fi
echo ok
