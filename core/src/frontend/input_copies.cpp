// Copies of the inputs list's torch tensors: `.to(dtype)`, `.to(memory_format=...)`,
// `.contiguous()`, `.clone()`, `.type(dtype)` and `.float()` and its kin. Each
// is skipped where torch returns the tensor itself (same dtype, layout already
// right); otherwise it makes an InputCopy with the layout torch gives it.
#include <fmt/format.h>
#include <fusebox/checked_math.h>
#include <fusebox/tensor.h>

#include <algorithm>
#include <numeric>

#include "frontend/input_views.h"
#include "frontend/inputs_list.h"
#include "frontend/op_table.h"

namespace fusebox::frontend {
namespace {

// The dtype shorthands: `x.float()` is `x.to(torch.float)`, and so on.
constexpr std::string_view kDTypeMethods[] = {"float", "double", "half", "bfloat16",
                                              "int",   "long",   "bool"};

}  // namespace

std::optional<InputCopy::Layout> memoryFormat(const PyValue& v, const std::string& context) {
  if (v.kind == PyValue::Kind::Opaque && v.s == "preserve_format") return std::nullopt;
  if (v.kind == PyValue::Kind::Opaque && v.s == "contiguous_format")
    return InputCopy::Layout::Contiguous;
  if (v.kind == PyValue::Kind::Opaque && v.s == "channels_last")
    return InputCopy::Layout::ChannelsLast;
  throwWrongKind(v,
                 "torch.contiguous_format, torch.channels_last or torch.preserve_format "
                 "(torch.channels_last_3d is not supported)",
                 context);
}

namespace {

bool isDevice(const PyValue& v) {
  return v.kind == PyValue::Kind::String;  // "cuda", "cuda:0", "cpu"
}

// .to(dtype), .to(device), .to(device, dtype), .to(dtype=..., memory_format=...), ...
PyValue toCall(const PyValue& self, const CallArgs& args) {
  std::optional<DataType> dtype;
  std::optional<InputCopy::Layout> layout;
  bool copy = false;
  for (const PyValue& v : args.positional) {
    if (v.kind == PyValue::Kind::TorchDType && !dtype)
      dtype = v.dtype;
    else if (!isDevice(v))
      throwWrongKind(v, "a torch dtype or a device such as 'cuda'", "an argument of .to(...)");
  }
  for (const auto& [key, v] : args.keywords) {
    const std::string context = fmt::format("argument '{}' of .to(...)", key.text);
    if (key.text == "dtype") {
      if (dtype) throw UserError(v.where, ".to got the dtype twice");
      dtype = torchDType(v, context);
    } else if (key.text == "memory_format") {
      layout = memoryFormat(v, context);
    } else if (key.text == "copy") {
      copy = asBool(v, context);
    } else if (key.text == "device") {
      if (!isDevice(v)) throwWrongKind(v, "a device such as 'cuda'", context);
    } else if (key.text != "non_blocking") {
      throw UserError(v.where, fmt::format("unexpected keyword '{}' for .to (expected: dtype, "
                                           "device, memory_format, copy, non_blocking)",
                                           displayText(key.text)));
    }
  }
  return convertInput(self, dtype.value_or(self.input->dtype), layout, copy);
}

}  // namespace

bool isRowMajorContiguous(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) return true;
    if (shape[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= shape[d];  // no overflow: the product of the sizes fits
  }
  return true;
}

bool isDenseNonOverlapping(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  // Innermost first; dims of fewer than 2 elements say nothing about the layout.
  std::vector<size_t> dims;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] >= 2) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(),
                   [&](size_t a, size_t b) { return strides[a] < strides[b]; });
  int64_t expected = 1;
  for (size_t d : dims) {
    if (strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

std::vector<int64_t> channelsLastStrides(const std::vector<int64_t>& shape) {
  // Dims from innermost: C, W, H, N; an empty dim steps like a size-1 one.
  std::vector<int64_t> strides(4);
  int64_t running = 1;
  for (size_t d : {size_t{1}, size_t{3}, size_t{2}, size_t{0}}) {
    strides[d] = running;
    running = checked::orThrow(checked::mul(running, std::max<int64_t>(shape[d], 1)),
                               "a channels_last stride");
  }
  return strides;
}

std::vector<int64_t> copyStrides(const std::vector<int64_t>& shape,
                                 const std::vector<int64_t>& strides, InputCopy::Layout layout) {
  switch (layout) {
    case InputCopy::Layout::Preserve:
      // torch keeps a dense layout's strides; anything else (expanded,
      // sliced, overlapping) becomes row-major.
      return isDenseNonOverlapping(shape, strides) ? strides : contiguousStrides(shape);
    case InputCopy::Layout::Contiguous:
      return contiguousStrides(shape);
    case InputCopy::Layout::ChannelsLast:
      return channelsLastStrides(shape);
  }
  return contiguousStrides(shape);
}

InputSpec copyOf(InputSpec spec, DataType dtype, InputCopy::Layout layout) {
  InputCopy c;
  c.shape = spec.shape;
  c.strides = inputStrides(spec);
  c.storage_offset = spec.storage_offset;
  c.dtype = dtype;
  c.layout = layout;
  c.new_strides = copyStrides(c.shape, c.strides, layout);
  // The first copy records the constructor's storage (a rank-0 one as one
  // element) and dtype.
  if (!spec.strides) spec.base_shape = spec.shape.empty() ? std::vector<int64_t>{1} : spec.shape;
  if (spec.copies.empty()) spec.constructor_dtype = spec.dtype;
  spec.strides = c.new_strides;
  spec.storage_offset = 0;
  spec.dtype = dtype;
  spec.copies.push_back(std::move(c));
  return spec;
}

PyValue convertInput(const PyValue& self, DataType dtype, std::optional<InputCopy::Layout> layout,
                     bool force) {
  const InputSpec& spec = *self.input;
  if (layout == InputCopy::Layout::ChannelsLast && spec.shape.size() != 4)
    throw UserError(fmt::format("torch.channels_last needs a tensor of 4 dims, this one has {}",
                                spec.shape.size()));
  const std::vector<int64_t> strides = inputStrides(spec);
  bool keep = !force && dtype == spec.dtype;
  if (keep && layout == InputCopy::Layout::Contiguous)
    keep = isRowMajorContiguous(spec.shape, strides);
  if (keep && layout == InputCopy::Layout::ChannelsLast)
    keep = isDenseNonOverlapping(spec.shape, strides) &&
           copyStrides(spec.shape, strides, *layout) == strides;
  if (keep) return self;
  PyValue out = PyValue::make(PyValue::Kind::Input, self.where);
  out.input = std::make_shared<InputSpec>(
      copyOf(spec, dtype, layout.value_or(InputCopy::Layout::Preserve)));
  return out;
}

std::optional<PyValue> inputCopyMethod(const PyValue& self, const Token& name,
                                       const CallArgs& args) {
  const std::string& fn = name.text;
  for (std::string_view method : kDTypeMethods) {
    if (fn == method) {
      BoundArgs a(fn, {OpParam{{"memory_format"}, false}}, args);
      return convertInput(self, *torchDTypeNamed(method),
                          a.has(0) ? memoryFormat(a.at(0), a.context(0)) : std::nullopt, false);
    }
  }
  if (fn == "to") return toCall(self, args);
  if (fn == "type") {
    BoundArgs a("type", {OpParam{{"dtype"}, true}, OpParam{{"non_blocking"}, false}}, args);
    return convertInput(self, torchDType(a.at(0), a.context(0)), std::nullopt, false);
  }
  if (fn == "contiguous") {
    BoundArgs a("contiguous", {OpParam{{"memory_format"}, false}}, args);
    std::optional<InputCopy::Layout> layout =
        a.has(0) ? memoryFormat(a.at(0), a.context(0)) : InputCopy::Layout::Contiguous;
    return convertInput(self, self.input->dtype, layout.value_or(InputCopy::Layout::Contiguous),
                        false);
  }
  if (fn == "clone") {
    BoundArgs a("clone", {OpParam{{"memory_format"}, false}}, args);
    return convertInput(self, self.input->dtype,
                        a.has(0) ? memoryFormat(a.at(0), a.context(0)) : std::nullopt, true);
  }
  // Device moves and autograd flags do not change the values or the layout.
  if (fn == "cuda" || fn == "cpu" || fn == "detach" || fn == "requires_grad_") {
    BoundArgs a(fn, {OpParam{{"device", "requires_grad"}, false}, OpParam{{"non_blocking"}, false}},
                args);
    return self;
  }
  return std::nullopt;
}

}  // namespace fusebox::frontend
