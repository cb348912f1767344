#include "frontend/inputs_list.h"

#include <fusebox/checked_math.h>

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

#include "frontend/input_views.h"
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

// torch's names that are no dtype but may appear as arguments (memory_format=, layout=).
constexpr std::string_view kTorchConstants[] = {"contiguous_format", "channels_last",
                                                "channels_last_3d", "preserve_format", "strided"};
constexpr std::string_view kComplexDTypes[] = {"complex32", "complex64", "complex128",
                                               "cfloat",    "cdouble",   "chalf"};

constexpr std::string_view kConstructors =
    "torch.randn, torch.rand, torch.ones, torch.zeros, torch.full, torch.randint, "
    "torch.testing.make_tensor, torch.tensor, torch.arange";

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

// As torch, a value an integer dtype cannot hold is an error, not a wrapped value.
void checkFits(const PyValue& v, DataType dtype, const std::string& what) {
  if (!isIntegralType(dtype)) return;
  const bool int32 = dtype == DataType::Int32;
  const double limit = int32 ? 2147483648.0 : 9223372036854775808.0;
  const bool fits =
      v.kind == PyValue::Kind::Float ? std::isfinite(v.f) && v.f >= -limit && v.f < limit
      : v.kind == PyValue::Kind::Int ? !int32 || (v.i >= INT32_MIN && v.i <= INT32_MAX)
                                     : true;
  if (!fits)
    throw UserError(v.where, fmt::format("{} {} does not fit in {}", what, describeValue(v),
                                         torchDTypeName(dtype)));
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
  checkFits(fill, spec.dtype, fmt::format("{} fill value", fn));
  return makeInput(std::move(spec), args.where);
}

// torch.tensor(data): nested lists or tuples of numbers (one number: rank 0).
// The shape comes from the first item at each depth; every list at a depth
// must have that length, as torch requires.
void flattenData(const PyValue& v, size_t depth, const std::vector<int64_t>& shape,
                 std::vector<PyValue>& leaves, const std::string& fn) {
  if (depth == shape.size()) {
    if (v.kind == PyValue::Kind::Complex) throwComplexUnsupported(v);
    if (!v.isNumber()) throwWrongKind(v, "a number", fmt::format("an element of {}", fn));
    leaves.push_back(v);
    return;
  }
  if (!v.isSequence() || static_cast<int64_t>(v.items.size()) != shape[depth])
    throw UserError(
        v.where,
        fmt::format("{}: expected a sequence of length {} at dim {} (got {})", fn, shape[depth],
                    depth, v.isSequence() ? std::to_string(v.items.size()) : kindPhrase(v.kind)));
  for (const PyValue& item : v.items) flattenData(item, depth + 1, shape, leaves, fn);
}

PyValue literalCall(const std::string& fn, const CallArgs& args) {
  BoundArgs a = bindRest(fn, {OpParam{{"data"}, true}, OpParam{{"dtype"}, false}}, args);
  InputSpec spec;
  spec.kind = InputSpec::Kind::Literal;
  for (const PyValue* x = &a.at(0); x->isSequence(); x = &x->items[0]) {
    spec.shape.push_back(static_cast<int64_t>(x->items.size()));
    if (x->items.empty()) break;
  }
  std::vector<PyValue> leaves;
  flattenData(a.at(0), 0, spec.shape, leaves, fn);
  // torch's inference: floats make the default dtype (float32), else ints int64, else bool.
  bool any_float = false, any_int = false;
  for (const PyValue& v : leaves) {
    any_float |= v.kind == PyValue::Kind::Float;
    any_int |= v.kind == PyValue::Kind::Int;
  }
  spec.dtype = any_float || leaves.empty() ? DataType::Float
               : any_int                   ? DataType::Int64
                                           : DataType::Bool;
  if (a.has(1)) spec.dtype = torchDType(a.at(1), a.context(1));
  for (const PyValue& v : leaves) {
    checkFits(v, spec.dtype, fmt::format("{} element", fn));
    spec.values.push_back(v.kind == PyValue::Kind::Float ? ScalarValue(v.f)
                          : v.kind == PyValue::Kind::Int ? ScalarValue(v.i)
                                                         : ScalarValue(v.b));
  }
  return makeInput(std::move(spec), args.where);
}

// torch.arange(end), (start, end[, step]): ceil((end - start) / step) values.
PyValue arangeCall(const std::string& fn, const CallArgs& args) {
  CallArgs normalized = args;
  bool end_keyword = false;
  for (const auto& [k, v] : args.keywords) end_keyword = end_keyword || k.text == "end";
  if (args.positional.size() == 1 && !end_keyword)  // arange(end)
    normalized.positional.insert(normalized.positional.begin(), PyValue::integer(0, args.where));
  BoundArgs a = bindRest(fn,
                         {OpParam{{"start"}, false}, OpParam{{"end"}, true},
                          OpParam{{"step"}, false}, OpParam{{"dtype"}, false}},
                         normalized);
  auto number = [&](size_t i, ScalarValue if_missing) -> ScalarValue {
    if (!a.has(i)) return if_missing;
    const PyValue& v = a.at(i);
    if (v.kind == PyValue::Kind::Float) return v.f;
    if (v.kind == PyValue::Kind::Int) return v.i;
    if (v.kind == PyValue::Kind::Bool) return int64_t{v.b};
    throwWrongKind(v, "a number", a.context(i));
  };
  InputSpec spec;
  spec.kind = InputSpec::Kind::Arange;
  spec.arange_start = number(0, int64_t{0});
  spec.arange_end = number(1, int64_t{0});
  spec.arange_step = number(2, int64_t{1});
  const bool integral = !std::holds_alternative<double>(spec.arange_start) &&
                        !std::holds_alternative<double>(spec.arange_end) &&
                        !std::holds_alternative<double>(spec.arange_step);
  spec.dtype = integral ? DataType::Int64 : DataType::Float;
  if (a.has(3)) spec.dtype = torchDType(a.at(3), a.context(3));
  if (isBoolType(spec.dtype))
    throw UserError(a.at(3).where,
                    fmt::format("{} cannot make {} values", fn, torchDTypeName(spec.dtype)));
  const std::optional<int64_t> length =
      arangeLength(spec.arange_start, spec.arange_end, spec.arange_step);
  if (!length)
    throw UserError(args.where,
                    fmt::format("{}({}, {}, {}): the step must be nonzero and lead from start "
                                "towards end, and the length must fit in int64",
                                fn, pythonLiteral(spec.arange_start),
                                pythonLiteral(spec.arange_end), pythonLiteral(spec.arange_step)));
  spec.shape = {*length};
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
  PyValue made = makeInput(std::move(spec), args.where);
  // make_tensor lays its values out as memory_format= says (torch.randn and
  // the others take no such argument; they ignore it here).
  for (const auto& [k, v] : rest.keywords) {
    if (k.text != "memory_format") continue;
    std::optional<InputCopy::Layout> layout = memoryFormat(v, "argument 'memory_format'");
    try {
      made = convertInput(made, made.input->dtype, layout, false);
    } catch (const UserError& e) {
      if (e.where().known()) throw;
      throw UserError(v.where, fmt::format("{}: {}", fn, e.detail()));
    }
  }
  return made;
}

}  // namespace

std::vector<int64_t> checkedSizes(std::vector<int64_t> sizes, const SourceLocation& where,
                                  const std::string& context) {
  if (!checked::product(sizes))
    throw UserError(where, fmt::format("the number of elements of a tensor of size ({}) overflows "
                                       "int64 ({})",
                                       fmt::join(sizes, ", "), context));
  // An empty tensor's row-major strides still step over its other dims.
  std::vector<int64_t> stepped;
  for (int64_t s : sizes) stepped.push_back(std::max<int64_t>(s, 1));
  if (!checked::product(stepped))
    throw UserError(where, fmt::format("the strides of a tensor of size ({}) overflow int64 ({})",
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

std::optional<DataType> torchDTypeNamed(std::string_view name) {
  for (const TorchDType& t : kTorchDTypes)
    if (t.name == name) return t.dtype;
  return std::nullopt;
}

DataType torchDType(const PyValue& v, const std::string& context) {
  if (v.kind != PyValue::Kind::TorchDType)
    throwWrongKind(v, "a torch dtype such as torch.float32", context);
  return *v.dtype;
}

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
    if (std::optional<DataType> dtype = torchDTypeNamed(path[1].text)) {
      PyValue v = PyValue::make(PyValue::Kind::TorchDType, where);
      v.dtype = dtype;
      return v;
    }
    for (std::string_view name : kTorchConstants) {
      if (name == path[1].text) {
        PyValue v = PyValue::make(PyValue::Kind::Opaque, where);
        v.s = name;
        v.var = joinPath(path);
        return v;
      }
    }
    for (std::string_view name : kComplexDTypes)
      if (name == path[1].text)
        throw UserError(where, fmt::format("{}: complex dtypes are not supported (fusebox has no "
                                           "complex dtypes)",
                                           joinPath(path)));
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
  if (fn == "torch.tensor") return literalCall(fn, args);
  if (fn == "torch.arange") return arangeCall(fn, args);
  if (fn == "torch.device") {  // torch.device("cuda", 0): where a tensor lives, nothing more here
    BoundArgs a(fn, {OpParam{{"type"}, true}, OpParam{{"index"}, false}}, args);
    if (a.at(0).kind != PyValue::Kind::String)
      throwWrongKind(a.at(0), "a device name such as 'cuda'", a.context(0));
    if (a.has(1)) asInt(a.at(1), a.context(1));
    PyValue device = a.at(0);
    device.where = args.where;
    return device;
  }
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

PyValue nvfuserDTypeOf(const CallArgs& args) {
  BoundArgs a("torch_dtype_to_nvfuser_dtype", {OpParam{{"dtype"}, true}}, args);
  PyValue v = PyValue::make(PyValue::Kind::DType, args.where);
  v.dtype = torchDType(a.at(0), a.context(0));
  return v;
}

std::vector<InputSpec> toInputSpecs(const PyValue& list) {
  std::vector<InputSpec> specs;
  for (size_t i = 0; i < list.items.size(); ++i) {
    const PyValue& item = list.items[i];
    if (item.kind == PyValue::Kind::Input) {
      specs.push_back(*item.input);
      continue;
    }
    if (item.kind == PyValue::Kind::Complex) throwComplexUnsupported(item);
    if (!item.isNumber())
      throw UserError(item.where,
                      fmt::format("inputs[{}] is {}, expected a torch constructor ({}) or a number",
                                  i, kindPhrase(item.kind), kConstructors));
    specs.push_back(numberInputSpec(item));
  }
  return specs;
}

InputSpec numberInputSpec(const PyValue& number) {
  InputSpec spec;
  spec.kind = InputSpec::Kind::Scalar;
  spec.where = number.where;
  if (number.kind == PyValue::Kind::Bool) {
    spec.scalar = number.b;
    spec.dtype = DataType::Bool;
  } else if (number.kind == PyValue::Kind::Int) {
    spec.scalar = number.i;
    spec.dtype = DataType::Int64;
  } else {
    spec.scalar = number.f;
    spec.dtype = DataType::Double;
  }
  return spec;
}

std::optional<int64_t> arangeLength(const ScalarValue& start, const ScalarValue& end,
                                    const ScalarValue& step) {
  const bool integral = !std::holds_alternative<double>(start) &&
                        !std::holds_alternative<double>(end) &&
                        !std::holds_alternative<double>(step);
  if (integral) {
    // Exact: the difference of two int64 values fits in 128 bits.
    const __int128 diff = static_cast<__int128>(toInt(end)) - toInt(start), st = toInt(step);
    if (st == 0 || (st > 0 && diff < 0) || (st < 0 && diff > 0)) return std::nullopt;
    const __int128 n = st > 0 ? (diff + st - 1) / st : (diff + st + 1) / st;
    if (n > std::numeric_limits<int64_t>::max()) return std::nullopt;
    return static_cast<int64_t>(n);
  }
  const double b = toDouble(start), e = toDouble(end), st = toDouble(step);
  if (st == 0 || !std::isfinite(b) || !std::isfinite(e) || !std::isfinite(st) ||
      (st > 0 && e < b) || (st < 0 && e > b))
    return std::nullopt;
  const double n = std::ceil((e - b) / st);
  if (!(n < 9223372036854775808.0)) return std::nullopt;
  return static_cast<int64_t>(n);
}

}  // namespace frontend

}  // namespace fusebox
