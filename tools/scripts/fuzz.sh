#!/usr/bin/env bash
# Runs fusebox's fuzzers for as long as asked (docs/fuzzing.md): generated
# fusions through the runtime against the reference evaluator, and mutated
# scripts and configs through the parsers. Failing cases are minimized and
# written to the output folder; each fuzzer prints a summary.
#
#   tools/scripts/fuzz.sh --minutes 60                  # both, 3/4 of the time on fusions
#   tools/scripts/fuzz.sh --cases 5000 --mutations 200000
#   tools/scripts/fuzz.sh --minutes 30 --what fusions --fusion-args "--backend host"
#   tools/scripts/fuzz.sh --minutes 30 --what parsers --libfuzzer   # clang's libFuzzer
#
# Options:
#   --minutes N        total time (split between the fuzzers run)
#   --cases N          generated fusions (with --minutes: whichever ends first)
#   --mutations N      parser mutations (default: 40 per fusion case)
#   --what W           fusions, parsers or both (default both)
#   --out DIR          where failing cases go (default fuzz-out/<date-time>)
#   --seed S           run seed (default: from the clock; printed)
#   --fusion-args "A"  more options for `fusebox_fuzz fusions` (e.g. "--exclude alias")
#   --parser-args "A"  more options for `fusebox_fuzz parsers` (e.g. "--message-checks")
#   --libfuzzer        parsers through libFuzzer (needs clang++ and libclang-rt-14-dev)
# Exit status: 0 when no new failure was found, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."

minutes=0 cases=0 mutations=0 what=both out="" seed="" fusion_args="" parser_args="" libfuzzer=0
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --mutations) mutations=$2; shift 2 ;;
    --what) what=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --fusion-args) fusion_args=$2; shift 2 ;;
    --parser-args) parser_args=$2; shift 2 ;;
    --libfuzzer) libfuzzer=1; shift ;;
    -h | --help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$what" in fusions | parsers | both) ;; *) echo "fuzz.sh: --what fusions, parsers or both" >&2; exit 2 ;; esac
if [ "$minutes" = 0 ] && [ "$cases" = 0 ] && [ "$mutations" = 0 ]; then
  echo "fuzz.sh: say how long: --minutes N, --cases N or --mutations N" >&2
  exit 2
fi
[ -n "$seed" ] || seed=$(date +%s)
[ -n "$out" ] || out="fuzz-out/$(date +%Y%m%d-%H%M%S)"
[ "$mutations" != 0 ] || [ "$cases" = 0 ] || mutations=$((cases * 40))
mkdir -p "$out"
echo "fuzz.sh: seed $seed, failing cases go to $out"

# Time shares: 3/4 for fusions when both run.
fusion_minutes=$minutes parser_minutes=$minutes
if [ "$what" = both ] && [ "$minutes" != 0 ]; then
  fusion_minutes=$(awk "BEGIN { print $minutes * 0.75 }")
  parser_minutes=$(awk "BEGIN { print $minutes * 0.25 }")
fi
limit() {  # count option, count, minutes
  local args=()
  [ "$2" = 0 ] || args+=("$1" "$2")
  [ "$3" = 0 ] || args+=(--minutes "$3")
  echo "${args[@]}"
}

bash tools/scripts/install-deps.sh
build=${FUSEBOX_FUZZ_BUILD_DIR:-build/fuzz}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFUSEBOX_BUILD_BENCHMARKS=OFF >/dev/null
ninja -C "$build" -j2 fusebox_fuzz
status=0

if [ "$what" != parsers ]; then
  # shellcheck disable=SC2046,SC2086
  "$build/bin/fusebox_fuzz" fusions --seed "$seed" $(limit --cases "$cases" "$fusion_minutes") \
    --out "$out/fusions" --kernel-cache "$out/kernel-cache" $fusion_args || status=1
fi

if [ "$what" != fusions ] && [ "$libfuzzer" = 0 ]; then
  # shellcheck disable=SC2046,SC2086
  "$build/bin/fusebox_fuzz" parsers --seed "$seed" $(limit --mutations "$mutations" "$parser_minutes") \
    --out "$out/parsers" $parser_args || status=1
fi

if [ "$what" != fusions ] && [ "$libfuzzer" = 1 ]; then
  if ! command -v clang++ >/dev/null; then
    echo "fuzz.sh: --libfuzzer needs clang++ (apt-get install clang-14 libclang-rt-14-dev)" >&2
    exit 2
  fi
  # A second build with clang, every file instrumented for coverage.
  cbuild=${FUSEBOX_FUZZ_CLANG_BUILD_DIR:-build/fuzz-clang}
  cmake -S . -B "$cbuild" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link -DFUSEBOX_BUILD_BENCHMARKS=OFF >/dev/null
  ninja -C "$cbuild" -j2 fusebox_fuzz_python_libfuzzer fusebox_fuzz_toml_libfuzzer
  seconds=$(awk "BEGIN { print int($parser_minutes * 60 / 2) }")
  runs=()
  [ "$mutations" = 0 ] || runs=(-runs=$((mutations / 2)))
  [ "$seconds" = 0 ] || runs+=(-max_total_time="$seconds")
  for parser in python toml; do
    corpus="$out/libfuzzer-corpus-$parser"
    mkdir -p "$corpus" "$out/libfuzzer-$parser"
    if [ $parser = python ]; then
      cp tests/data/corpus/*.py examples/*.py "$corpus"/
    else
      cp config/*.toml "$corpus"/
    fi
    # shellcheck disable=SC2086
    "$cbuild/bin/fusebox_fuzz_${parser}_libfuzzer" "$corpus" -seed="$seed" -timeout=20 \
      -rss_limit_mb=4096 -artifact_prefix="$out/libfuzzer-$parser/" "${runs[@]}" $parser_args ||
      status=1
  done
fi

echo "fuzz.sh: done (seed $seed); failing cases, if any, are in $out"
exit $status
