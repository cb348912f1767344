// What the no_op scheduler needs to know: which segment outputs are views of a
// segment input (reached only through ops that move no data), and the strided
// layout each view op gives its output.
#pragma once

#include <fusebox/ir/fusion.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusebox::no_op {

// The ops whose output can be a strided view of their tensor operand.
bool isViewOp(OpType op);

// How one segment output is reached, found from the IR alone. Indices, not
// pointers: the facts are cached per segment *structure* and reused for other
// fusions of the same structure.
struct OutputSource {
  // A view chain: segment input `input` through tensorExprs()[chain[0]], ...
  bool is_view = false;
  int64_t input = -1;
  std::vector<int64_t> chain;
  // Otherwise: the first expression (index into tensorExprs()) that computes
  // values, or -1 when the output is a scalar.
  int64_t computing_expr = -1;
};

struct SegmentFacts {
  std::vector<OutputSource> outputs;
};
SegmentFacts analyzeSegment(const Fusion& segment);

// A strided layout in elements.
struct Layout {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};

// The strides that show a tensor of (sizes, strides) as `new_sizes` without
// moving data, or nullopt when no such strides exist (the reshape would need a
// copy). Element counts must match.
std::optional<std::vector<int64_t>> reshapeStrides(const std::vector<int64_t>& sizes,
                                                   const std::vector<int64_t>& strides,
                                                   const std::vector<int64_t>& new_sizes);

// The layout of view op `e`'s output given its tensor operand's layout and the
// output's sizes, or nullopt with `why` set when it is not a view.
std::optional<Layout> viewLayout(const Expr* e, const Layout& in,
                                 const std::vector<int64_t>& out_sizes, std::string* why);

std::string joinInts(const std::vector<int64_t>& v);

}  // namespace fusebox::no_op
