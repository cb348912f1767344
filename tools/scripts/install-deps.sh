#!/usr/bin/env bash
# Installs the Debian packages fusebox builds with, when any is missing.
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  libboost-dev libboost-graph-dev libboost-context-dev   # Boost.DLL (header-only), Boost.Graph, Boost.Context
  libtomlplusplus-dev libcli11-dev libfmt-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev   # cblas.h; the evaluator's matmul loads libopenblas.so.0 at run time
  python3-dev pybind11-dev libdlpack-dev   # the Python module (python/): pybind11, DLPack
  python3-torch python3-pytest python3-numpy  # its tests on torch tensors (CPU)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
