// Op families that read at indices or along a dim: index_select, select,
// gather, take_along_axis, scatter, embedding_fwd, the scans, argsort, topk
// and triu.
// Indices are made in the script from iota (0..n-1, its reverse, or one index
// repeated), broadcast to the shape an op wants, so every index is in range by
// construction: a refusal is a finding.
#include <fmt/format.h>

#include "generator_internal.h"

namespace fusebox::fuzz {

namespace {

std::string sizeList(const std::vector<int64_t>& v) {
  return fmt::format("[{}]", fmt::join(v, ", "));
}

// A dim as the script writes it: sometimes counted from the end.
std::string dimText(Generator& g, int64_t d, int64_t rank) {
  return std::to_string(g.chance(0.3) ? d - rank : d);
}

// An Int tensor of `length` indices into a dim of `size` (> 0): 0, 1, ...
// or its reverse when `distinct` or by chance (then length <= size), else
// one index repeated. Its name, or "" when the statement was dropped.
std::string indexVector(Generator& g, int64_t size, int64_t length, bool distinct) {
  int64_t start = g.between(0, size - 1), step = 0;
  if (distinct || g.chance(0.6)) {
    length = std::min(length, size);
    const bool up = g.chance(0.5);
    start = up ? 0 : size - 1;
    step = up ? 1 : -1;
  }
  const std::string rhs = fmt::format("fd.ops.iota({}, {}, {}, dtype=DataType.Int)",
                                      g.intArgument(length), start, step);
  if (!g.tryTensor(rhs, {}, true, /*must_accept=*/true)) return "";
  return g.tensors.back().name;
}

// The index vector `index` along dim d of a tensor of `sizes` (entry d is
// the vector's length): a stride-0 broadcast over the other dims.
std::string indexTensor(Generator& g, const std::string& index, const std::vector<int64_t>& sizes,
                        int64_t d) {
  if (sizes.size() == 1) return index;
  const std::string rhs = fmt::format("fd.ops.broadcast_in_dim({}, shape={}, broadcast_dims=[{}])",
                                      index, sizeList(sizes), d);
  if (!g.tryTensor(rhs, {g.tensorOperand(g.tensors.back())}, true, /*must_accept=*/true)) return "";
  return g.tensors.back().name;
}

}  // namespace

bool Generator::genIndexing() {
  static const std::vector<const char*> ops = {"index_select",    "select",  "gather",
                                               "take_along_axis", "scatter", "embedding_fwd"};
  const std::string op = pick(ops);
  const bool embedding = op == "embedding_fwd";
  const TensorVar* x = pickTensor([&](const TensorVar& t) {
    if (embedding) return t.rank() == 2 && t.sizes[0] > 0;
    return t.rank() > 0 && t.numel() > 0;
  });
  if (x == nullptr) return false;
  const TensorVar input = *x;  // new statements may grow the pool
  const int64_t rank = input.rank();
  const int64_t d = embedding ? 0 : between(0, rank - 1);
  const int64_t n = input.sizes[static_cast<size_t>(d)];
  const Operand ox = tensorOperand(input);
  if (op == "select") {
    return tryTensor(fmt::format("fd.ops.select({}, {}, dim={})", input.name, between(-n, n - 1),
                                 dimText(*this, d, rank)),
                     {ox}, true, true);
  }
  const int64_t length = between(1, std::max<int64_t>(n + 2, 2));
  const std::string index = indexVector(*this, n, length, op == "scatter");
  if (index.empty()) return false;
  const int64_t index_length = tensors.back().sizes[0];
  if (op == "index_select")
    return tryTensor(fmt::format("fd.ops.index_select({}, {}, dim={})", input.name, index,
                                 dimText(*this, d, rank)),
                     {ox}, true, true);
  if (embedding) {
    std::string ids = index;
    if (chance(0.4)) {  // 2-D ids: each row the same indices
      ids = indexTensor(*this, index, {between(1, 3), index_length}, 1);
      if (ids.empty()) return false;
    }
    return tryTensor(fmt::format("fd.ops.embedding_fwd({}, {})", ids, input.name), {ox}, true,
                     true);
  }
  // gather, take_along_axis, scatter: an index of x's rank. Outside d it is
  // x's size, or 1 (take_along_axis broadcasts it; gather takes fewer rows).
  std::vector<int64_t> shape = input.sizes;
  shape[static_cast<size_t>(d)] = index_length;
  for (int64_t k = 0; k < rank; ++k)
    if (k != d && op != "scatter" && chance(0.3)) shape[static_cast<size_t>(k)] = 1;
  const std::string full = indexTensor(*this, index, shape, d);
  if (full.empty()) return false;
  if (op == "scatter") {
    // src: x itself (its dtype, no smaller than the index), or a scalar.
    const std::string src =
        chance(0.5) ? input.name : literal(computeType(input.dtype), /*small=*/true);
    return tryTensor(fmt::format("fd.ops.scatter({}, {}, {}, dim={})", input.name, full, src,
                                 dimText(*this, d, rank)),
                     {ox}, true, true);
  }
  return tryTensor(
      fmt::format("fd.ops.{}({}, {}, dim={})", op, input.name, full, dimText(*this, d, rank)), {ox},
      true, true);
}

bool Generator::genScan() {
  static const std::vector<const char*> ops = {"cumsum", "cumprod", "cummax", "cummin"};
  const std::string op = pick(ops);
  const TensorVar* x = pickTensor([](const TensorVar& t) { return t.rank() > 0 && tame(t); });
  if (x == nullptr) return false;
  const int64_t d = between(0, x->rank() - 1);
  const bool extremum = op == "cummax" || op == "cummin";
  // cumsum and cumprod of floats round (once per element here, per step in
  // a kernel); of integers they are exact, widened to int64.
  const bool exact = extremum || !isFloatingType(x->dtype);
  const DataType result = extremum || isFloatingType(x->dtype) ? x->dtype : DataType::Int64;
  if (op == "cumprod" &&
      !productFitsAccumulator(x->max_abs, x->sizes[static_cast<size_t>(d)], result))
    return false;
  return tryTensor(fmt::format("fd.ops.{}({}, dim={})", op, x->name, dimText(*this, d, x->rank())),
                   {tensorOperand(*x)}, exact, true);
}

bool Generator::genSort() {
  // Exact values only: values rounded differently by a kernel could tie or
  // trade places where the evaluator's do not.
  const TensorVar* x = pickTensor([](const TensorVar& t) { return t.rank() > 0 && t.exact; });
  if (x == nullptr) return false;
  const int64_t d = between(0, x->rank() - 1);
  const Operand o = tensorOperand(*x);
  auto flag = [&] { return chance(0.5) ? "True" : "False"; };
  if (chance(0.5))
    return tryTensor(fmt::format("fd.ops.argsort({}, dim={}, descending={}, stable={})", x->name,
                                 dimText(*this, d, x->rank()), flag(), flag()),
                     {o}, true, true);
  const int64_t k = between(0, x->sizes[static_cast<size_t>(d)]);
  NewVar values = resultOf(newName('T'), {o}, true), indices = resultOf(newName('T'), {o}, true);
  return tryStatement({values, indices},
                      fmt::format("fd.ops.topk({}, {}, dim={}, largest={}, sorted={})", x->name, k,
                                  dimText(*this, d, x->rank()), flag(), flag()));
}

bool Generator::genTriu() {
  const TensorVar* x = pickTensor([](const TensorVar& t) { return t.rank() >= 2; });
  if (x == nullptr) return false;
  return tryTensor(fmt::format("fd.ops.triu({}, {})", x->name, between(-2, 2)), {tensorOperand(*x)},
                   true, true);
}

}  // namespace fusebox::fuzz
