#!/usr/bin/env bash
# The GPU A/B gate of a change (docs/perf.md): `fusebox bench` over a suite
# with the fusebox of two builds, interleaved (old, new, old, new, ...), the
# new build's last pass compared with every old pass, pooled (`bench
# --baseline`, the statistics of `fusebox compare`). Kernels compile before
# the first timed sample, so the kernel cache the builds share changes no
# figure.
#   benchmarks/ab_builds.sh OLD_BUILD NEW_BUILD [PASSES] [SUITE]
# PASSES (default 2) per build; SUITE (default benchmarks/workloads): scripts
# or a folder. Each build's bin/fusebox runs with its own lib/ first on
# LD_LIBRARY_PATH, then EXTLIB (a folder of the shared libraries the device
# lacks), so a build copied without its object files serves. REPS (default
# 10) samples a pass. Logs and JSON land in $OUT (or ./ab-results); the
# verdicts are the end of new<PASSES>.log.
set -uo pipefail
old=$1 new=$2 passes=${3:-2} suite=${4:-benchmarks/workloads}
out=${OUT:-ab-results}
mkdir -p "$out"
bench() {  # bench BUILD NAME [bench options...]
  local build=$1 name=$2
  shift 2
  LD_LIBRARY_PATH=$build/lib:${EXTLIB:-}:/usr/local/cuda/lib64 "$build/bin/fusebox" bench \
    "$suite" --backend cuda --no-check --repetitions "${REPS:-10}" --json "$out/$name.json" "$@" \
    >"$out/$name.log" 2>&1
  echo "$name: exit $?" >>"$out/ab_builds.log"
}
baselines=()
for ((i = 1; i <= passes; ++i)); do
  bench "$old" "old$i"
  baselines+=(--baseline "$out/old$i.json")
  ((i < passes)) && bench "$new" "new$i"
done
bench "$new" "new$passes" "${baselines[@]}"
tail -n 3 "$out/new$passes.log"
