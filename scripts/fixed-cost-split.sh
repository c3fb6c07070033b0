#!/usr/bin/env bash
# The step model's fixed costs against measured TPOT (scripts/fixed-cost-split.py): validate the same rows four times,
# with the profiles in use and with each fixed cost (kernel latency, collective-call latency, host time per step) set
# to zero in copies of them, then split and refactor each row's predicted TPOT.
#
# usage: scripts/fixed-cost-split.sh BUILD OUT [--datasheet | --unfitted] [--max-clients N] [-- VALIDATE_ARGS...]
#   BUILD          the build folder (BUILD/cli/fleetcast)
#   OUT            a folder for the profile copies and the four reports (created)
#   --datasheet    the datasheet-derived profiles (as --datasheet-profiles) instead of the ones in use
#   --unfitted     each GPU's profile as if it had no fit of its own (as --unfitted-profiles)
#   --max-clients  passed to the split (0, the default: every row)
#   VALIDATE_ARGS  default: --silicon ../shared/validation/silicon-dev.csv -j 2
# Takes four validate runs (all rows: ~12 min on 2 cores; --split held-out: ~2 min).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { sed -n 2,13p "$0" >&2; exit 2; }
fleetcast=$1/cli/fleetcast
out=$2
shift 2
choice=best
max_clients=0
while [ $# -gt 0 ]; do
  case $1 in
    --datasheet) choice=datasheet ;;
    --unfitted) choice=unfitted ;;
    --max-clients) max_clients=$2; shift ;;
    --) shift; break ;;
    *) echo "fixed-cost-split.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ $# -gt 0 ] || set -- --silicon ../shared/validation/silicon-dev.csv -j 2
[ -x "$fleetcast" ] || { echo "fixed-cost-split.sh: $fleetcast: not built" >&2; exit 2; }
mkdir -p "$out"

# The base run, with the profiles as chosen; its groups name the (hardware, runtime) pairs the rows run on.
echo "validate with the $choice profiles" >&2
FLEETCAST_PROFILES=$choice "$fleetcast" validate "$@" --json "$out/base.json" >"$out/base.txt"
pairs=$(python3 -c '
import json, sys
groups = {r["group"] for r in json.load(open(sys.argv[1]))["rows"] if r.get("predicted")}
print(" ".join(sorted({g.split(" | ")[1] + ":" + g.split(" | ")[2] for g in groups})))' "$out/base.json")

# Each pair's profile as the simulation takes it (`calibrate show`), copied as a measured profile of that runtime
# (taken as written: FLEETCAST_PROFILE_DIR) with one fixed cost at zero; the copy as is ("same") must give the base run
# back (checked on every 20th row).
for variant in same no_kernel no_collective no_step; do mkdir -p "$out/$variant"; done
# A pair's fit for one kind of model (`calibrate show --models KIND`, where one ships) is copied beside it, keeping its
# model_kind, so that the models of that kind take their copy as they took the fit.
for pair in $pairs; do
  hw=${pair%%:*} rt=${pair#*:}
  for kind in "" dense moe; do
    FLEETCAST_PROFILES=$choice "$fleetcast" calibrate show "$hw" --runtime "$rt" ${kind:+--models $kind} 2>/dev/null \
      >"$out/shown.json" || continue
    python3 - "$out" "$hw" "$rt" "$kind" <<'PY'
import json, sys
out, hw, rt, kind = sys.argv[1:]
p = json.load(open(f"{out}/shown.json"))
p["kind"], p["runtime"] = "measured", rt
for variant, field in (("same", None), ("no_kernel", "op_latency_s"), ("no_collective", "collective_latency_s"),
                       ("no_step", "step_overhead_s")):
    q = dict(p)
    if field:
        q[field] = 0.0
    json.dump(q, open(f"{out}/{variant}/{hw}-{rt}{'-' + kind if kind else ''}.json", "w"), indent=1)
PY
  done
done

# The copies run as the "best" choice, the one that takes FLEETCAST_PROFILE_DIR (the datasheet and unfitted choices
# ignore it). Every 20th row with the unchanged copies must give the base run's predictions, or the split would
# measure the copy.
FLEETCAST_PROFILES=best FLEETCAST_PROFILE_DIR=$out/same "$fleetcast" validate "$@" --every 20 --json "$out/same.json" \
  >"$out/same.txt"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
base = {r["id"]: r for r in json.load(open(f"{out}/base.json"))["rows"]}
same = [r for r in json.load(open(f"{out}/same.json"))["rows"] if r.get("predicted")]
off = [r["id"] for r in same
       if abs(r["predicted_tpot_ms"] - base[r["id"]]["predicted_tpot_ms"]) > 1e-9 * r["predicted_tpot_ms"]]
if off:
    sys.exit(f"fixed-cost-split.sh: the profile copies do not reproduce the base run "
             f"({len(off)} of {len(same)} rows, {off[0]})")
print(f"profile copies checked: {len(same)} rows as in the base run", file=sys.stderr)
PY
for variant in no_kernel no_collective no_step; do
  echo "validate with $variant profiles" >&2
  FLEETCAST_PROFILES=best FLEETCAST_PROFILE_DIR=$out/$variant "$fleetcast" validate "$@" --json "$out/$variant.json" \
    >"$out/$variant.txt"
done
python3 "$here/fixed-cost-split.py" "$out"/{base,no_kernel,no_collective,no_step}.json --max-clients "$max_clients"
