#!/usr/bin/env bash
# Quick start, part 1: install what is missing, build in Release, and run the
# GELU-backward + bias-gradient example end to end. Extra arguments go to
# `fusebox run` (e.g. --input T0=64x128x256:float).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DFUSEBOX_BUILD_TESTS=OFF \
  -DFUSEBOX_BUILD_BENCHMARKS=OFF >/dev/null
ninja -C build/release -j2
./build/release/bin/fusebox run examples/gelu_bias_grad.py "$@"
