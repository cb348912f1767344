// Affine and opaque index expressions, and the iteration space (index_math.h).
#include "kernelgen/index_math.h"

#include <fmt/format.h>

#include "kernelgen/size_literals.h"

namespace fusebox::kernelgen {

namespace {

// An expression's text with its integers through `literals` (null: literals).
std::string render(const IndexExpr& e, const IterSpace& space, SizeLiterals* literals,
                   const std::string& role) {
  if (!e.affine) return e.text;
  std::string s;
  for (size_t d = 0; d < e.a.coef.size(); ++d) {
    const int64_t k = e.a.coef[d];
    if (k == 0) continue;
    if (!s.empty()) s += " + ";
    s += k == 1 ? space.names[d]
                : fmt::format("{} * {}", space.names[d],
                              sizeText(literals, k, role + "*" + space.names[d]));
  }
  for (const auto& [var, k] : e.a.terms) {
    if (k == 0) continue;
    if (!s.empty()) s += " + ";
    s += k == 1 ? var : fmt::format("{} * {}", var, sizeText(literals, k, role + "*" + var));
  }
  // A constant that is a parameter prints even where it is 0 (Affine::c_param).
  const bool param = e.a.c_param && literals != nullptr;
  const std::string c =
      param ? literals->parameter(e.a.c, role + "+") : sizeText(literals, e.a.c, role + "+");
  if (s.empty()) return c;
  if (e.a.c != 0 || param) s += " + " + c;
  return "(" + s + ")";
}

}  // namespace

bool Affine::isConstant() const {
  if (!terms.empty()) return false;
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

std::string IndexExpr::str(const IterSpace& space, const std::string& role) const {
  return render(*this, space, space.literals, role);
}

IndexExpr IndexExpr::plus(int64_t delta, const IterSpace& space, const std::string& role,
                          bool param) const {
  param &= space.symbolic();
  if (delta == 0 && !param) return *this;
  if (!affine) {
    const std::string d =
        param ? space.parameter(delta, role + "+") : space.literal(delta, role + "+");
    return opaque(fmt::format("({} + {})", text, d));
  }
  IndexExpr e = *this;
  e.a.c += delta;
  e.a.c_param |= param;
  return e;
}

IndexExpr IndexExpr::scaled(int64_t start, int64_t step, const IterSpace& space,
                            const std::string& role, bool param) const {
  param &= space.symbolic();
  if (!affine) {
    const std::string s =
        param ? space.parameter(start, role + "+") : space.literal(start, role + "+");
    return opaque(fmt::format("({} + {} * {})", s, text, space.literal(step, role + "*")));
  }
  IndexExpr e = *this;
  e.a.c = start + e.a.c * step;
  e.a.c_param |= param;
  for (int64_t& k : e.a.coef) k *= step;
  for (auto& term : e.a.terms) term.second *= step;
  return e;
}

bool IterSpace::symbolic() const {
  return literals != nullptr && literals->symbolic();
}

std::string IterSpace::literal(int64_t value, const std::string& role) const {
  return sizeText(literals, value, role);
}

std::string IterSpace::parameter(int64_t value, const std::string& role) const {
  return literals != nullptr ? literals->parameter(value, role) : fmt::format("{}", value);
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
  for (const IndexExpr& e : index)
    key += render(e, space, nullptr, "") + (e.affine && e.a.c_param ? "$;" : ";");
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
                       const std::vector<int64_t>& strides, const IterSpace& space,
                       const std::string& role) {
  const size_t iter_rank = space.rank();
  // Always index 0, or broadcast in memory: no term.
  auto skipped = [&](size_t k) { return sizes[k] == 1 || strides[k] == 0; };
  IndexExpr sum = IndexExpr::constant(0, iter_rank);
  bool affine = true;
  for (size_t k = 0; k < index.size(); ++k) {
    if (skipped(k)) continue;
    const IndexExpr& e = index[k];
    if (!e.affine) {
      affine = false;
      continue;
    }
    sum.a.c += e.a.c * strides[k];
    sum.a.c_param |= e.a.c_param;
    for (size_t d = 0; d < iter_rank; ++d) sum.a.coef[d] += e.a.coef[d] * strides[k];
    for (const auto& [var, coef] : e.a.terms) sum.a.terms.emplace_back(var, coef * strides[k]);
  }
  if (affine) return sum;
  // Text only when opaque: it prints (and so may take parameters for) the strides.
  std::string text;
  for (size_t k = 0; k < index.size(); ++k) {
    if (skipped(k)) continue;
    const std::string dim = fmt::format("{}@{}", role, k);
    text += fmt::format("{}{} * {}", text.empty() ? "" : " + ", index[k].str(space, dim),
                        space.literal(strides[k], dim));
  }
  return IndexExpr::opaque("(" + text + ")");
}

Index reshapeIndex(const Index& out, const std::vector<int64_t>& out_sizes,
                   const std::vector<int64_t>& in_sizes, const IterSpace& space,
                   const std::string& role) {
  const size_t iter_rank = space.rank();
  // Row-major linear position over the output's sizes.
  std::vector<int64_t> row_strides(out_sizes.size(), 1);
  for (size_t k = out_sizes.size(); k-- > 1;) row_strides[k - 1] = row_strides[k] * out_sizes[k];
  const IndexExpr linear = linearOffset(out, out_sizes, row_strides, space, role + "~");
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
    std::string t = linear.str(space, role + "~");
    if (needs_div)
      t = fmt::format("({} / {})", t, space.literal(in_inner[k], fmt::format("{}/{}", role, k)));
    if (needs_mod)
      t = fmt::format("({} % {})", t, space.literal(in_sizes[k], fmt::format("{}%{}", role, k)));
    in.push_back(IndexExpr::opaque(t));
  }
  return in;
}

}  // namespace fusebox::kernelgen
