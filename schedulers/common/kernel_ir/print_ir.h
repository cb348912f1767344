// The readable dump of the kernel IR (`--dump kernel_ir`): the statement tree
// with its structure spelled out (declarations with their types, loops with
// their variable, bound and step, unrolling, text the IR holds as such
// marked with `|`), values in C++ syntax.
#pragma once

#include <string>

#include "kernel_ir/kernel_ir.h"

namespace fusebox::kir {

std::string printIr(const Block& block, int indent = 0);

}  // namespace fusebox::kir
