// Views and queries of the inputs list's torch tensors. A view changes only
// (shape, strides, storage_offset) over the same storage, exactly as torch
// computes them, so `from_pytorch` sees the strides torch would give it.
#include "frontend/input_views.h"

#include <fmt/format.h>
#include <fusebox/checked_math.h>
#include <fusebox/tensor.h>

#include <numeric>

#include "frontend/inputs_list.h"
#include "frontend/op_table.h"

namespace fusebox::frontend {
namespace {

int64_t rankOf(const InputSpec& spec) {
  return static_cast<int64_t>(spec.shape.size());
}

// A dim argument in [-rank, rank) (or [-rank-1, rank] for `insert`), normalized.
int64_t normalizeDim(const PyValue& v, int64_t rank, const std::string& context,
                     bool insert = false) {
  const int64_t d = asInt(v, context);
  const int64_t n = insert ? rank + 1 : rank;
  if (d < -n || d >= n || n == 0)
    throw UserError(v.where, fmt::format("dim {} is out of range for a tensor of {} dims ({})", d,
                                         rank, context));
  return d < 0 ? d + n : d;
}

// Sizes given as separate ints (`x.expand(2, 3)`) or as one list, tuple or
// torch.Size (`x.expand((2, 3))`, `x.reshape(y.shape)`). Entries may be -1.
std::vector<int64_t> sizeArguments(const CallArgs& args, const std::string& fn) {
  if (!args.keywords.empty())
    throw UserError(args.where, fmt::format("{} takes its sizes positionally", fn));
  if (args.positional.size() == 1 && args.positional[0].isSequence())
    return asIntList(args.positional[0], fmt::format("the sizes of {}", fn));
  std::vector<int64_t> sizes;
  for (const PyValue& v : args.positional) sizes.push_back(asInt(v, fmt::format("{}", fn)));
  return sizes;
}

PyValue withSpec(const PyValue& self, InputSpec spec) {
  PyValue out = PyValue::make(PyValue::Kind::Input, self.where);
  out.input = std::make_shared<InputSpec>(std::move(spec));
  return out;
}

PyValue intTuple(const std::vector<int64_t>& v, const SourceLocation& where) {
  PyValue t = PyValue::make(PyValue::Kind::Tuple, where);
  for (int64_t x : v) t.items.push_back(PyValue::integer(x, where));
  return t;
}

// ---- views ------------------------------------------------------------------------

PyValue asStridedView(const PyValue& self, const CallArgs& args, const SourceLocation& where) {
  BoundArgs a(
      "as_strided",
      {OpParam{{"size"}, true}, OpParam{{"stride"}, true}, OpParam{{"storage_offset"}, false}},
      args);
  const InputSpec& spec = *self.input;
  std::vector<int64_t> size = asSizes(a.at(0), a.context(0));
  std::vector<int64_t> stride = asIntList(a.at(1), a.context(1));
  if (!a.at(1).isSequence()) throwWrongKind(a.at(1), "a tuple of strides", a.context(1));
  for (size_t i = 0; i < stride.size(); ++i)
    if (stride[i] < 0)
      throw UserError(a.at(1).items[i].where,
                      fmt::format("stride {} must not be negative ({})", stride[i], a.context(1)));
  if (size.size() != stride.size())
    throw UserError(a.at(1).where, fmt::format("as_strided got {} sizes but {} strides",
                                               size.size(), stride.size()));
  // torch's default offset is the tensor's own.
  const int64_t offset = a.has(2) ? asInt(a.at(2), a.context(2)) : spec.storage_offset;
  if (offset < 0) throw UserError(a.at(2).where, "storage_offset must not be negative");
  // The view must stay inside the storage it views.
  const std::optional<int64_t> needed = viewStorageSize(size, stride, offset);
  if (!needed)
    throw UserError(where, "as_strided view reaches past the largest int64 element offset");
  const int64_t have = inputStorageElements(spec);
  if (*needed > have)
    throw UserError(where, fmt::format("as_strided view needs {} elements of storage, but the "
                                       "tensor it views has {}",
                                       *needed, have));
  return withSpec(self, viewOf(spec, size, stride, offset));
}

PyValue expandView(const PyValue& self, const CallArgs& args, const SourceLocation& where) {
  const InputSpec& spec = *self.input;
  const std::vector<int64_t> target = sizeArguments(args, "expand");
  const std::vector<int64_t> strides = inputStrides(spec);
  const int64_t rank = rankOf(spec), n = static_cast<int64_t>(target.size());
  if (n < rank)
    throw UserError(where, fmt::format("expand: the number of sizes provided ({}) must be greater "
                                       "or equal to the number of dimensions in the tensor ({})",
                                       n, rank));
  std::vector<int64_t> shape(n), out_strides(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = i - (n - rank);  // the tensor's dim, when not a new leading one
    int64_t size = target[i];
    if (d < 0) {
      if (size < 0)
        throw UserError(where, fmt::format("expand: the expanded size of the tensor ({}) isn't "
                                           "allowed in a leading, non-existing dimension {}",
                                           size, i));
      shape[i] = size;
      out_strides[i] = 0;
      continue;
    }
    if (size == -1) size = spec.shape[d];
    if (size == spec.shape[d]) {
      shape[i] = size;
      out_strides[i] = strides[d];
    } else if (spec.shape[d] == 1 && size >= 0) {
      shape[i] = size;
      out_strides[i] = 0;  // one element repeated
    } else {
      throw UserError(where, fmt::format("expand: the expanded size of the tensor ({}) must match "
                                         "the existing size ({}) at non-singleton dimension {} "
                                         "(target sizes [{}], tensor sizes [{}])",
                                         target[i], spec.shape[d], i, fmt::join(target, ", "),
                                         fmt::join(spec.shape, ", ")));
    }
  }
  checkedSizes(shape, where, "the sizes of expand");
  return withSpec(self, viewOf(spec, shape, out_strides, spec.storage_offset));
}

// torch's stride for a new size-1 dim at `d`: what stepping over the dims
// after it takes (so the view stays dense where the tensor was).
int64_t insertedStride(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                       size_t d) {
  if (d >= shape.size()) return 1;
  return checked::orThrow(checked::mul(shape[d], strides[d]), "the stride of a new dim");
}

PyValue unsqueezeView(const PyValue& self, const CallArgs& args) {
  BoundArgs a("unsqueeze", {OpParam{{"dim"}, true}}, args);
  const InputSpec& spec = *self.input;
  const int64_t d = normalizeDim(a.at(0), rankOf(spec), a.context(0), /*insert=*/true);
  std::vector<int64_t> shape = spec.shape, strides = inputStrides(spec);
  const int64_t stride = insertedStride(shape, strides, static_cast<size_t>(d));
  shape.insert(shape.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return withSpec(self, viewOf(spec, shape, strides, spec.storage_offset));
}

PyValue permuteView(const PyValue& self, const std::vector<int64_t>& perm) {
  const InputSpec& spec = *self.input;
  const std::vector<int64_t> strides = inputStrides(spec);
  std::vector<int64_t> shape, out_strides;
  for (int64_t d : perm) {
    shape.push_back(spec.shape[d]);
    out_strides.push_back(strides[d]);
  }
  return withSpec(self, viewOf(spec, shape, out_strides, spec.storage_offset));
}

PyValue transposeView(const PyValue& self, const CallArgs& args, const std::string& fn,
                      const SourceLocation& where) {
  const int64_t rank = rankOf(*self.input);
  std::vector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  if (fn == "t") {
    BoundArgs a("t", {}, args);
    if (rank > 2)
      throw UserError(where, fmt::format("t() expects a tensor with <= 2 dimensions, but this one "
                                         "has {}",
                                         rank));
    if (rank == 2) std::swap(perm[0], perm[1]);
    return permuteView(self, perm);
  }
  if (fn == "transpose") {
    BoundArgs a("transpose", {OpParam{{"dim0"}, true}, OpParam{{"dim1"}, true}}, args);
    std::swap(perm[normalizeDim(a.at(0), rank, a.context(0))],
              perm[normalizeDim(a.at(1), rank, a.context(1))]);
    return permuteView(self, perm);
  }
  // permute(*dims) or permute(dims)
  std::vector<PyValue> dims = args.positional;
  if (dims.size() == 1 && dims[0].isSequence()) dims = dims[0].items;
  if (!args.keywords.empty() || static_cast<int64_t>(dims.size()) != rank)
    throw UserError(where, fmt::format("permute needs {} dims (one per dim of the tensor)", rank));
  for (size_t i = 0; i < dims.size(); ++i) perm[i] = normalizeDim(dims[i], rank, "permute");
  if (!isPermutation(perm))
    throw UserError(where, fmt::format("permute: [{}] is not a permutation of the tensor's dims",
                                       fmt::join(perm, ", ")));
  return permuteView(self, perm);
}

// reshape/view of a contiguous tensor: row-major strides over the same
// elements. torch can view some non-contiguous tensors too (with strides of
// its own choosing), so those are refused rather than guessed.
PyValue reshapeView(const PyValue& self, const CallArgs& args, const std::string& fn,
                    const SourceLocation& where) {
  const InputSpec& spec = *self.input;
  std::vector<int64_t> shape = sizeArguments(args, fn);
  const int64_t numel = *checked::product(spec.shape);  // checked when the tensor was made
  int64_t known = 1;
  std::optional<size_t> inferred;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred) throw UserError(where, fmt::format("{}: only one dimension can be -1", fn));
      inferred = i;
    } else if (shape[i] < 0) {
      throw UserError(where, fmt::format("{}: invalid size {}", fn, shape[i]));
    } else {
      known = checked::orThrow(checked::mul(known, shape[i]), "the number of elements");
    }
  }
  if (inferred) {
    if (known == 0 || numel % known != 0)
      throw UserError(where, fmt::format("{}: shape [{}] is invalid for a tensor of {} elements",
                                         fn, fmt::join(shape, ", "), numel));
    shape[*inferred] = numel / known;
  } else if (known != numel) {
    throw UserError(where, fmt::format("{}: shape [{}] is invalid for a tensor of {} elements", fn,
                                       fmt::join(shape, ", "), numel));
  }
  if (!isRowMajorContiguous(spec.shape, inputStrides(spec)))
    throw UserError(where, fmt::format("{} of a non-contiguous tensor is not supported (torch "
                                       "picks its strides; add .contiguous() before it)",
                                       fn));
  return withSpec(self, viewOf(spec, shape, contiguousStrides(shape), spec.storage_offset));
}

// ---- queries -----------------------------------------------------------------------

// size()/stride(): the tuple, or one entry with a dim.
PyValue perDim(const PyValue& self, const std::vector<int64_t>& values, const CallArgs& args,
               const std::string& fn) {
  BoundArgs a(fn, {OpParam{{"dim"}, false}}, args);
  if (!a.has(0)) return intTuple(values, args.where);
  const int64_t d = normalizeDim(a.at(0), rankOf(*self.input), a.context(0));
  return PyValue::integer(values[d], args.where);
}

std::optional<PyValue> queryMethod(const PyValue& self, const std::string& name,
                                   const CallArgs& args) {
  const InputSpec& spec = *self.input;
  if (name == "size") return perDim(self, spec.shape, args, "size");
  if (name == "stride") return perDim(self, inputStrides(spec), args, "stride");
  if (name == "dim" || name == "ndimension" || name == "numel" || name == "storage_offset" ||
      name == "is_contiguous") {
    BoundArgs a(name, {}, args);
    if (name == "numel") return PyValue::integer(*checked::product(spec.shape), args.where);
    if (name == "storage_offset") return PyValue::integer(spec.storage_offset, args.where);
    if (name == "is_contiguous")
      return PyValue::boolean(isRowMajorContiguous(spec.shape, inputStrides(spec)), args.where);
    return PyValue::integer(rankOf(spec), args.where);
  }
  return std::nullopt;
}

// ---- indexing -------------------------------------------------------------------

PyValue subscriptView(const PyValue& self, const std::vector<PyValue>& index,
                      const SourceLocation& where) {
  const InputSpec& spec = *self.input;
  const std::vector<int64_t> strides = inputStrides(spec);
  const int64_t rank = rankOf(spec);
  int64_t consumed = 0, ellipses = 0;
  for (const PyValue& item : index) {
    if (item.kind == PyValue::Kind::Int || item.kind == PyValue::Kind::Slice) ++consumed;
    if (item.kind == PyValue::Kind::Ellipsis) ++ellipses;
  }
  if (ellipses > 1) throw UserError(where, "an index can only have a single ellipsis ('...')");
  if (consumed > rank)
    throw UserError(where, fmt::format("too many indices for a tensor of {} dims", rank));
  std::vector<int64_t> shape, out_strides;
  int64_t offset = spec.storage_offset;
  int64_t d = 0;
  auto keep = [&](int64_t dim) {
    shape.push_back(spec.shape[dim]);
    out_strides.push_back(strides[dim]);
  };
  auto advance = [&](int64_t by, const PyValue& at) {
    std::optional<int64_t> moved = checked::add(checked::mul(by, strides[d]), offset);
    if (!moved) throw UserError(at.where, "the view's storage offset overflows int64");
    offset = *moved;
  };
  for (const PyValue& item : index) {
    switch (item.kind) {
      case PyValue::Kind::Ellipsis:
        for (int64_t k = 0; k < rank - consumed; ++k) keep(d++);
        break;
      case PyValue::Kind::None:  // a new size-1 dim
        out_strides.push_back(insertedStride(spec.shape, strides, static_cast<size_t>(d)));
        shape.push_back(1);
        break;
      case PyValue::Kind::Int: {
        const int64_t n = spec.shape[d];
        if (item.i < -n || item.i >= n)
          throw UserError(
              item.where,
              fmt::format("index {} is out of bounds for dim {} with size {}", item.i, d, n));
        advance(item.i < 0 ? item.i + n : item.i, item);
        ++d;
        break;
      }
      case PyValue::Kind::Slice: {
        const SliceBounds b = normalizeSlice(item, spec.shape[d]);
        if (b.step < 0)
          throw UserError(item.where, "slices of a torch tensor need a positive step");
        advance(b.start, item);
        shape.push_back(b.length);
        out_strides.push_back(checked::orThrow(checked::mul(strides[d], b.step), "a slice stride"));
        ++d;
        break;
      }
      default:
        throwWrongKind(item, "an int, a slice, None or '...'", "a torch tensor index");
    }
  }
  while (d < rank) keep(d++);
  return withSpec(self, viewOf(spec, shape, out_strides, offset));
}

constexpr std::string_view kMethods =
    "size, stride, dim, numel, storage_offset, is_contiguous, as_strided, expand, unsqueeze, t, "
    "transpose, permute, reshape, view, to, type, contiguous, clone, cuda, cpu, float, double, "
    "half, bfloat16, int, long, bool, detach, requires_grad_, neg, abs, exp, log, log1p, expm1, "
    "sqrt, rsqrt, sin, cos, tanh, sigmoid, reciprocal, add, sub, mul, div, pow, clamp, clip";

}  // namespace

std::vector<int64_t> inputStrides(const InputSpec& spec) {
  return spec.strides ? *spec.strides : contiguousStrides(spec.shape);
}

std::vector<int64_t> constructorShape(const InputSpec& spec) {
  if (!spec.strides) return spec.shape;
  if (!spec.base_shape.empty()) return spec.base_shape;
  const std::vector<int64_t>& shape = spec.copies.empty() ? spec.shape : spec.copies[0].shape;
  const std::vector<int64_t>& strides =
      spec.copies.empty() ? *spec.strides : spec.copies[0].strides;
  const int64_t offset = spec.copies.empty() ? spec.storage_offset : spec.copies[0].storage_offset;
  return {checked::orThrow(viewStorageSize(shape, strides, offset), "the storage of a view")};
}

int64_t inputStorageElements(const InputSpec& spec) {
  if (!spec.copies.empty()) {
    const InputCopy& c = spec.copies.back();
    return checked::orThrow(viewStorageSize(c.shape, c.new_strides, 0), "the storage of a copy");
  }
  return *checked::product(constructorShape(spec));  // checked when the tensor was made
}

InputSpec viewOf(InputSpec spec, std::vector<int64_t> shape, std::vector<int64_t> strides,
                 int64_t offset) {
  // The first view records the constructor's storage (a rank-0 one as one element).
  if (!spec.strides) spec.base_shape = spec.shape.empty() ? std::vector<int64_t>{1} : spec.shape;
  spec.shape = std::move(shape);
  spec.strides = std::move(strides);
  spec.storage_offset = offset;
  return spec;
}

PyValue inputAttribute(const PyValue& self, const Token& name, const SourceLocation& where) {
  const InputSpec& spec = *self.input;
  if (name.text == "shape") return intTuple(spec.shape, where);
  if (name.text == "ndim") return PyValue::integer(rankOf(spec), where);
  if (name.text == "dtype") {
    PyValue d = PyValue::make(PyValue::Kind::TorchDType, where);
    d.dtype = spec.dtype;
    return d;
  }
  if (name.text == "T" || name.text == "mT") {
    std::vector<int64_t> perm(spec.shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    if (name.text == "T")
      std::reverse(perm.begin(), perm.end());
    else if (perm.size() >= 2)
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    return permuteView(self, perm);
  }
  throw UserError(where, fmt::format("unsupported attribute .{} of a torch tensor (supported: "
                                     "shape, dtype, ndim, T, mT)",
                                     displayText(name.text)));
}

PyValue inputMethod(PyValue self, const Token& name, const CallArgs& args) {
  SourceLocation where{args.where.file, name.line, name.column};
  const std::string& fn = name.text;
  try {
    if (auto v = queryMethod(self, fn, args)) return *v;
    if (fn == "as_strided") return asStridedView(self, args, where);
    if (fn == "expand") return expandView(self, args, where);
    if (fn == "unsqueeze") return unsqueezeView(self, args);
    if (fn == "t" || fn == "transpose" || fn == "permute")
      return transposeView(self, args, fn, where);
    if (fn == "reshape" || fn == "view") return reshapeView(self, args, fn, where);
    if (auto v = inputCopyMethod(self, name, args)) return *v;
    if (auto v = inputMathMethod(self, name, args)) return *v;
  } catch (const UserError& e) {
    if (e.where().known()) throw;
    throw UserError(where, fmt::format(".{}: {}", displayText(fn), e.detail()));
  }
  throw UserError(where, fmt::format("unsupported method .{} on a torch tensor (supported: {})",
                                     displayText(fn), kMethods));
}

PyValue inputSubscript(const PyValue& self, const std::vector<PyValue>& index,
                       const SourceLocation& where) {
  try {
    return subscriptView(self, index, where);
  } catch (const UserError& e) {
    if (e.where().known()) throw;
    throw UserError(where, e.detail());
  }
}

}  // namespace fusebox::frontend
