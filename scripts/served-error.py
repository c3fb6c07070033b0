#!/usr/bin/env python3
"""The error a serving fit makes on the rows it serves: median TTFT APE + median TPOT APE, in percent.

usage: scripts/served-error.py VALIDATE.json HARDWARE RUNTIME [all|moe|dense]

VALIDATE.json is `fleetcast validate --silicon ... --split train --json F` (full simulations). A pair that ships a
fit for dense models alone (`<hw>-<runtime>-dense.json`) serves only its MoE rows with the pair's fit: give `moe`
for it and `dense` for the dense fit. Fits are compared by this sum on the training split (docs/ACCURACY.md,
"Fits chosen on the training rows they serve").
"""
import functools
import json
import os
import statistics
import sys

PRESETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "specs", "presets", "models")


@functools.cache
def is_dense(model):
    """A model preset without routed experts (its `moe` is null), as the fits' dense/MoE split reads it."""
    with open(os.path.join(PRESETS, model + ".json")) as f:
        return json.load(f).get("moe") is None


def main(argv):
    if len(argv) not in (4, 5) or (len(argv) == 5 and argv[4] not in ("all", "moe", "dense")):
        sys.exit(__doc__)
    report, hardware, runtime = argv[1], argv[2], argv[3]
    kind = argv[4] if len(argv) == 5 else "all"
    ttft, tpot = [], []
    for row in json.load(open(report))["rows"]:
        if not row["predicted"]:
            continue
        model, system, backend = (p.strip() for p in row["group"].split("|")[:3])
        if system != hardware or backend != runtime:
            continue
        dense = is_dense(model)
        if (kind == "moe" and dense) or (kind == "dense" and not dense):
            continue
        ttft.append(100 * row["ttft_ape"])
        tpot.append(100 * row["tpot_ape"])
    if not ttft:
        sys.exit(f"{report}: no predicted {kind} rows of {hardware} {runtime}")
    a, b = statistics.median(ttft), statistics.median(tpot)
    print(f"{hardware} {runtime} {kind}: {len(ttft)} rows, TTFT {a:.1f}% + TPOT {b:.1f}% = {a + b:.1f}")


if __name__ == "__main__":
    main(sys.argv)
