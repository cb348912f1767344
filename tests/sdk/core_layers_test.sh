#!/usr/bin/env bash
# The core's layers (docs/architecture.md, "The core in layers"): each
# library of the build needs exactly the fusebox libraries of the layers
# below it, and every plugin needs the plugin SDK and nothing of the host.
#   core_layers_test.sh BUILD_DIR
set -uo pipefail
lib=$1/lib
fail() { echo "FAIL: $*" >&2; exit 1; }
needed() {  # the fusebox libraries $1 names as DT_NEEDED, sorted, one line
  readelf -d "$1" | sed -n 's/.*Shared library: \[libfusebox_\([a-z_]*\)\.so\].*/\1/p' | sort |
    tr '\n' ' ' | sed 's/ $//'
}
expect_needed() {  # FILE EXPECTED
  local got
  got=$(needed "$1")
  [[ "$got" == "$2" ]] || fail "$(basename "$1") needs [$got], expected [$2]"
}
expect_needed "$lib/libfusebox_ir.so" ""
expect_needed "$lib/libfusebox_eval.so" "ir"
expect_needed "$lib/libfusebox_core.so" "eval ir"
expect_needed "$lib/libfusebox_frontend.so" "ir"
expect_needed "$lib/libfusebox_runtime.so" "core eval ir"
count=0
for plugin in "$lib"/fusebox/plugins/*.so; do
  got=$(needed "$plugin")
  [[ "$got" == *runtime* || "$got" == *frontend* ]] &&
    fail "$(basename "$plugin") needs [$got]: a plugin links the plugin SDK, not the host"
  [[ "$got" == *core* ]] || fail "$(basename "$plugin") needs [$got], not the plugin SDK"
  count=$((count + 1))
done
((count >= 10)) || fail "only $count plugins in $lib/fusebox/plugins"
echo "core layers: 5 libraries, $count plugins as expected"
