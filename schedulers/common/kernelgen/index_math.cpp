// Affine and opaque index expressions, and the iteration space (index_math.h).
#include "index_math.h"

#include <fmt/format.h>

namespace fusebox::kernelgen {

bool Affine::isConstant() const {
  for (int64_t k : coef)
    if (k != 0) return false;
  return true;
}

IndexExpr IndexExpr::constant(int64_t c, size_t iter_rank) {
  IndexExpr e;
  e.a.c = c;
  e.a.coef.assign(iter_rank, 0);
  return e;
}

IndexExpr IndexExpr::iterDim(int64_t d, size_t iter_rank) {
  IndexExpr e = constant(0, iter_rank);
  e.a.coef[static_cast<size_t>(d)] = 1;
  return e;
}

IndexExpr IndexExpr::opaque(std::string text) {
  IndexExpr e;
  e.affine = false;
  e.text = std::move(text);
  return e;
}

std::string IndexExpr::str(const IterSpace& space) const {
  if (!affine) return text;
  std::string s;
  for (size_t d = 0; d < a.coef.size(); ++d) {
    const int64_t k = a.coef[d];
    if (k == 0) continue;
    if (!s.empty()) s += " + ";
    s += k == 1 ? space.names[d] : fmt::format("{} * {}", space.names[d], k);
  }
  if (s.empty()) return fmt::format("{}", a.c);
  if (a.c != 0) s += fmt::format(" + {}", a.c);
  return "(" + s + ")";
}

IndexExpr IndexExpr::plus(int64_t delta) const {
  if (delta == 0) return *this;
  if (!affine) return opaque(fmt::format("({} + {})", text, delta));
  IndexExpr e = *this;
  e.a.c += delta;
  return e;
}

IndexExpr IndexExpr::scaled(int64_t start, int64_t step) const {
  if (!affine) return opaque(fmt::format("({} + {} * {})", start, text, step));
  IndexExpr e = *this;
  e.a.c = start + e.a.c * step;
  for (int64_t& k : e.a.coef) k *= step;
  return e;
}

IterSpace IterSpace::named(std::vector<int64_t> sizes, const std::string& prefix) {
  IterSpace space;
  for (size_t d = 0; d < sizes.size(); ++d) space.names.push_back(fmt::format("{}{}", prefix, d));
  space.sizes = std::move(sizes);
  return space;
}

Index IterSpace::index() const {
  Index idx;
  for (size_t d = 0; d < rank(); ++d)
    idx.push_back(sizes[d] == 1 ? IndexExpr::constant(0, rank())
                                : IndexExpr::iterDim(static_cast<int64_t>(d), rank()));
  return idx;
}

std::string indexKey(const Index& index, const IterSpace& space) {
  std::string key;
  for (const IndexExpr& e : index) key += e.str(space) + ";";
  return key;
}

Index alignRight(const Index& out, const std::vector<int64_t>& operand_sizes,
                 const IterSpace& space) {
  const size_t iter_rank = space.rank();
  const size_t rank = operand_sizes.size();
  Index in;
  for (size_t k = 0; k < rank; ++k) {
    if (operand_sizes[k] == 1)
      in.push_back(IndexExpr::constant(0, iter_rank));
    else
      in.push_back(out[out.size() - rank + k]);
  }
  return in;
}

IndexExpr linearOffset(const Index& index, const std::vector<int64_t>& sizes,
                       const std::vector<int64_t>& strides, const IterSpace& space) {
  const size_t iter_rank = space.rank();
  IndexExpr sum = IndexExpr::constant(0, iter_rank);
  std::string text;
  bool affine = true;
  for (size_t k = 0; k < index.size(); ++k) {
    if (sizes[k] == 1 || strides[k] == 0) continue;  // always index 0, or broadcast in memory
    const IndexExpr& e = index[k];
    if (e.affine) {
      sum.a.c += e.a.c * strides[k];
      for (size_t d = 0; d < iter_rank; ++d) sum.a.coef[d] += e.a.coef[d] * strides[k];
    } else {
      affine = false;
    }
    text += fmt::format("{}{} * {}", text.empty() ? "" : " + ", e.str(space), strides[k]);
  }
  if (affine) return sum;
  return IndexExpr::opaque("(" + text + ")");
}

Index reshapeIndex(const Index& out, const std::vector<int64_t>& out_sizes,
                   const std::vector<int64_t>& in_sizes, const IterSpace& space) {
  const size_t iter_rank = space.rank();
  // Row-major linear position over the output's sizes.
  std::vector<int64_t> row_strides(out_sizes.size(), 1);
  for (size_t k = out_sizes.size(); k-- > 1;) row_strides[k - 1] = row_strides[k] * out_sizes[k];
  const IndexExpr linear = linearOffset(out, out_sizes, row_strides, space);
  Index in;
  int64_t inner = 1;
  std::vector<int64_t> in_inner(in_sizes.size(), 1);
  for (size_t k = in_sizes.size(); k-- > 0;) {
    in_inner[k] = inner;
    inner *= in_sizes[k];
  }
  const int64_t total = inner;
  for (size_t k = 0; k < in_sizes.size(); ++k) {
    if (in_sizes[k] == 1) {
      in.push_back(IndexExpr::constant(0, iter_rank));
      continue;
    }
    const bool needs_div = in_inner[k] != 1;
    const bool needs_mod = in_inner[k] * in_sizes[k] != total;
    if (!needs_div && !needs_mod) {
      in.push_back(linear);
      continue;
    }
    std::string t = linear.str(space);
    if (needs_div) t = fmt::format("({} / {})", t, in_inner[k]);
    if (needs_mod) t = fmt::format("({} % {})", t, in_sizes[k]);
    in.push_back(IndexExpr::opaque(t));
  }
  return in;
}

}  // namespace fusebox::kernelgen
