#!/usr/bin/env bash
# A sweep run by 2 MPI ranks on one host writes the bytes a local run writes (results.jsonl, pareto.svg and, where
# fleetcast-png is built, pareto.png), and both ranks ran points. usage: mpi_sweep_test.sh FLEETCAST MPIEXEC
set -euo pipefail
fleetcast="$1"
mpiexec="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
args=(sweep decode t 8192 1 0.7 --points 1,2,4,8,16,32,64)
"$fleetcast" "${args[@]}" --out "$tmp/local" -j 2 > "$tmp/local.out"
export OMPI_MCA_mpi_warn_on_fork=0  # the workers are forked and never call MPI
root=()
if [ "$(id -u)" -eq 0 ]; then root=(--allow-run-as-root); fi
"$mpiexec" "${root[@]}" --oversubscribe -np 2 "$fleetcast" "${args[@]}" --out "$tmp/mpi" -j 1 > "$tmp/mpi.out"
cmp "$tmp/local/t/results.jsonl" "$tmp/mpi/t/results.jsonl"
cmp "$tmp/local/t/pareto.svg" "$tmp/mpi/t/pareto.svg"
# Where fleetcast-png is built both runs render the same SVG: rank 0 alone writes pareto.png, the same bytes.
png=""
if [ -f "$tmp/local/t/pareto.png" ]; then
  cmp "$tmp/local/t/pareto.png" "$tmp/mpi/t/pareto.png"  # set -e: a difference fails the test here
  png=" and pareto.png"
fi
[ "$(wc -l < "$tmp/mpi/t/results.jsonl")" -eq 7 ]
# Rank 0 alone reports: one summary line, every point run now, over 2 ranks.
grep -c "points: 7 run now, 0 found finished, 0 failed" "$tmp/mpi.out" | grep -qx 1
grep -q "over 2 MPI ranks" "$tmp/mpi.out"
echo "mpi sweep: results.jsonl, pareto.svg$png identical to the local run"
