// The printer of the kernel IR: CUDA C++ text from it. Every built-in kernel
// is built through the IR and printed here alone (docs/kernel-ir.md); the
// host backend compiles the same text.
#pragma once

#include <string>

#include "kernel_ir/kernel_ir.h"

namespace fusebox::kir {

// A value as a C++ expression, with the parentheses precedence needs.
std::string printValue(const Value& v);
// The block's statements, one per line (loops and branches over several),
// indented two spaces per level from `indent`.
std::string printCuda(const Block& block, int indent = 1);

}  // namespace fusebox::kir
