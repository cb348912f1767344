#include "frontend/inputs_list.h"

#include <fusebox/checked_math.h>

#include <fmt/format.h>

#include <climits>
#include <cmath>

#include "frontend/op_table.h"

namespace fusebox {
namespace frontend {
namespace {

struct TorchDType {
  std::string_view name;
  DataType dtype;
};
constexpr TorchDType kTorchDTypes[] = {
    {"float32", DataType::Float}, {"float", DataType::Float},       {"float16", DataType::Half},
    {"half", DataType::Half},     {"bfloat16", DataType::BFloat16}, {"float64", DataType::Double},
    {"double", DataType::Double}, {"int32", DataType::Int32},       {"int", DataType::Int32},
    {"int64", DataType::Int64},   {"long", DataType::Int64},        {"bool", DataType::Bool},
};

constexpr std::string_view kConstructors =
    "torch.randn, torch.rand, torch.ones, torch.zeros, torch.full, torch.randint, "
    "torch.testing.make_tensor";

// A tensor's sizes: none negative, and their product must fit in int64.
std::vector<int64_t> checkedSizes(std::vector<int64_t> sizes, const SourceLocation& where,
                                  const std::string& context) {
  if (!checked::product(sizes))
    throw UserError(where, fmt::format("the number of elements of a tensor of size ({}) overflows "
                                       "int64 ({})",
                                       fmt::join(sizes, ", "), context));
  return sizes;
}

std::vector<int64_t> asSizes(const PyValue& v, const std::string& context) {
  if (!v.isSequence()) throwWrongKind(v, "a tuple of sizes", context);
  std::vector<int64_t> sizes = asIntList(v, context);
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] < 0)
      throw UserError(v.items[i].where,
                      fmt::format("size {} must not be negative ({})", sizes[i], context));
  return checkedSizes(std::move(sizes), v.where, context);
}

DataType torchDType(const PyValue& v, const std::string& context) {
  if (v.kind != PyValue::Kind::TorchDType)
    throwWrongKind(v, "a torch dtype such as torch.float32", context);
  return *v.dtype;
}

// Splits a constructor call into (shape, remaining args): the shape is either
// leading int arguments (`torch.randn(2, 3)`), one tuple/list (`torch.rand((2, 3))`)
// or the `size=` keyword. `n_fixed` positional arguments after the shape stay.
std::pair<std::vector<int64_t>, CallArgs> splitShape(const std::string& fn, const CallArgs& args,
                                                     const char* size_keyword) {
  CallArgs rest;
  rest.where = args.where;
  std::vector<int64_t> shape;
  bool have_shape = false;
  size_t i = 0;
  if (!args.positional.empty() && args.positional[0].isSequence()) {
    shape = asSizes(args.positional[0], fmt::format("the size of {}", fn));
    have_shape = true;
    i = 1;
  } else {
    while (i < args.positional.size() && args.positional[i].kind == PyValue::Kind::Int) {
      shape.push_back(args.positional[i].i);
      if (shape.back() < 0)
        throw UserError(args.positional[i].where,
                        fmt::format("size {} must not be negative", shape.back()));
      have_shape = true;
      ++i;
    }
  }
  for (; i < args.positional.size(); ++i) rest.positional.push_back(args.positional[i]);
  for (const auto& [k, v] : args.keywords) {
    if (k.text == size_keyword) {
      if (have_shape) throw UserError(v.where, fmt::format("{} got the size twice", fn));
      shape = asSizes(v, fmt::format("the size of {}", fn));
      have_shape = true;
    } else {
      rest.keywords.emplace_back(k, v);
    }
  }
  if (!have_shape)
    throw UserError(args.where, fmt::format("{} needs a size, e.g. {}((2, 3))", fn, fn));
  return {checkedSizes(std::move(shape), args.where, fmt::format("the size of {}", fn)), rest};
}

// Binds the keyword-style rest of a constructor; device/requires_grad/... are
// accepted and ignored.
BoundArgs bindRest(const std::string& fn, std::vector<OpParam> params, const CallArgs& rest) {
  for (std::string_view k :
       {"device", "requires_grad", "pin_memory", "layout", "memory_format", "noncontiguous"})
    params.push_back(OpParam{{k}, false});
  return BoundArgs(fn, std::move(params), rest);
}

PyValue makeInput(InputSpec spec, const SourceLocation& where) {
  spec.where = where;
  PyValue v = PyValue::make(PyValue::Kind::Input, where);
  v.input = std::make_shared<InputSpec>(std::move(spec));
  return v;
}

PyValue randomOrConstant(const std::string& fn, InputSpec::Kind kind, const CallArgs& args) {
  auto [shape, rest] = splitShape(fn, args, "size");
  BoundArgs a = bindRest(fn, {OpParam{{"dtype"}, false}}, rest);
  InputSpec spec;
  spec.kind = kind;
  spec.shape = shape;
  spec.dtype = a.has(0) ? torchDType(a.at(0), a.context(0)) : DataType::Float;
  if ((kind == InputSpec::Kind::Randn || kind == InputSpec::Kind::Rand) &&
      !isFloatingType(spec.dtype))
    throw UserError(a.at(0).where, fmt::format("{} needs a floating dtype, got {}", fn,
                                               torchDTypeName(spec.dtype)));
  return makeInput(std::move(spec), args.where);
}

PyValue fullCall(const std::string& fn, const CallArgs& args) {
  BoundArgs a = bindRest(
      fn, {OpParam{{"size"}, true}, OpParam{{"fill_value"}, true}, OpParam{{"dtype"}, false}},
      args);
  InputSpec spec;
  spec.kind = InputSpec::Kind::Full;
  spec.shape = asSizes(a.at(0), a.context(0));
  const PyValue& fill = a.at(1);
  if (!fill.isNumber()) throwWrongKind(fill, "a number", a.context(1));
  // Kept as written: an int fill stays exact (no detour through double).
  spec.fill_value = fill.kind == PyValue::Kind::Float ? ScalarValue(fill.f)
                    : fill.kind == PyValue::Kind::Int ? ScalarValue(fill.i)
                                                      : ScalarValue(fill.b);
  // torch infers the dtype from the fill value when none is given.
  spec.dtype = fill.kind == PyValue::Kind::Bool  ? DataType::Bool
               : fill.kind == PyValue::Kind::Int ? DataType::Int64
                                                 : DataType::Float;
  if (a.has(2)) spec.dtype = torchDType(a.at(2), a.context(2));
  // As torch, a fill an integer dtype cannot hold is an error, not a wrapped value.
  if (isIntegralType(spec.dtype)) {
    const bool int32 = spec.dtype == DataType::Int32;
    const double limit = int32 ? 2147483648.0 : 9223372036854775808.0;
    const bool fits = fill.kind == PyValue::Kind::Float
                          ? std::isfinite(fill.f) && fill.f >= -limit && fill.f < limit
                          : !int32 || (toInt(spec.fill_value) >= INT32_MIN &&
                                       toInt(spec.fill_value) <= INT32_MAX);
    if (!fits)
      throw UserError(fill.where, fmt::format("{} fill value {} does not fit in {}", fn,
                                              describeValue(fill), torchDTypeName(spec.dtype)));
  }
  return makeInput(std::move(spec), args.where);
}

PyValue randintCall(const std::string& fn, const CallArgs& args) {
  // torch.randint(high, size) or torch.randint(low, high, size).
  CallArgs normalized = args;
  bool high_keyword = false;
  for (const auto& [k, v] : args.keywords) high_keyword = high_keyword || k.text == "high";
  bool high_first = args.positional.size() == 2 || (args.positional.size() == 1 && !high_keyword);
  if (high_first)
    normalized.positional.insert(normalized.positional.begin(), PyValue::integer(0, args.where));
  BoundArgs a = bindRest(fn,
                         {OpParam{{"low"}, false}, OpParam{{"high"}, true}, OpParam{{"size"}, true},
                          OpParam{{"dtype"}, false}},
                         normalized);
  InputSpec spec;
  spec.kind = InputSpec::Kind::Randint;
  spec.low = a.has(0) ? asInt(a.at(0), a.context(0)) : 0;
  spec.high = asInt(a.at(1), a.context(1));
  spec.shape = asSizes(a.at(2), a.context(2));
  spec.dtype = a.has(3) ? torchDType(a.at(3), a.context(3)) : DataType::Int64;
  if (spec.high <= spec.low)
    throw UserError(a.at(1).where, fmt::format("{} needs low < high, got low={} high={}", fn,
                                               spec.low, spec.high));
  return makeInput(std::move(spec), args.where);
}

PyValue makeTensorCall(const std::string& fn, const CallArgs& args) {
  auto [shape, rest] = splitShape(fn, args, "shape");
  BoundArgs a = bindRest(fn,
                         {OpParam{{"dtype"}, true}, OpParam{{"low"}, false},
                          OpParam{{"high"}, false}, OpParam{{"exclude_zero"}, false}},
                         rest);
  InputSpec spec;
  spec.kind = InputSpec::Kind::MakeTensor;
  spec.shape = shape;
  spec.dtype = torchDType(a.at(0), a.context(0));
  if (a.has(1)) spec.make_low = asDouble(a.at(1), a.context(1));
  if (a.has(2)) spec.make_high = asDouble(a.at(2), a.context(2));
  // An integer dtype's bounds become int64 values: they must be in range.
  for (size_t i : {size_t{1}, size_t{2}}) {
    const std::optional<double>& bound = i == 1 ? spec.make_low : spec.make_high;
    if (bound && isIntegralType(spec.dtype) &&
        !(*bound >= -9223372036854775808.0 && *bound < 9223372036854775808.0))
      throw UserError(a.at(i).where,
                      fmt::format("{} {} {} is outside int64 ({})", fn, i == 1 ? "low" : "high",
                                  pythonFloat(*bound), a.context(i)));
  }
  if (a.has(3)) spec.exclude_zero = asBool(a.at(3), a.context(3));
  if (spec.make_low && spec.make_high && *spec.make_low > *spec.make_high)
    throw UserError(a.at(1).where,
                    fmt::format("{} needs low <= high, got low={} high={}", fn,
                                pythonFloat(*spec.make_low), pythonFloat(*spec.make_high)));
  return makeInput(std::move(spec), args.where);
}

std::string tupleText(const std::vector<int64_t>& v) {
  if (v.size() == 1) return fmt::format("({},)", v[0]);
  return fmt::format("({})", fmt::join(v, ", "));
}

}  // namespace

std::optional<int64_t> viewStorageSize(const std::vector<int64_t>& sizes,
                                       const std::vector<int64_t>& strides, int64_t offset) {
  for (int64_t s : sizes)
    if (s == 0) return offset;
  std::optional<int64_t> needed = checked::add(offset, 1);
  for (size_t i = 0; i < sizes.size() && i < strides.size(); ++i)
    needed = checked::add(needed, checked::mul(sizes[i] - 1, strides[i]));
  return needed;
}

PyValue torchAttribute(const std::vector<Token>& path, const std::string& file) {
  SourceLocation where{file, path[0].line, path[0].column};
  if (path.size() == 2) {
    for (const TorchDType& t : kTorchDTypes) {
      if (t.name == path[1].text) {
        PyValue v = PyValue::make(PyValue::Kind::TorchDType, where);
        v.dtype = t.dtype;
        return v;
      }
    }
  }
  std::string known;
  for (const TorchDType& t : kTorchDTypes)
    known += fmt::format("{}torch.{}", known.empty() ? "" : ", ", t.name);
  throw UserError(where,
                  fmt::format("unsupported torch name {} (dtypes: {})", joinPath(path), known));
}

PyValue callTorch(const std::vector<Token>& path, const CallArgs& args) {
  std::string fn = joinPath(path);
  if (fn == "torch.randn") return randomOrConstant(fn, InputSpec::Kind::Randn, args);
  if (fn == "torch.rand") return randomOrConstant(fn, InputSpec::Kind::Rand, args);
  if (fn == "torch.ones") return randomOrConstant(fn, InputSpec::Kind::Ones, args);
  if (fn == "torch.zeros") return randomOrConstant(fn, InputSpec::Kind::Zeros, args);
  if (fn == "torch.full") return fullCall(fn, args);
  if (fn == "torch.randint") return randintCall(fn, args);
  if (fn == "torch.testing.make_tensor") return makeTensorCall(fn, args);
  if (fn == "torch.Size") {  // torch.Size([2, 3]) is a tuple of sizes
    BoundArgs a(fn, {OpParam{{"sizes"}, true}}, args);
    PyValue t = a.at(0);
    t.kind = PyValue::Kind::Tuple;
    asSizes(t, a.context(0));
    return t;
  }
  SourceLocation where{args.where.file, path.back().line, path.back().column};
  throw UserError(where, fmt::format("unsupported call {} (supported: {})", fn, kConstructors));
}

PyValue inputMethod(PyValue self, const Token& name, const CallArgs& args) {
  SourceLocation where{args.where.file, name.line, name.column};
  if (name.text != "as_strided")
    throw UserError(where,
                    fmt::format("unsupported method .{} on a torch tensor (supported: as_strided)",
                                displayText(name.text)));
  BoundArgs a(
      "as_strided",
      {OpParam{{"size"}, true}, OpParam{{"stride"}, true}, OpParam{{"storage_offset"}, false}},
      args);
  InputSpec spec = *self.input;
  if (spec.strides) throw UserError(where, "as_strided applied twice");
  std::vector<int64_t> size = asSizes(a.at(0), a.context(0));
  std::vector<int64_t> stride = asSizes(a.at(1), a.context(1));
  if (size.size() != stride.size())
    throw UserError(a.at(1).where, fmt::format("as_strided got {} sizes but {} strides",
                                               size.size(), stride.size()));
  int64_t offset = a.has(2) ? asInt(a.at(2), a.context(2)) : 0;
  if (offset < 0) throw UserError(a.at(2).where, "storage_offset must not be negative");
  // The view must stay inside the base tensor's storage.
  const std::optional<int64_t> needed = viewStorageSize(size, stride, offset);
  if (!needed)
    throw UserError(where, "as_strided view reaches past the largest int64 element offset");
  const int64_t have = *checked::product(spec.shape);  // checked when the sizes were read
  if (*needed > have)
    throw UserError(where, fmt::format("as_strided view needs {} elements of storage, but the "
                                       "tensor it views has {}",
                                       *needed, have));
  spec.base_shape = spec.shape;
  spec.shape = size;
  spec.strides = stride;
  spec.storage_offset = offset;
  self.input = std::make_shared<InputSpec>(std::move(spec));
  return self;
}

std::vector<InputSpec> toInputSpecs(const PyValue& list) {
  std::vector<InputSpec> specs;
  for (size_t i = 0; i < list.items.size(); ++i) {
    const PyValue& item = list.items[i];
    if (item.kind == PyValue::Kind::Input) {
      specs.push_back(*item.input);
      continue;
    }
    if (!item.isNumber())
      throw UserError(item.where,
                      fmt::format("inputs[{}] is {}, expected a torch constructor ({}) or a number",
                                  i, kindPhrase(item.kind), kConstructors));
    InputSpec spec;
    spec.kind = InputSpec::Kind::Scalar;
    spec.where = item.where;
    if (item.kind == PyValue::Kind::Bool) {
      spec.scalar = item.b;
      spec.dtype = DataType::Bool;
    } else if (item.kind == PyValue::Kind::Int) {
      spec.scalar = item.i;
      spec.dtype = DataType::Int64;
    } else {
      spec.scalar = item.f;
      spec.dtype = DataType::Double;
    }
    specs.push_back(spec);
  }
  return specs;
}

std::string inputSpecToPython(const InputSpec& spec) {
  if (spec.kind == InputSpec::Kind::Scalar) return pythonLiteral(spec.scalar);
  // With .as_strided the constructor makes the base storage.
  std::vector<int64_t> base = spec.shape;
  if (spec.strides) {
    base = spec.base_shape;
    if (base.empty() && !spec.shape.empty())
      base = {viewStorageSize(spec.shape, *spec.strides, spec.storage_offset).value_or(0)};
  }
  std::string dtype = torchDTypeName(spec.dtype);
  std::string device = "device='cuda:0'";
  std::string text;
  switch (spec.kind) {
    case InputSpec::Kind::Randn:
    case InputSpec::Kind::Rand:
    case InputSpec::Kind::Ones:
    case InputSpec::Kind::Zeros: {
      const char* fn = spec.kind == InputSpec::Kind::Randn  ? "randn"
                       : spec.kind == InputSpec::Kind::Rand ? "rand"
                       : spec.kind == InputSpec::Kind::Ones ? "ones"
                                                            : "zeros";
      text = fmt::format("torch.{}({}, dtype={}, {})", fn, tupleText(base), dtype, device);
      break;
    }
    case InputSpec::Kind::Full: {
      std::string fill = spec.dtype == DataType::Bool ? (toBool(spec.fill_value) ? "True" : "False")
                         : isIntegralType(spec.dtype) ? std::to_string(toInt(spec.fill_value))
                                                      : pythonFloat(toDouble(spec.fill_value));
      text = fmt::format("torch.full({}, {}, dtype={}, {})", tupleText(base), fill, dtype, device);
      break;
    }
    case InputSpec::Kind::Randint:
      text = fmt::format("torch.randint({}, {}, {}, dtype={}, {})", spec.low, spec.high,
                         tupleText(base), dtype, device);
      break;
    case InputSpec::Kind::MakeTensor: {
      text =
          fmt::format("torch.testing.make_tensor({}, dtype={}, {}", tupleText(base), dtype, device);
      if (spec.make_low) text += ", low=" + pythonFloat(*spec.make_low);
      if (spec.make_high) text += ", high=" + pythonFloat(*spec.make_high);
      if (spec.exclude_zero) text += ", exclude_zero=True";
      text += ")";
      break;
    }
    case InputSpec::Kind::Scalar:
      break;
  }
  if (spec.strides) {
    text += fmt::format(".as_strided({}, {}", tupleText(spec.shape), tupleText(*spec.strides));
    if (spec.storage_offset != 0) text += fmt::format(", {}", spec.storage_offset);
    text += ")";
  }
  return text;
}

}  // namespace frontend

std::string toPython(const InputSpec& spec) {
  return frontend::inputSpecToPython(spec);
}

}  // namespace fusebox
