// fd.ops entries that make no op of their own: addcmul, written with mul and
// add as it is read, and stride_order, a set whose output carries the layout.
#include <fmt/format.h>
#include <fusebox/ir/ops.h>

#include <optional>

#include "frontend/op_table_internal.h"

namespace fusebox::frontend::op_table {
namespace {

std::string entries(size_t n) {
  return fmt::format("{} entr{}", n, n == 1 ? "y" : "ies");
}

// "a permutation of 0..2" / "an empty list" for a rank-0 tensor.
std::string permutationOf(int64_t rank) {
  return rank == 0 ? std::string("an empty list") : fmt::format("a permutation of 0..{}", rank - 1);
}

// stride_order of `x` (argument 0): one entry per dim, each of 0..rank-1 once.
void checkStrideOrder(const std::vector<int64_t>& order, const TensorView* x, const BoundArgs& a) {
  const int64_t rank = x->nDims();
  const SourceLocation& where = a.at(1).where;
  if (static_cast<int64_t>(order.size()) != rank)
    throw UserError(where, fmt::format("{}: stride_order has {}, but {} has {} dims (expected {})",
                                       a.function(), entries(order.size()), describeValue(a.at(0)),
                                       rank, permutationOf(rank)));
  std::vector<bool> seen(order.size(), false);
  for (int64_t d : order) {
    std::string why;
    if (d < 0 || d >= rank)
      why = fmt::format("{} is out of range", d);
    else if (seen[d])
      why = fmt::format("{} appears twice", d);
    else
      seen[d] = true;
    if (!why.empty())
      throw UserError(where, fmt::format("{}: stride_order [{}] is not {} ({})", a.function(),
                                         fmt::join(order, ", "), permutationOf(rank), why));
  }
}

// The constant size of `id`, or nullopt where it is symbolic or a broadcast.
std::optional<int64_t> fixedSize(const IterDomain* id) {
  const Scalar* size = id->hasExpandedExtent() ? id->expandedExtent()
                       : id->isBroadcast()     ? nullptr
                                               : id->extent();
  if (size == nullptr || !size->isConst()) return std::nullopt;
  return toInt(*size->value());
}

// addcmul's tensor operands (arguments 0..2) broadcast together. Checked
// here so that the error names them rather than a product made from them.
void checkBroadcastable(const BoundArgs& a) {
  static const char* const kNames[] = {"input", "tensor1", "tensor2"};
  auto name = [&](size_t i) {
    const PyValue& v = a.at(i);
    return fmt::format("{} ({})", kNames[i], v.var.empty() ? v.val->toString() : describeValue(v));
  };
  for (int64_t from_end = 1;; ++from_end) {
    bool any = false;
    std::optional<int64_t> size;
    size_t first = 0;
    for (size_t i = 0; i < 3; ++i) {
      if (a.at(i).kind != PyValue::Kind::Tensor) continue;
      const auto dims = a.at(i).val->as<TensorView>()->logicalNoReductions();
      if (static_cast<int64_t>(dims.size()) < from_end) continue;
      any = true;
      std::optional<int64_t> s = fixedSize(dims[dims.size() - from_end]);
      if (!s || *s == 1) continue;
      if (size && *s != *size)
        throw UserError(a.where(),
                        fmt::format("{}: {} has size {} at dim -{}, but {} has size "
                                    "{} there (the operands must broadcast together)",
                                    a.function(), name(i), *s, from_end, name(first), *size));
      if (!size) {
        size = s;
        first = i;
      }
    }
    if (!any) return;
  }
}

// torch.addcmul(input, tensor1, tensor2, value=value): input + value * tensor1
// * tensor2 with PyTorch's promotion (value takes no part in it) and its
// evaluation order, computed in float32 for half types as torch's opmath is.
Val* addcmul(Fusion& f, const BoundArgs& a) {
  Val* input = asOperand(f, a.at(0), a.context(0));
  Val* t1 = asOperand(f, a.at(1), a.context(1));
  Val* t2 = asOperand(f, a.at(2), a.context(2));
  Scalar* value = asScalar(f, a.at(3), a.context(3));
  const DataType out = resultType({{input->dtype(), input->isTensor()},
                                   {t1->dtype(), t1->isTensor()},
                                   {t2->dtype(), t2->isTensor()}});
  checkBroadcastable(a);
  if (isBoolType(out))
    throw UserError(a.where(), fmt::format("{}: Bool operands are not supported (torch.addcmul "
                                           "has no Bool kernel); cast them to an integer type",
                                           a.function()));
  if (!isFloatingType(out) && isFloatingType(value->dtype()))
    throw UserError(a.at(3).where,
                    fmt::format("{}: value {} is a floating-point number, but input, tensor1 and "
                                "tensor2 promote to {}; as torch.addcmul, integer operands take an "
                                "integer value",
                                a.function(), describeValue(a.at(3)), pythonName(out)));
  const DataType compute = computeType(out);
  auto widen = [&](Val* v) { return v->dtype() == compute ? v : castOp(compute, v); };
  if (compute != out) {
    input = widen(input);
    t1 = widen(t1);
    t2 = widen(t2);
  }
  Val* r = add(input, mul(mul(value, t1), t2));
  return r->dtype() == out ? r : castOp(out, r);
}

}  // namespace

void addCompositeAndLayout(OpMap& t) {
  // torch's argument names; nvFuser's binding has none (positional only).
  t["addcmul"] = {{req({"input", "arg1"}), req({"tensor1", "arg2"}), req({"tensor2", "arg3"}),
                   req({"value", "arg4"})},
                  [](Fusion& f, const BoundArgs& a) { return result(addcmul(f, a), a); }};
  // nvFuser's stride_order: a copy (set) whose output is laid out in
  // `stride_order` (entry i ranks dim i, 0 = innermost); an empty list keeps
  // the default layout, as nvfuser_direct. The order goes on the output's
  // allocation domain and, since a row-major order is no allocation domain at
  // all, into the returned value too, where add_output finds it
  // (strideOrderOf).
  t["stride_order"] = {{req({"arg"}), req({"stride_order"})}, [](Fusion&, const BoundArgs& a) {
                         TensorView* x = asTensor(a.at(0), a.context(0));
                         std::vector<int64_t> order = asIntList(a.at(1), a.context(1));
                         if (!order.empty()) checkStrideOrder(order, x, a);
                         TensorView* out = set(x);
                         if (!order.empty()) out->setStrideOrder(order);
                         PyValue r = result(out, a);
                         for (int64_t d : order) r.items.push_back(PyValue::integer(d, a.where()));
                         return r;
                       }};
}

}  // namespace fusebox::frontend::op_table

namespace fusebox::frontend {

std::vector<int64_t> strideOrderOf(const PyValue& v) {
  std::vector<int64_t> order;
  if (v.kind == PyValue::Kind::Tensor)
    for (const PyValue& item : v.items) order.push_back(item.i);
  return order;
}

}  // namespace fusebox::frontend
