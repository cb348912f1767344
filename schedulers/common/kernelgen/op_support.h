// Which ops the kernel generators can write element code for. Every kernel
// scheduler refuses a segment holding another op with the reason this gives,
// so the segmenter leaves that op to the fallback (expr_eval) instead of
// handing the code generator something it would get wrong.
#pragma once

#include <fusebox/ir/fusion.h>

#include <string>

namespace fusebox::kernelgen {

// Whether the caller's kernels read at run-time indices (element_indexing.cpp:
// the pointwise scheduler's do; the reduction and persistent kernels' loops
// do not take them yet).
enum class IndirectLoads { Supported, Refused };

// Why no kernel of the caller computes `e` ("" when one can): scatter writes
// at run-time indices, the other indexing ops (index_select, select, gather,
// take_along_axis) read at them, and scans carry a value along a dim.
std::string unsupportedOpProblem(const Expr* e, IndirectLoads indirect = IndirectLoads::Refused);
// The first such problem of the segment's expressions, or "".
std::string unsupportedOpProblem(const Fusion& segment,
                                 IndirectLoads indirect = IndirectLoads::Refused);

}  // namespace fusebox::kernelgen
