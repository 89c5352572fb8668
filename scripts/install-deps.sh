#!/usr/bin/env bash
# Installs talus's build and test dependencies from Debian's archive. Idempotent: packages that
# are already installed are not fetched again, and apt-get is skipped entirely when none is missing.
set -euo pipefail

packages=(
  build-essential cmake make pkg-config
  libeigen3-dev libtomlplusplus-dev libcli11-dev libfmt-dev nlohmann-json3-dev libpng-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libassimp-dev libmujoco-dev libqhull-dev libhdf5-dev
  # The pictures: Cairo draws lines and text, in DejaVu Sans (core/cairo_draw.hpp)
  libcairo2-dev fonts-dejavu-core
  # talus view: its local web server, and the browser its tests drive (tests/browser/)
  libcpp-httplib-dev chromium
  ffmpeg  # talus run --video encodes with the ffmpeg program (not linked)
  # talus view: its page is bundled with npm packages (viewer/package-lock.json) by Node.js
  nodejs
  # talus sweep on several processes (mpirun), and its results read back in Python
  openmpi-bin libopenmpi-dev python3-h5py
  pybind11-dev python3-dev python3-numpy python3-pytest
  # The learning agents (python/talus/agents, examples/train_*.py) on the CPU; OpenBLAS because
  # Debian's torch calls the BLAS alternative, and the reference BLAS makes its dense layers ~10x
  # slower (measured: a DQN update 95 ms with it, 11 ms with OpenBLAS).
  python3-torch libopenblas0-pthread
  clang libclang-rt-14-dev  # the libFuzzer targets (make fuzz)
  python3-cvxopt  # test reference only (GPL): the QP tests compare against it, never linked
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
