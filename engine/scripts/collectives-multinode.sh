#!/usr/bin/env bash
# NCCL collectives across nodes: one fleetcast-engine rank per GPU under OpenMPI's mpirun, every rank on
# the GPU of its local index; rank 0 broadcasts NCCL's unique id over MPI and all join one communicator
# (ncclCommInitRank). Runs engine/plans/multinode-collectives.json (or PLAN): the points whose gpus is
# the launch's rank count (nodes x GPUS_PER_NODE) run, checked against the reference on every rank before
# timing; the others are skipped with the reason. Rank 0 writes the trace to
# traces/data/<gpu>/<plan>-<nodes>x<gpus>-<UTC time>.jsonl; each record's shape names the transport
# ("nccl") and its gpus the rank count, its GB/s the bus bandwidth.
# usage: engine/scripts/collectives-multinode.sh HOSTFILE [GPUS_PER_NODE (8)] [PLAN.json]
#   HOSTFILE: OpenMPI's format, one node a line: "gpu-node-01 slots=8".
# Needs: the same build at the same path on every node (a shared file system; FLEETCAST_BUILD_DIR, default
# build, configured with MPI found), password-less ssh between the nodes, NCCL's network (InfiniBand or
# RoCE; set NCCL_SOCKET_IFNAME / NCCL_IB_HCA here for your fabric). NCCL_DEBUG=INFO shows the transports.
# Example, two 8-GPU nodes:
#   printf 'node-a slots=8\nnode-b slots=8\n' > hosts && engine/scripts/collectives-multinode.sh hosts
set -euo pipefail
cd "$(dirname "$0")/../.."
hostfile=${1:?usage: collectives-multinode.sh HOSTFILE [GPUS_PER_NODE] [PLAN.json]}
gpus_per_node=${2:-8}
plan=${3:-engine/plans/multinode-collectives.json}
build=${FLEETCAST_BUILD_DIR:-build}
engine="$PWD/$build/engine/fleetcast-engine"
if [ ! -x "$engine" ]; then
  echo "collectives-multinode: no $engine; build it first (cmake --build $build --target fleetcast-engine)" >&2
  exit 2
fi

nodes=$(grep -cvE '^[[:space:]]*(#|$)' "$hostfile")
ranks=$((nodes * gpus_per_node))
slug=$("$engine" device --backend cuda --slug)
out_dir="traces/data/$slug"
mkdir -p "$out_dir"
trace="$PWD/$out_dir/$(basename "$plan" .json)-${nodes}x${gpus_per_node}-$(date -u +%Y%m%dT%H%M%SZ).jsonl"

echo "collectives-multinode: $nodes nodes x $gpus_per_node GPUs = $ranks ranks"
start=$SECONDS
# ppr: GPUS_PER_NODE ranks on each node, so local ranks 0 .. GPUS_PER_NODE-1 pick GPUs 0 .. GPUS_PER_NODE-1;
# --bind-to none leaves NCCL free to place its proxy threads near the NICs.
# The environment every rank needs, passed on where it is set here.
env_args=()
for var in PATH LD_LIBRARY_PATH NCCL_DEBUG NCCL_SOCKET_IFNAME NCCL_IB_HCA; do
  if [ -n "${!var:-}" ]; then env_args+=(-x "$var"); fi
done
mpirun -np "$ranks" --hostfile "$hostfile" --map-by "ppr:${gpus_per_node}:node" --bind-to none "${env_args[@]}" \
  "$engine" run "$PWD/$plan" --backend cuda -o "$trace"
echo "collectives-multinode: $((SECONDS - start)) s; trace $trace"
