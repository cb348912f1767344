// fd.define_tensor in both of nvFuser's forms (shape + contiguity, and sizes +
// strides) and fd.from_pytorch. nvFuser calls a dim broadcast when its
// contiguity is None; one whose size is not 1 (a symbolic or fixed size with
// None, a stride of 0 among the strides) is an expanded broadcast: extent 1,
// expanded to its size, read with stride 0.
#include "frontend/define_tensor.h"

#include <fmt/format.h>
#include <fusebox/checked_math.h>
#include <fusebox/ir/ops.h>

#include <algorithm>
#include <numeric>

#include "frontend/input_views.h"
#include "frontend/inputs_list.h"
#include "frontend/op_table.h"

namespace fusebox::frontend {
namespace {

// The fusion input: the builder's defineTensor, with each expanded dim made
// as a size-1 broadcast and then given its expanded extent (-1: symbolic).
TensorView* defineInput(Fusion& f, const std::vector<int64_t>& shape, DataType dtype,
                        const std::vector<std::optional<bool>>& contiguity,
                        const std::vector<int64_t>& stride_order) {
  const size_t rank = shape.size();
  std::vector<int64_t> alloc(rank);
  std::iota(alloc.begin(), alloc.end(), 0);
  if (!stride_order.empty() && stride_order.size() == rank && isPermutation(stride_order))
    alloc = strideOrderToAllocationPermutation(stride_order);
  std::vector<int64_t> builder_shape = shape;
  std::vector<std::optional<int64_t>> expanded(rank);
  for (size_t k = 0; k < contiguity.size() && k < rank; ++k) {
    const int64_t d = alloc[k];
    if (!contiguity[k] && shape[d] != 1) {
      expanded[d] = shape[d];
      builder_shape[d] = 1;
    }
  }
  TensorView* tv = defineTensor(f, builder_shape, dtype, contiguity, stride_order);
  for (size_t d = 0; d < rank; ++d) {
    if (!expanded[d]) continue;
    IterDomain* id = tv->axis(static_cast<int64_t>(d));
    Scalar* size = *expanded[d] == -1 ? f.newScalar(DataType::Int64) : f.constantInt(*expanded[d]);
    f.concretizeDomain(id, id->extent(), IterType::Broadcast, size);
  }
  return tv;
}

// The shape + contiguity form. Contiguity follows the allocation order
// (outermost first), as in nvFuser.
PyValue shapeForm(Fusion& f, const std::string& fn, const CallArgs& args) {
  BoundArgs a(
      fn,
      {OpParam{{"shape", "symbolic_sizes"}, true}, OpParam{{"contiguity"}, false},
       OpParam{{"dtype"}, false}, OpParam{{"is_cpu"}, false}, OpParam{{"stride_order"}, false}},
      args);
  std::vector<int64_t> shape = asIntList(a.at(0), a.context(0));
  if (!a.at(0).isSequence()) throwWrongKind(a.at(0), "a list of sizes", a.context(0));
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < -1)
      throw UserError(
          a.at(0).items[i].where,
          fmt::format("size {} in {} must be -1 (symbolic) or >= 0", shape[i], a.context(0)));
  std::vector<int64_t> stride_order;
  if (a.has(4)) {
    stride_order = asIntList(a.at(4), a.context(4));
    if (!stride_order.empty() &&
        (stride_order.size() != shape.size() || !isPermutation(stride_order)))
      throw UserError(a.at(4).where,
                      fmt::format("stride_order must be a permutation of 0..{} (one entry per dim)",
                                  static_cast<int64_t>(shape.size()) - 1));
  }
  std::vector<std::optional<bool>> contiguity;
  if (a.has(1)) {
    const PyValue& c = a.at(1);
    if (c.kind == PyValue::Kind::Bool) {
      std::vector<int64_t> perm = stride_order;
      if (stride_order.empty())
        for (size_t i = 0; i < shape.size(); ++i) perm.push_back(static_cast<int64_t>(i));
      else
        perm = strideOrderToAllocationPermutation(stride_order);
      for (int64_t d : perm)
        contiguity.push_back(shape[d] == 1 ? std::nullopt : std::optional<bool>(c.b));
    } else {
      if (!c.isSequence()) throwWrongKind(c, "a list of True/False/None or a bool", a.context(1));
      for (const PyValue& item : c.items) {
        if (item.kind == PyValue::Kind::None)
          contiguity.push_back(std::nullopt);
        else
          contiguity.push_back(asBool(item, a.context(1)));
      }
      if (!contiguity.empty() && contiguity.size() != shape.size())
        throw UserError(c.where,
                        fmt::format("contiguity has {} entries, expected {} (one per dim of shape)",
                                    contiguity.size(), shape.size()));
    }
  }
  DataType dtype = a.has(2) ? *asDataType(a.at(2), a.context(2), false) : DataType::Float;
  if (a.has(3)) asBool(a.at(3), a.context(3));  // is_cpu: accepted, tensors live on the host anyway
  return fromVal(defineInput(f, shape, dtype, contiguity, stride_order), args.where);
}

// Sizes and strides as nvFuser reads them (its define_tensor(sizes=, strides=)).
TensorView* stridedInput(Fusion& f, const std::vector<int64_t>& sizes,
                         const std::vector<int64_t>& strides, DataType dtype, bool static_sizes,
                         const SourceLocation& where) {
  if (sizes.size() != strides.size())
    throw UserError(where, fmt::format("{} sizes but {} strides", sizes.size(), strides.size()));
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0)
      throw UserError(where, fmt::format("size {} of dim {} is negative", sizes[i], i));
    if (strides[i] < 0)
      throw UserError(where, fmt::format("stride {} of dim {} is negative (nvFuser supports none)",
                                         strides[i], i));
  }
  checkedSizes(sizes, where, "the sizes of a tensor input");
  TensorLayout layout = layoutFromStrides(sizes, strides);
  // A size-1 dim is a broadcast; the others are symbolic unless static_sizes.
  std::vector<int64_t> shape;
  for (int64_t s : sizes) shape.push_back(static_sizes || s == 1 ? s : -1);
  return defineInput(f, shape, dtype, layout.contiguity, layout.stride_order);
}

PyValue stridesForm(Fusion& f, const std::string& fn, const CallArgs& args) {
  BoundArgs a(fn,
              {OpParam{{"sizes"}, true}, OpParam{{"strides"}, true}, OpParam{{"dtype"}, false},
               OpParam{{"static_sizes"}, false}, OpParam{{"is_cpu"}, false}},
              args);
  for (size_t i : {size_t{0}, size_t{1}})
    if (!a.at(i).isSequence()) throwWrongKind(a.at(i), "a list of ints", a.context(i));
  std::vector<int64_t> sizes = asIntList(a.at(0), a.context(0));
  std::vector<int64_t> strides = asIntList(a.at(1), a.context(1));
  DataType dtype = a.has(2) ? *asDataType(a.at(2), a.context(2), false) : DataType::Float;
  const bool static_sizes = a.has(3) && asBool(a.at(3), a.context(3));
  if (a.has(4)) asBool(a.at(4), a.context(4));
  return fromVal(stridedInput(f, sizes, strides, dtype, static_sizes, a.at(1).where), args.where);
}

// nvFuser picks the form by its arguments: sizes/strides keywords, or a second
// positional argument of ints (contiguity holds True/False/None).
bool isStridesForm(const CallArgs& args) {
  for (const auto& [k, v] : args.keywords)
    if (k.text == "sizes" || k.text == "strides" || k.text == "static_sizes") return true;
  if (args.positional.size() < 2 || !args.positional[1].isSequence()) return false;
  const auto& items = args.positional[1].items;
  return !items.empty() && std::all_of(items.begin(), items.end(), [](const PyValue& v) {
    return v.kind == PyValue::Kind::Int;
  });
}

}  // namespace

TensorLayout layoutFromStrides(const std::vector<int64_t>& sizes,
                               const std::vector<int64_t>& strides) {
  const size_t rank = sizes.size();
  auto broadcast = [&](size_t d) { return sizes[d] == 1 || strides[d] == 0; };
  // Allocation order, outermost first: stride-0 dims keep their own position;
  // the others fill the remaining positions by decreasing stride (ties keep
  // their order).
  std::vector<size_t> moving;
  for (size_t d = 0; d < rank; ++d)
    if (strides[d] != 0) moving.push_back(d);
  std::stable_sort(moving.begin(), moving.end(),
                   [&](size_t a, size_t b) { return strides[a] > strides[b]; });
  std::vector<size_t> order(rank);
  for (size_t p = 0, next = 0; p < rank; ++p) order[p] = strides[p] == 0 ? p : moving[next++];

  TensorLayout layout;
  layout.stride_order.resize(rank);
  for (size_t p = 0; p < rank; ++p) {
    const size_t d = order[p];
    layout.stride_order[d] = static_cast<int64_t>(rank - 1 - p);
    if (broadcast(d)) {
      layout.contiguity.push_back(std::nullopt);
      continue;
    }
    // Contiguous: the stride steps exactly over the next non-broadcast dim
    // inward (over one element for the innermost).
    std::optional<int64_t> expected = 1;
    for (size_t q = p + 1; q < rank; ++q) {
      if (broadcast(order[q])) continue;
      expected = checked::mul(strides[order[q]], sizes[order[q]]);
      break;
    }
    layout.contiguity.push_back(expected && *expected == strides[d]);
  }
  // Row-major needs no stride order (nvFuser leaves it out too).
  bool row_major = true;
  for (size_t d = 0; d < rank; ++d)
    row_major &= layout.stride_order[d] == static_cast<int64_t>(rank - 1 - d);
  if (row_major) layout.stride_order.clear();
  return layout;
}

PyValue defineTensorCall(Fusion& f, const std::string& fn, const CallArgs& args) {
  return isStridesForm(args) ? stridesForm(f, fn, args) : shapeForm(f, fn, args);
}

PyValue fromPytorchCall(Fusion& f, const std::string& fn, const CallArgs& args) {
  BoundArgs a(fn, {OpParam{{"tensor"}, true}, OpParam{{"static_sizes"}, false}}, args);
  const PyValue& t = a.at(0);
  const bool static_sizes = a.has(1) && asBool(a.at(1), a.context(1));
  // A number makes a scalar input of its type (nvFuser itself wants a tensor).
  if (t.isNumber()) return fromVal(defineScalar(f, numberInputSpec(t).dtype), args.where);
  if (t.kind == PyValue::Kind::Complex) throwComplexUnsupported(t);
  if (t.kind != PyValue::Kind::Input)
    throwWrongKind(t, "a torch tensor such as inputs[0], or a number", a.context(0));
  const InputSpec& spec = *t.input;
  PyValue v =
      fromVal(stridedInput(f, spec.shape, inputStrides(spec), spec.dtype, static_sizes, t.where),
              args.where);
  v.input = t.input;  // the parser checks it against the inputs list's order
  return v;
}

}  // namespace fusebox::frontend
