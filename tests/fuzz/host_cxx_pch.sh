#!/bin/sh
# A FUSEBOX_HOST_CXX for fuzzing: the host backend's compile command, with
# <fusebox_runtime.cuh> precompiled once per runtime folder (a process's
# private folder). Parsing that header is most of a kernel's compile time;
# a precompiled header gives the same code. Kernels compiled with their own
# -D/-U options skip the precompiled header. The real compiler is
# $FUSEBOX_FUZZ_REAL_CXX (default c++).
real=${FUSEBOX_FUZZ_REAL_CXX:-c++}
inc=""
prev=""
defines=no
for a in "$@"; do
  [ "$prev" = "-I" ] && inc="$a"
  case "$a" in -D* | -U*) defines=yes ;; esac
  prev="$a"
done
if [ -z "$inc" ] || [ "$defines" = yes ] || [ ! -f "$inc/fusebox_runtime.cuh" ]; then
  exec $real "$@"
fi
flags="-O2 -std=c++20 -fPIC -fvisibility=hidden -Wno-unknown-pragmas"
pch="$inc/../fuzz-pch"
if [ ! -f "$pch/fusebox_runtime.cuh.gch" ]; then
  mkdir -p "$pch"
  $real $flags -Wno-pragma-once-outside-header -I "$inc" -x c++-header "$inc/fusebox_runtime.cuh" \
    -o "$pch/fusebox_runtime.cuh.gch.$$" 2>/dev/null &&
    mv "$pch/fusebox_runtime.cuh.gch.$$" "$pch/fusebox_runtime.cuh.gch"
fi
# The precompiled header's folder comes first: GCC takes the .gch there when
# it fits the flags, and the header itself otherwise.
exec $real -I "$pch" "$@"
