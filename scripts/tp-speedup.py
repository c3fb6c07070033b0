#!/usr/bin/env python3
"""TP speedup at low concurrency, measured against predicted, from a `fleetcast validate --json` report.

A row's TPOT at a few clients is mostly one decode step, so within a (model, system, backend, isl, osl, clients)
cell the ratio TPOT(smallest TP) / TPOT(TP k) is the speedup that tensor parallelism buys there: weight reads shrink
as 1/k, the per-step all-reduces and fixed costs do not. Comparing the measured and predicted speedups checks the
step model's TP-dependent costs apart from its overall level (a profile too fast or too slow everywhere cancels).

usage: scripts/tp-speedup.py REPORT.json [--silicon ../shared/validation/silicon-dev.csv] [--max-clients 8]
"""
import argparse
import collections
import csv
import json
import statistics
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", help="a `fleetcast validate --silicon FILE --json OUT` report")
    ap.add_argument("--silicon", default="../shared/validation/silicon-dev.csv", help="the CSV the report was made from")
    ap.add_argument("--max-clients", type=int, default=8, help="rows with at most this many clients (default 8)")
    args = ap.parse_args()
    try:
        with open(args.silicon, newline="") as f:
            layout = {r["id"]: r for r in csv.DictReader(f)}
        with open(args.report) as f:
            rows = json.load(f)["rows"]
    except (OSError, KeyError, json.JSONDecodeError) as e:
        print(f"tp-speedup: {e}", file=sys.stderr)
        return 2

    cells = collections.defaultdict(dict)  # (group, isl, osl, clients) -> tp -> (measured, predicted) TPOT
    for r in rows:
        m = layout.get(r["id"])
        if m is None or r.get("predicted_tpot_ms") is None or m["mode"] != "agg":
            continue
        if (r.get("concurrency") or args.max_clients + 1) > args.max_clients:
            continue
        if m["attention_dp_size"] not in ("", "0", "1"):
            continue  # attention DP splits the batch: not the same step
        tp = int(m["tp_size"] or 1)
        cells[(r["group"], r["isl"], r["osl"], r["concurrency"])][tp] = (r["measured_tpot_ms"], r["predicted_tpot_ms"])

    speedups = collections.defaultdict(lambda: collections.defaultdict(list))  # group -> (tp0, tp) -> [(meas, pred)]
    for (group, _, _, _), by_tp in cells.items():
        tp0 = min(by_tp)
        for tp, (measured, predicted) in by_tp.items():
            if tp != tp0:
                speedups[group][(tp0, tp)].append((by_tp[tp0][0] / measured, by_tp[tp0][1] / predicted))

    errors = []
    for group, pairs in sorted(speedups.items()):
        parts = []
        for (tp0, tp), values in sorted(pairs.items()):
            meas = statistics.median(v[0] for v in values)
            pred = statistics.median(v[1] for v in values)
            parts.append(f"tp{tp0}->{tp} {meas:.2f}/{pred:.2f}")
            errors += [abs(p / m - 1.0) for m, p in values]
        print(f"{group:44s} {'  '.join(parts)}")
    if not errors:
        print("no cell with two TP sizes")
        return 0
    errors.sort()
    print(f"{len(errors)} speedups (measured/predicted above); |predicted / measured - 1|: median "
          f"{100 * statistics.median(errors):.1f}%, p90 {100 * errors[int(0.9 * len(errors))]:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
