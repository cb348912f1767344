// Index math of the pointwise scheduler: the position a tensor element is read
// from, written as a function of the iteration index (the reference output's
// logical index i0, i1, ...). Most ops keep that function affine (a constant
// plus one coefficient per iteration dim), which is what lets the heuristics
// merge dims and vectorize; reshapes that split a dim make it opaque text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fusebox::pointwise {

// c + sum_d coef[d] * i<d>
struct Affine {
  int64_t c = 0;
  std::vector<int64_t> coef;
  bool isConstant() const;
};

// One dim's index: affine, or opaque C++ text in terms of i<d> and idx_t.
struct IndexExpr {
  bool affine = true;
  Affine a;
  std::string text;  // !affine

  static IndexExpr constant(int64_t c, size_t iter_rank);
  static IndexExpr iterDim(int64_t d, size_t iter_rank);
  static IndexExpr opaque(std::string text);
  // C++ text of the value (in terms of i<d>).
  std::string str() const;
  // this + delta
  IndexExpr plus(int64_t delta) const;
  // start + this * step
  IndexExpr scaled(int64_t start, int64_t step) const;
};
using Index = std::vector<IndexExpr>;

// Memo key of an index: equal keys mean equal index values.
std::string indexKey(const Index& index);

// Operand index of an elementwise op: operands align on the right; a dim of
// size 1 is read at 0 (it broadcasts, as the evaluator's stride-0 rule).
Index alignRight(const Index& out, const std::vector<int64_t>& operand_sizes, size_t iter_rank);
// Reshape: row-major linear position of `out` over out_sizes, delinearized over in_sizes.
Index reshapeIndex(const Index& out, const std::vector<int64_t>& out_sizes,
                   const std::vector<int64_t>& in_sizes, size_t iter_rank);
// Linear memory offset sum_k index[k] * strides[k]: affine when every dim is.
IndexExpr linearOffset(const Index& index, const std::vector<int64_t>& sizes,
                       const std::vector<int64_t>& strides, size_t iter_rank);

}  // namespace fusebox::pointwise
