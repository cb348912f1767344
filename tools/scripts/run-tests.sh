#!/usr/bin/env bash
# Quick start, part 2: install what is missing, build with warnings as errors,
# and run every test. FUSEBOX_SANITIZE=1 builds with ASan+UBSan instead.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/install-deps.sh
dir=build/test
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DFUSEBOX_WERROR=ON)
if [ "${FUSEBOX_SANITIZE:-0}" = "1" ]; then
  dir=build/asan
  flags=(-DCMAKE_BUILD_TYPE=Debug -DFUSEBOX_WERROR=ON -DFUSEBOX_SANITIZE=ON)
fi
cmake -S . -B "$dir" -G Ninja "${flags[@]}" >/dev/null
ninja -C "$dir" -j2
ctest --test-dir "$dir" --output-on-failure -j2 "$@"
