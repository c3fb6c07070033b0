#!/usr/bin/env bash
# fleetcast-engine under an MPI launcher: two CPU ranks measure real collectives between them (MPI), each
# checked against the reference before timing; rank 0 alone logs and writes the trace; its records carry
# the rank count and the transport, and their GB/s is nccl-tests' bus bandwidth (checked by hand on one
# record); cases for another rank count are skipped with the reason; a single rank skips every collective
# with a message; a bad plan ends the whole launch with exit code 2.
# usage: engine_mpi_test.sh FLEETCAST_ENGINE READ_TRACE SOURCE_DIR MPIEXEC
set -u
bin=$1
read_trace=$2
src=$3
mpiexec=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAILED: $*"; }
# --oversubscribe: two ranks whatever this machine's core count; --allow-run-as-root: CI runs as root.
launch() { "$mpiexec" -np "$1" --oversubscribe --allow-run-as-root "${@:2}"; }
plan="$src/engine/plans/cpu-collectives.json"

launch 2 "$bin" run "$plan" --backend cpu -o "$work/mpi.jsonl" >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" -eq 0 ] && ok || bad "mpirun -np 2 exited $rc: $(tail -5 "$work/err")"
cat "$work/err"
counted=$("$read_trace" "$work/mpi.jsonl") && ok || bad "the reader rejects the trace: $counted"
# 5 ops x 2 sizes at gpus 2; the gpus 4 and 8 points are another launch's.
[ "$counted" = "cpu 10" ] && ok || bad "reader counted '$counted', expected 'cpu 10'"
for op in all_reduce all_gather reduce_scatter all_to_all send_recv; do
  record="\"op\":\"$op\",\"dtype\":\"fp32\",\"shape\":{\"bytes\":[0-9]*,\"gpus\":2,\"transport\":\"mpi\"},\"gpus\":2,"
  n=$(grep -c "$record" "$work/mpi.jsonl")
  [ "$n" -eq 2 ] && ok || bad "$n $op records with gpus 2 and transport mpi, expected 2"
done
[ "$(grep -c '"checked":true' "$work/mpi.jsonl")" -eq 10 ] && ok || bad "a record is unchecked"
# Rank 0 alone logs: one line per timed case, not one per rank.
[ "$(grep -c '^\[1/10\] ' "$work/err")" -eq 1 ] && ok || bad "the progress was logged by more than one rank"
grep -q "MPI launch: 2 ranks, collectives over mpi" "$work/err" && ok || bad "no launch line"
grep -q "check all_reduce fp32 bytes=1048576 gpus=2: all 262144 outputs match" "$work/err" && ok ||
  bad "no full small-shape check of all_reduce"
grep -q "skip all_gather fp32 bytes=65536 gpus=4: needs 4 ranks; this launch has 2" "$work/err" && ok ||
  bad "the gpus 4 case was not skipped with the reason"

# Bus bandwidth by hand, all_gather of 4 MiB on 2 ranks: each rank receives the other's half, so the bus
# carries (n-1)/n = 1/2 of the size; achieved GB/s = 4194304 x 1/2 / median_s / 1e9.
line=$(grep '"op":"all_gather","dtype":"fp32","shape":{"bytes":4194304,' "$work/mpi.jsonl")
field() { echo "$line" | sed -e 's/.*"shape":{[^}]*}//' | grep -o "\"$1\":[-0-9.e+]*" | head -1 | cut -d: -f2; }
median=$(field median_s)
bytes=$(field bytes)
gbps=$(field achieved_gb_per_s)
awk -v b="$bytes" 'BEGIN { exit !(b == 2097152) }' && ok || bad "all_gather bytes $bytes, expected 4194304 x 1/2"
awk -v m="$median" -v g="$gbps" \
  'BEGIN { want = 4194304 * 0.5 / m / 1e9; exit !(m > 0 && (g - want) ^ 2 < (1e-9 * want) ^ 2) }' && ok || bad "all_gather bus bandwidth $gbps GB/s is not 4194304 x 1/2 / $median s"

# One process, and one rank under mpirun: every collective skipped with the reason, an empty trace written.
for how in plain single; do
  if [ $how = plain ]; then
    "$bin" run "$plan" --backend cpu -o "$work/$how.jsonl" >/dev/null 2>"$work/err"
  else
    launch 1 "$bin" run "$plan" --backend cpu -o "$work/$how.jsonl" >/dev/null 2>"$work/err"
  fi
  rc=$?
  [ "$rc" -eq 0 ] && ok || bad "$how: exited $rc: $(tail -3 "$work/err")"
  grep -q "skip send_recv fp32 bytes=65536 gpus=2: no device: .*this process is a single rank" "$work/err" && ok ||
    bad "$how: no skip message naming the single rank: $(head -3 "$work/err")"
  [ "$("$read_trace" "$work/$how.jsonl")" = "cpu 0" ] && ok || bad "$how: the trace is not empty"
done

# A bad plan: every rank fails alike, the launch ends with exit code 2 and nothing is written.
cat >"$work/bad.json" <<'JSON'
{"name": "bad", "ops": [{"op": "all_reduce", "dtypes": ["fp32"], "sweep": {"bytes": [1004], "gpus": [2]}}]}
JSON
launch 2 "$bin" run "$work/bad.json" --backend cpu -o "$work/bad.jsonl" >/dev/null 2>"$work/err"
rc=$?
[ "$rc" -eq 2 ] && ok || bad "a bad plan under mpirun exited $rc, expected 2"
grep -q "bad.json.*ops\[0\].sweep.bytes" "$work/err" && ok || bad "message: $(head -3 "$work/err")"
[ ! -e "$work/bad.jsonl" ] && ok || bad "a trace was written for a bad plan"

echo "engine_mpi_test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
