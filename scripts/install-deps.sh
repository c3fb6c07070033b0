#!/usr/bin/env bash
# Installs the Debian 12 packages fleetcast needs. Idempotent: installs only what is missing.
# CUDA is optional and never installed here (the engine's GPU backend builds only where nvcc exists).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git python3
  libsimgrid-dev libboost-dev
  libeigen3-dev nlohmann-json3-dev libyaml-cpp-dev catch2
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libxkbcommon-dev libgl-dev
  xvfb xauth fonts-dejavu-core
  libopenmpi-dev openmpi-bin
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
