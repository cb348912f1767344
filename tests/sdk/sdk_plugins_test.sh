#!/usr/bin/env bash
# Usage: sdk_plugins_test.sh BUILD_DIR SOURCE_DIR CXX_COMPILER
# Installs BUILD_DIR to a temporary prefix, builds plugins/* against it (each
# its own CMake project) and runs the installed fusebox with each plugin's
# config, checking what each plugin promises. Exit 1 with the reason on the
# first failure.
set -euo pipefail
build=$1 source=$2 cxx=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # expect FILE PATTERN WHAT
  grep -q -- "$2" "$1" || { cat "$1" >&2; fail "$3: no '$2' in the output above"; }
}

cmake --install "$build" --prefix "$work/prefix" >/dev/null
fusebox=$work/prefix/bin/fusebox
[ -x "$fusebox" ] || fail "cmake --install put no bin/fusebox in the prefix"
"$fusebox" --version >"$work/version.txt"
expect "$work/version.txt" "plugin API version" "the installed program's --version"
# The SDK holds the kernel IR and the interfaces a scheduler includes, not
# what only the shared libraries' own sources include.
common=$work/prefix/include/fusebox/common
for header in kernel_ir/kernel_ir.h kernel_ir/combine.h kernelgen/element_writer.h \
  reduction/accumulator.h pointwise/scheduler_base.h normalization/row_kernel.h; do
  [ -f "$common/$header" ] || fail "the SDK lacks $header"
done
for header in normalization/persistent_writer.h normalization/pass_chunk.h pointwise/codegen.h; do
  [ ! -e "$common/$header" ] || fail "the SDK installs $header, an internal of its library"
done

for project in "$source"/plugins/*/; do
  name=$(basename "$project")
  cmake -S "$project" -B "$work/$name" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log" >&2; fail "configuring plugins/$name against the installed SDK"; }
  cmake --build "$work/$name" -j 2 >>"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log" >&2; fail "building plugins/$name"; }
done

# pointwise_waves: loaded by its config, placed where pointwise was, takes
# the 1-D segment with its own launch and validates.
waves=$work/pointwise_waves/pointwise_waves.toml
"$fusebox" plugins --config "$waves" >"$work/waves_plugins.txt"
expect "$work/waves_plugins.txt" "pointwise_waves  scheduler  1.0" "fusebox plugins"
"$fusebox" run "$source/tests/sdk/traced_identities.py" --config "$waves" --no-ir --validate \
  --dump=scheduler_params >"$work/waves_run.txt" 2>&1 || { cat "$work/waves_run.txt" >&2; fail "run with pointwise_waves"; }
expect "$work/waves_run.txt" "1 segment in .* by pointwise_waves" "segment scheduler"
expect "$work/waves_run.txt" "schedule: 1-D" "pointwise_waves params"
expect "$work/waves_run.txt" "validate: PASS" "pointwise_waves results"
"$fusebox" run "$source/examples/bias_gelu.py" --config "$waves" --no-ir --validate \
  --input T0=64x512:half --input T1=512:half >"$work/waves_2d.txt" 2>&1 || { cat "$work/waves_2d.txt" >&2; fail "2-D run with pointwise_waves"; }
expect "$work/waves_2d.txt" "validate: PASS" "pointwise_waves 2-D results"

# fold_identities: runs first and removes the mul, div and sub by constants;
# the float add of 0.0 and the int32 * 1.0 stay.
fold=$work/fold_identities/fold_identities.toml
"$fusebox" run "$source/tests/sdk/traced_identities.py" --config "$fold" --validate \
  --print-after fold_identities >"$work/fold_run.txt" 2>&1 || { cat "$work/fold_run.txt" >&2; fail "run with fold_identities"; }
expect "$work/fold_run.txt" "IR after pass 'fold_identities' (changed)" "fold_identities ran"
ir=$(sed -n "/IR after pass 'fold_identities'/,/^}/p" "$work/fold_run.txt")
[ "$(grep -c '^T' <<<"$ir")" = 3 ] || { echo "$ir" >&2; fail "fold_identities should leave 3 exprs (add 0.0, int * 1.0, the sum)"; }
grep -q ' / ' <<<"$ir" && { echo "$ir" >&2; fail "fold_identities left a division by 1"; }
expect "$work/fold_run.txt" "validate: PASS" "fold_identities results"
# row_sum_tree: its own kernel, built through the kernel IR (the dump shows
# its shared-memory tree), takes the cast and the sum as one segment and
# validates, at a size with wide rows and one narrower than a warp.
rows=$work/row_sum_tree/row_sum_tree.toml
"$fusebox" plugins --config "$rows" >"$work/rows_plugins.txt"
expect "$work/rows_plugins.txt" "row_sum_tree  scheduler  1.0" "fusebox plugins"
"$fusebox" run "$source/tests/sdk/row_sums.py" --config "$rows" --no-ir --validate \
  --dump=kernel_ir,scheduler_params >"$work/rows_run.txt" 2>&1 || { cat "$work/rows_run.txt" >&2; fail "run with row_sum_tree"; }
expect "$work/rows_run.txt" "1 segment in .* by row_sum_tree" "segment scheduler"
expect "$work/rows_run.txt" "threads = 256" "row_sum_tree params"
expect "$work/rows_run.txt" "decl shared partial: float\[256\]" "row_sum_tree kernel IR"
expect "$work/rows_run.txt" "validate: PASS" "row_sum_tree results"
"$fusebox" run "$source/tests/sdk/row_sums.py" --config "$rows" --no-ir --validate \
  --input T0=7x3:bfloat16 --dump=scheduler_params >"$work/rows_narrow.txt" 2>&1 || { cat "$work/rows_narrow.txt" >&2; fail "narrow run with row_sum_tree"; }
expect "$work/rows_narrow.txt" "threads = 32" "row_sum_tree params for 3 columns"
expect "$work/rows_narrow.txt" "validate: PASS" "row_sum_tree results for 3 columns"
echo "PASS: plugins built against $work/prefix: $(ls "$source"/plugins | tr '\n' ' ')"
