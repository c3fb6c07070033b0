#!/usr/bin/env bash
# Second command of the quick start: the same set-up, then the whole test suite (slow tests included).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd build
ctest --output-on-failure --timeout 1800 -j "$(nproc)"
