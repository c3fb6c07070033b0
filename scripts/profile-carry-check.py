#!/usr/bin/env python3
"""What a GPU or a model without a fit of its own gets, on the development set (docs/ACCURACY.md, "What a forecast
of a model outside the development set can expect").

Builds two FLEETCAST_PROFILE_DIRs and validates every row with each (full simulations, about 4 min each on 2 cores):

  sibling    each fitted (GPU, runtime) takes the fit of the GPU with the same die (H100 <-> H200, B200 <-> B300)
             under that runtime, relabelled: what a GPU without a fit would get from its sibling's.
  datasheet  each fitted pair takes the pick a GPU without a fit gets, its own fit left out (`fleetcast
             --unfitted-profiles`, calibration::profile_without_own_fit: the datasheet profile with the figures the
             other GPUs' fits of the runtime carry).

Then prints, per (GPU, runtime, model), the median APE of TTFT and TPOT under each, and compares the datasheet pick
with the leave-one-model-out refits of calibration/profiles/accuracy/unseen-models.json. The sibling directory's
profiles are kind "measured", so they win over the shipped fits.

usage: scripts/profile-carry-check.py [BUILD_DIR] [WORK_DIR]
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
WORK = sys.argv[2] if len(sys.argv) > 2 else "/tmp/fleetcast-carry"
BIN = os.path.join(BUILD, "cli", "fleetcast")
SILICON = os.path.join(ROOT, "..", "shared", "validation", "silicon-dev.csv")
SIBLING = {"h100": "h200", "h200": "h100", "b200": "b300", "b300": "b200"}
def shipped_fits():
    folder = os.path.join(ROOT, "calibration", "profiles", "serving")
    fits = {}
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as f:
            p = json.load(f)
        fits[(p["hardware"], p["runtime"])] = p
    return fits


def write_dir(fits):
    """Writes the sibling directory; returns the (GPU, runtime) pairs that took a sibling's fit."""
    os.makedirs(os.path.join(WORK, "sibling"), exist_ok=True)
    relabelled = set()
    for (hw, rt) in fits:
        if (SIBLING.get(hw), rt) in fits:
            relabelled.add((hw, rt))
            p = dict(fits[(SIBLING[hw], rt)], hardware=hw, kind="measured")
            with open(os.path.join(WORK, "sibling", "%s-%s.json" % (hw, rt)), "w") as f:
                json.dump(p, f, indent=2)
    return relabelled


def validate(variant):
    out = os.path.join(WORK, variant + ".json")
    env = dict(os.environ, FLEETCAST_PROFILE_DIR=os.path.join(WORK, variant))
    if variant == "datasheet":
        env = dict(os.environ, FLEETCAST_PROFILES="unfitted")
    subprocess.check_call([BIN, "validate", "--silicon", SILICON, "-j", "2", "--summary-only", "--json", out], env=env,
                          stdout=subprocess.DEVNULL)
    groups = {}
    with open(out) as f:
        for r in json.load(f)["rows"]:
            model, system, backend, mode = r["group"].split(" | ")[:4]
            if r.get("predicted") and mode == "agg":
                groups.setdefault((system, backend, model), []).append((r["ttft_ape"], r["tpot_ape"]))
    return {k: (statistics.median(a for a, _ in v), statistics.median(b for _, b in v), len(v))
            for k, v in groups.items()}


def medians(pairs):
    return 100 * statistics.median(a for a, _ in pairs), 100 * statistics.median(b for _, b in pairs)


def main():
    if not os.path.exists(SILICON):
        sys.exit("no %s: ../shared is not checked out" % SILICON)
    fits = shipped_fits()
    relabelled = write_dir(fits)
    sibling, datasheet = validate("sibling"), validate("datasheet")

    print("A GPU without a fit: its sibling's fit against the datasheet pick, median APE TTFT / TPOT")
    s_all, d_all = [], []
    for key in sorted(k for k in sibling if k[:2] in relabelled and k in datasheet):
        s, d = sibling[key], datasheet[key]
        s_all.append(s[:2])
        d_all.append(d[:2])
        print("  %-5s %-7s (%s's fit) %-20s %5d runs   %4.0f%% / %3.0f%%   %4.0f%% / %3.0f%%" %
              (key[0], key[1], SIBLING[key[0]], key[2], s[2], 100 * s[0], 100 * s[1], 100 * d[0], 100 * d[1]))
    print("  median over %d: sibling %.0f%% / %.0f%%, datasheet pick %.0f%% / %.0f%%; the sibling lower in TTFT %d, "
          "TPOT %d" % ((len(s_all),) + medians(s_all) + medians(d_all) +
                       (sum(s[0] < d[0] for s, d in zip(s_all, d_all)), sum(s[1] < d[1] for s, d in zip(s_all, d_all)))))

    with open(os.path.join(ROOT, "calibration", "profiles", "accuracy", "unseen-models.json")) as f:
        table = json.load(f)
    print("A model outside a fit's runs: the leave-one-model-out refit against the datasheet pick")
    r_all, p_all = [], []
    for pair in table["pairs"]:
        for fold in pair["folds"]:
            key = (pair["hardware"], pair["runtime"], fold["left_out"])
            if key not in datasheet:
                continue
            r = (fold["fit"]["ttft"]["median_ape"], fold["fit"]["tpot"]["median_ape"])
            p = datasheet[key][:2]
            r_all.append(r)
            p_all.append(p)
            print("  %-5s %-7s %-20s %5d runs   refit %4.0f%% / %3.0f%%   datasheet pick %4.0f%% / %3.0f%%" %
                  (key + (fold["rows"],) + tuple(100 * x for x in r + p)))
    print("  median over %d: refit %.0f%% / %.0f%%, datasheet pick %.0f%% / %.0f%%; the pick lower in TTFT %d, TPOT %d" %
          ((len(r_all),) + medians(r_all) + medians(p_all) +
           (sum(p[0] < r[0] for r, p in zip(r_all, p_all)), sum(p[1] < r[1] for r, p in zip(r_all, p_all)))))


if __name__ == "__main__":
    main()
