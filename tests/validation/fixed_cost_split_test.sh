#!/usr/bin/env bash
# scripts/fixed-cost-split.py on hand-made reports: ten rows whose measured TPOT is exactly 1 x streaming + 0.5 x the
# kernel latency + 2 x the collective latency + 0 x the host time per step, the parts in varied proportions. The L1
# fit must find those factors and no error left; the profile as is (factors 1) is off by the median of
# |K/2 - A + O| / measured. A row missing from one variant report is left out; a missing report exits 2.
set -euo pipefail
script=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import json, statistics, sys
d = sys.argv[1]
parts = [(4, 2, 1, 1), (6, 1, 2, 1), (3, 3, 1, 2), (8, 2, 2, 1), (5, 1, 1, 1),
         (2, 2, 2, 2), (7, 3, 1, 1), (4, 1, 3, 2), (9, 2, 1, 3), (5, 2, 2, 2)]
reports = {v: [] for v in ("base", "no_kernel", "no_collective", "no_step")}
for i, (s, k, a, o) in enumerate(parts):
    t = s + k + a + o
    measured = s + 0.5 * k + 2.0 * a
    for v, pred in (("base", t), ("no_kernel", t - k), ("no_collective", t - a), ("no_step", t - o)):
        reports[v].append({"id": f"r{i}", "group": "m | h | r | agg", "predicted": True, "concurrency": 4,
                           "measured_tpot_ms": measured, "predicted_tpot_ms": pred})
reports["base"].append({"id": "lone", "group": "m | h | r | agg", "predicted": True, "concurrency": 4,
                        "measured_tpot_ms": 1.0, "predicted_tpot_ms": 9.0})
for v, rows in reports.items():
    json.dump({"rows": rows}, open(f"{d}/{v}.json", "w"))
# As is, each row is off by (K/2 - A + O) / measured; their median, as the split prints it:
median = statistics.median(abs(k / 2 - a + o) / (s + k / 2 + 2 * a) for s, k, a, o in parts)
open(f"{d}/expected.txt", "w").write("%.1f%%" % (100 * median))
PY
out=$(python3 "$script" "$dir"/{base,no_kernel,no_collective,no_step}.json)
echo "$out"
grep -q "^10 rows" <<<"$out"
grep -Eq "^all +10 .* 1\.00  0\.50  2\.00  0\.00 +[0-9.]+% ->   0\.0%" <<<"$out"
expected=$(cat "$dir/expected.txt")
grep -Eq "^all +10 .* +$expected ->   0\.0%" <<<"$out"
if python3 "$script" "$dir/base.json" "$dir/missing.json" "$dir/no_collective.json" "$dir/no_step.json" \
  2>/dev/null; then
  exit 1
else
  [ $? -eq 2 ]
fi
echo ok
