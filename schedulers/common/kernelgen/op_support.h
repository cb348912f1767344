// Which ops the kernel generators can write element code for. Every kernel
// scheduler refuses a segment holding another op with the reason this gives,
// so the segmenter leaves that op to the fallback (expr_eval) instead of
// handing the code generator something it would get wrong.
#pragma once

#include <fusebox/ir/fusion.h>

#include <string>

namespace fusebox::kernelgen {

// Why no generated kernel computes `e` ("" when one can): indexing ops
// (index_select, select, gather, take_along_axis, scatter) read or write at
// run-time indices, scans carry a value along a dim, and signbit, nextafter,
// gcd and logical_right_shift have no element code in the kernel runtime yet.
std::string unsupportedOpProblem(const Expr* e);
// The first such problem of the segment's expressions, or "".
std::string unsupportedOpProblem(const Fusion& segment);

}  // namespace fusebox::kernelgen
