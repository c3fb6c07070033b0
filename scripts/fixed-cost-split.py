#!/usr/bin/env python3
"""Which fixed cost of the step model the measured TPOT disagrees with, from four `fleetcast validate --json` reports.

The step model prices a step as streaming and compute (bytes over HBM, FLOPs over the GEMM rates) plus three fixed
costs: a latency per kernel (`op_latency_s`), a latency per collective call (`collective_latency_s`) and host time per
step (`step_overhead_s`). Four validate runs of the same rows, one with the profiles in use and one with each fixed
cost set to zero (scripts/fixed-cost-split.sh writes them), split each row's predicted TPOT T into

    K = T - T(no kernel latency), A = T - T(no collective latency), O = T - T(no host time per step), S = T - K - A - O

(S: streaming and compute; the split is additive to within what the scheduling changes when a cost goes). Per
group, per runtime and over all rows, it prints the median shares and the non-negative factors s, k, a, o for which
s S + k K + a A + o O is nearest the measured TPOT in median relative error (iteratively reweighted least squares,
an L1 fit): k = 0.5 says the rows want half the kernel latency the profile assumes. Within one group (one model) the
per-kernel and per-step costs are nearly proportional, so only the pooled fits over several models separate them.

usage: scripts/fixed-cost-split.py BASE.json NO_KERNEL.json NO_COLLECTIVE.json NO_STEP.json [--max-clients N]
"""
import argparse
import collections
import itertools
import json
import statistics
import sys

PARTS = ("S", "K", "A", "O")


def solve_linear(a, b):
    """Gaussian elimination with partial pivoting; None for a singular system."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-12:
            return None
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def nonnegative_least_squares(x, y, w):
    """min sum w (x.beta - y)^2 over beta >= 0, by trying every set of free coefficients (four at most)."""
    k = len(x[0])
    # The weighted normal equations once; each set of free coefficients solves its own rows and columns of them.
    gram = [[sum(wi * xi[p] * xi[q] for wi, xi in zip(w, x)) for q in range(k)] for p in range(k)]
    rhs = [sum(wi * xi[p] * yi for wi, xi, yi in zip(w, x, y)) for p in range(k)]
    best, best_cost = [0.0] * k, sum(wi * yi * yi for wi, yi in zip(w, y))
    for size in range(1, k + 1):
        for free in itertools.combinations(range(k), size):
            sol = solve_linear([[gram[p][q] for q in free] for p in free], [rhs[p] for p in free])
            if sol is None or min(sol) < 0.0:
                continue
            beta = [0.0] * k
            for p, v in zip(free, sol):
                beta[p] = v
            cost = sum(wi * (sum(c * v for c, v in zip(xi, beta)) - yi) ** 2 for wi, xi, yi in zip(w, x, y))
            if cost < best_cost - 1e-15:
                best, best_cost = beta, cost
    return best


def l1_factors(rows):
    """Non-negative factors on (S, K, A, O) minimising sum |prediction / measured - 1|, by IRLS."""
    x = [[r[p] / r["measured"] for p in PARTS] for r in rows]
    y = [1.0] * len(rows)
    w = [1.0] * len(rows)
    for _ in range(60):
        beta = nonnegative_least_squares(x, y, w)
        residuals = [abs(sum(c * v for c, v in zip(xi, beta)) - 1.0) for xi in x]
        w = [1.0 / max(r, 1e-4) for r in residuals]
    return beta


def median_ape(rows, beta):
    return statistics.median(abs(sum(b * r[p] for b, p in zip(beta, PARTS)) / r["measured"] - 1.0) for r in rows)


def read(path):
    with open(path) as f:
        return {r["id"]: r for r in json.load(f)["rows"] if r.get("predicted") and r.get("predicted_tpot_ms")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("base", "no_kernel", "no_collective", "no_step"):
        ap.add_argument(name, help="a `fleetcast validate --json` report")
    ap.add_argument("--max-clients", type=int, default=0, help="only rows with at most this many clients (0: all)")
    ap.add_argument("--min-rows", type=int, default=8, help="fit a group with at least this many rows (default 8)")
    args = ap.parse_args()
    try:
        reports = [read(p) for p in (args.base, args.no_kernel, args.no_collective, args.no_step)]
    except (OSError, KeyError, TypeError, json.JSONDecodeError) as e:
        print(f"fixed-cost-split: {e}", file=sys.stderr)
        return 2

    rows = []
    for rid, base in reports[0].items():
        if any(rid not in r for r in reports[1:]) or not base.get("measured_tpot_ms"):
            continue
        if args.max_clients and (base.get("concurrency") or 0) > args.max_clients:
            continue
        t = base["predicted_tpot_ms"]
        k, a, o = (t - r[rid]["predicted_tpot_ms"] for r in reports[1:])
        rows.append({"group": base["group"], "measured": base["measured_tpot_ms"], "T": t, "S": t - k - a - o,
                     "K": k, "A": a, "O": o})
    if not rows:
        print("fixed-cost-split: no row is predicted in all four reports", file=sys.stderr)
        return 2

    print(f"{len(rows)} rows" + (f" with at most {args.max_clients} clients" if args.max_clients else ""))
    print(f"{'':44} {'rows':>5}  share of predicted TPOT      factors on the profile's      median TPOT error")
    letters = " ".join(f"{c:>5}" for c in PARTS) + "   " + " ".join(f"{c.lower():>5}" for c in PARTS)
    print(f"{'':44} {'':>5}  {letters}   as is -> refactored")
    pools = [("all rows", lambda r: "all")]
    pools.append(("by runtime", lambda r: r["group"].split(" | ")[2]))
    pools.append(("by group", lambda r: r["group"]))
    for title, key in pools:
        print(f"-- {title}")
        by = collections.defaultdict(list)
        for r in rows:
            by[key(r)].append(r)
        for name, sel in sorted(by.items()):
            if len(sel) < args.min_rows:
                continue
            shares = [statistics.median(r[p] / r["T"] for r in sel) for p in PARTS]
            beta = l1_factors(sel)
            before, after = median_ape(sel, [1.0] * 4), median_ape(sel, beta)
            print(f"{name[:44]:44} {len(sel):5}  " + " ".join(f"{v:5.2f}" for v in shares) + "   " +
                  " ".join(f"{v:5.2f}" for v in beta) + f"   {100 * before:5.1f}% -> {100 * after:5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
