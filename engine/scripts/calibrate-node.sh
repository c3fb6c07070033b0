#!/usr/bin/env bash
# Calibrates one GPU of this node: builds fleetcast-engine if needed, runs a sweep plan (default
# engine/plans/node-default.json, under five minutes on an H100, H200 or B200) on the CUDA backend into
# traces/data/<gpu>/<plan>-<UTC time>.jsonl, and prints the summary: achieved share of the datasheet peak
# per op class (GEMMs and prefill against tensor-core FLOPs, decode attention and elementwise ops against
# HBM, host copies against the host link, peer copies and collectives' bus bandwidth against NVLink one
# way). Peer copies and collectives need more than one GPU: on one they are listed as skipped.
# Exit codes as fleetcast-engine: 3 when this machine has no GPU or the build no CUDA
# backend, 1 when a result fails its check (nothing is written then).
# usage: engine/scripts/calibrate-node.sh [PLAN.json]   (FLEETCAST_BUILD_DIR: build folder, default build)
# Run it on device 0; pick another GPU with CUDA_VISIBLE_DEVICES.
set -euo pipefail
cd "$(dirname "$0")/../.."
plan=${1:-engine/plans/node-default.json}
build=${FLEETCAST_BUILD_DIR:-build}

# GPU nodes often have the toolkit without nvcc on PATH; CMake finds it through CUDACXX.
if ! command -v nvcc >/dev/null 2>&1 && [ -z "${CUDACXX:-}" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build" --target fleetcast-engine --parallel "$(nproc)"
engine="$build/engine/fleetcast-engine"

# Which GPU, and where its traces go; exits 3 with the reason when there is none.
"$engine" device --backend cuda
slug=$("$engine" device --backend cuda --slug)
out_dir="traces/data/$slug"
mkdir -p "$out_dir"
trace="$out_dir/$(basename "$plan" .json)-$(date -u +%Y%m%dT%H%M%SZ).jsonl"

start=$SECONDS
"$engine" run "$plan" --backend cuda -o "$trace"
echo "calibrate-node: $((SECONDS - start)) s; trace $trace"
echo "commit it with: git add $trace"
