#!/usr/bin/env bash
# Installs what is missing, configures and builds fleetcast into build/ (Ninja, ccache).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build_type=${FLEETCAST_BUILD_TYPE:-RelWithDebInfo}
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$build_type"
fi
cmake --build build --parallel "$(nproc)"
