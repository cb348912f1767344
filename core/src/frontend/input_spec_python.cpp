// Writes an InputSpec back as the inputs-list entry that reads back as it: the
// constructor, then each copy as the torch call that makes it, with the view
// it copies as `.as_strided(...)`, then the final view.
#include <fmt/format.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/tensor.h>

#include "frontend/input_views.h"
#include "frontend/inputs_list.h"

namespace fusebox {
namespace frontend {
namespace {

std::string tupleText(const std::vector<int64_t>& v) {
  if (v.size() == 1) return fmt::format("({},)", v[0]);
  return fmt::format("({})", fmt::join(v, ", "));
}

std::string valueText(const ScalarValue& v, DataType dtype) {
  if (dtype == DataType::Bool && !std::holds_alternative<double>(v))
    return toBool(v) ? "True" : "False";
  return pythonLiteral(v);
}

// torch.tensor's data: nested lists in row-major order.
std::string nestedList(const std::vector<ScalarValue>& values, const std::vector<int64_t>& shape,
                       size_t depth, size_t& next, DataType dtype) {
  if (depth == shape.size()) return valueText(values.at(next++), dtype);
  std::string text = "[";
  for (int64_t i = 0; i < shape[depth]; ++i)
    text += (i ? ", " : "") + nestedList(values, shape, depth + 1, next, dtype);
  return text + "]";
}

std::string constructorText(const InputSpec& spec, const std::vector<int64_t>& shape,
                            DataType dtype) {
  const std::string dt = torchDTypeName(dtype);
  const std::string device = "device='cuda:0'";
  switch (spec.kind) {
    case InputSpec::Kind::Randn:
    case InputSpec::Kind::Rand:
    case InputSpec::Kind::Ones:
    case InputSpec::Kind::Zeros: {
      const char* fn = spec.kind == InputSpec::Kind::Randn  ? "randn"
                       : spec.kind == InputSpec::Kind::Rand ? "rand"
                       : spec.kind == InputSpec::Kind::Ones ? "ones"
                                                            : "zeros";
      return fmt::format("torch.{}({}, dtype={}, {})", fn, tupleText(shape), dt, device);
    }
    case InputSpec::Kind::Full: {
      std::string fill = dtype == DataType::Bool ? (toBool(spec.fill_value) ? "True" : "False")
                         : isIntegralType(dtype) ? std::to_string(toInt(spec.fill_value))
                                                 : pythonFloat(toDouble(spec.fill_value));
      return fmt::format("torch.full({}, {}, dtype={}, {})", tupleText(shape), fill, dt, device);
    }
    case InputSpec::Kind::Randint:
      return fmt::format("torch.randint({}, {}, {}, dtype={}, {})", spec.low, spec.high,
                         tupleText(shape), dt, device);
    case InputSpec::Kind::MakeTensor: {
      std::string text =
          fmt::format("torch.testing.make_tensor({}, dtype={}, {}", tupleText(shape), dt, device);
      if (spec.make_low) text += ", low=" + pythonFloat(*spec.make_low);
      if (spec.make_high) text += ", high=" + pythonFloat(*spec.make_high);
      if (spec.exclude_zero) text += ", exclude_zero=True";
      return text + ")";
    }
    case InputSpec::Kind::Literal: {
      size_t next = 0;
      return fmt::format("torch.tensor({}, dtype={}, {})",
                         nestedList(spec.values, shape, 0, next, dtype), dt, device);
    }
    case InputSpec::Kind::Arange:
      return fmt::format("torch.arange({}, {}, {}, dtype={}, {})", pythonLiteral(spec.arange_start),
                         pythonLiteral(spec.arange_end), pythonLiteral(spec.arange_step), dt,
                         device);
    case InputSpec::Kind::Scalar:
      break;
  }
  return pythonLiteral(spec.scalar);
}

// `.as_strided(...)` unless the view is the whole storage as it is laid out.
std::string viewText(const std::vector<int64_t>& storage_shape,
                     const std::vector<int64_t>& storage_strides, const std::vector<int64_t>& shape,
                     const std::vector<int64_t>& strides, int64_t offset) {
  if (shape == storage_shape && strides == storage_strides && offset == 0) return "";
  std::string text = fmt::format(".as_strided({}, {}", tupleText(shape), tupleText(strides));
  if (offset != 0) text += fmt::format(", {}", offset);
  return text + ")";
}

std::string copyText(const InputCopy& c, DataType from) {
  const std::string dt = torchDTypeName(c.dtype);
  switch (c.layout) {
    case InputCopy::Layout::Preserve:
      return c.dtype == from ? ".clone()" : fmt::format(".to({})", dt);
    case InputCopy::Layout::Contiguous:
      return c.dtype == from ? ".contiguous()"
                             : fmt::format(".to({}, memory_format=torch.contiguous_format)", dt);
    case InputCopy::Layout::ChannelsLast:
      return c.dtype == from ? ".to(memory_format=torch.channels_last)"
                             : fmt::format(".to({}, memory_format=torch.channels_last)", dt);
  }
  return "";
}

}  // namespace

std::string inputSpecToPython(const InputSpec& spec) {
  if (spec.kind == InputSpec::Kind::Scalar) return pythonLiteral(spec.scalar);
  std::vector<int64_t> storage_shape = constructorShape(spec);
  std::vector<int64_t> storage_strides = contiguousStrides(storage_shape);
  DataType dtype = spec.copies.empty() ? spec.dtype : spec.constructor_dtype.value_or(spec.dtype);
  std::string text = constructorText(spec, storage_shape, dtype);
  for (const InputCopy& c : spec.copies) {
    text += viewText(storage_shape, storage_strides, c.shape, c.strides, c.storage_offset);
    text = c.math ? inputMathText(*c.math, text) : text + copyText(c, dtype);
    storage_shape = c.shape;
    storage_strides = c.new_strides;
    dtype = c.dtype;
  }
  if (spec.strides)
    text +=
        viewText(storage_shape, storage_strides, spec.shape, *spec.strides, spec.storage_offset);
  return text;
}

}  // namespace frontend

std::string toPython(const InputSpec& spec) {
  return frontend::inputSpecToPython(spec);
}

}  // namespace fusebox
