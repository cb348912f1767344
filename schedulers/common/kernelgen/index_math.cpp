// Affine and opaque index expressions, and the iteration space (index_math.h).
#include "kernelgen/index_math.h"

#include <fmt/format.h>
#include <fusebox/checked_math.h>

#include "kernel_ir/print_cuda.h"

#include "kernelgen/size_literals.h"

namespace fusebox::kernelgen {

namespace {

// a + b and a * b on coefficients and constants, checked (index_math.h).
int64_t addChecked(int64_t a, int64_t b) {
  return checked::orThrow(checked::add(a, b), "an index constant of a generated kernel");
}
int64_t mulChecked(int64_t a, int64_t b) {
  return checked::orThrow(checked::mul(a, b), "an index coefficient of a generated kernel");
}

// An expression's value with its integers through `literals` (null: literals).
kir::Value render(const IndexExpr& e, const IterSpace& space, SizeLiterals* literals,
                  const std::string& role) {
  if (!e.affine) return e.opaque_value;
  std::vector<kir::Value> terms;
  // x * k, the coefficient's role after the variable's name.
  auto term = [&](const kir::Value& x, const std::string& name, int64_t k) {
    if (k == 0) return;
    terms.push_back(k == 1 ? x : x * sizeValue(literals, k, role + "*" + name));
  };
  for (size_t d = 0; d < e.a.coef.size(); ++d) term(space.indexVar(d), space.names[d], e.a.coef[d]);
  for (const auto& [var, k] : e.a.terms) term(indexVariable(var), var, k);
  // A constant that is a parameter is one even where it is 0 (Affine::c_param).
  const bool param = e.a.c_param && literals != nullptr;
  const kir::Value c =
      param ? literals->parameter(e.a.c, role + "+") : sizeValue(literals, e.a.c, role + "+");
  if (terms.empty()) return c;
  if (e.a.c != 0 || param) terms.push_back(c);
  return kir::sumOf(terms);
}

}  // namespace

kir::Value indexVariable(const std::string& name) {
  return kir::var(name, kir::indexType());
}

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

IndexExpr IndexExpr::opaque(kir::Value value) {
  IndexExpr e;
  e.affine = false;
  e.opaque_value = std::move(value);
  return e;
}

kir::Value IndexExpr::value(const IterSpace& space, const std::string& role) const {
  return render(*this, space, space.literals, role);
}

IndexExpr IndexExpr::plus(int64_t delta, const IterSpace& space, const std::string& role,
                          bool param) const {
  param &= space.symbolic();
  if (delta == 0 && !param) return *this;
  if (!affine)
    return opaque(opaque_value +
                  (param ? space.parameter(delta, role + "+") : space.literal(delta, role + "+")));
  IndexExpr e = *this;
  e.a.c = addChecked(e.a.c, delta);
  e.a.c_param |= param;
  return e;
}

IndexExpr IndexExpr::scaled(int64_t start, int64_t step, const IterSpace& space,
                            const std::string& role, bool param) const {
  param &= space.symbolic();
  if (!affine) {
    // Simplified as the affine form is: no `* 1`, no `0 +` (unless a parameter).
    const kir::Value times =
        step == 1 ? opaque_value : opaque_value * space.literal(step, role + "*");
    if (start == 0 && !param) return opaque(times);
    return opaque((param ? space.parameter(start, role + "+") : space.literal(start, role + "+")) +
                  times);
  }
  IndexExpr e = *this;
  e.a.c = addChecked(start, mulChecked(e.a.c, step));
  e.a.c_param |= param;
  for (int64_t& k : e.a.coef) k = mulChecked(k, step);
  for (auto& term : e.a.terms) term.second = mulChecked(term.second, step);
  return e;
}

bool IterSpace::symbolic() const {
  return literals != nullptr && literals->symbolic();
}

kir::Value IterSpace::literal(int64_t value, const std::string& role) const {
  return sizeValue(literals, value, role);
}

kir::Value IterSpace::parameter(int64_t value, const std::string& role) const {
  return literals != nullptr ? literals->parameter(value, role) : kir::lit(value);
}

kir::Value IterSpace::indexVar(size_t d) const {
  if (d < values.size() && values[d].defined()) return values[d];
  return indexVariable(names.at(d));
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
    key += kir::printValue(render(e, space, nullptr, "")) + (e.affine && e.a.c_param ? "$;" : ";");
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
    sum.a.c = addChecked(sum.a.c, mulChecked(e.a.c, strides[k]));
    sum.a.c_param |= e.a.c_param;
    for (size_t d = 0; d < iter_rank; ++d)
      sum.a.coef[d] = addChecked(sum.a.coef[d], mulChecked(e.a.coef[d], strides[k]));
    for (const auto& [var, coef] : e.a.terms)
      sum.a.terms.emplace_back(var, mulChecked(coef, strides[k]));
  }
  if (affine) return sum;
  // A value only when opaque: it is code (and so may take parameters for the strides).
  std::vector<kir::Value> terms;
  for (size_t k = 0; k < index.size(); ++k) {
    if (skipped(k)) continue;
    const std::string dim = fmt::format("{}@{}", role, k);
    const kir::Value at = index[k].value(space, dim);
    terms.push_back(strides[k] == 1 ? at : at * space.literal(strides[k], dim));
  }
  return IndexExpr::opaque(kir::sumOf(terms));
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
    kir::Value t = linear.value(space, role + "~");
    if (needs_div) t = t / space.literal(in_inner[k], fmt::format("{}/{}", role, k));
    if (needs_mod) t = t % space.literal(in_sizes[k], fmt::format("{}%{}", role, k));
    in.push_back(IndexExpr::opaque(t));
  }
  return in;
}

}  // namespace fusebox::kernelgen
