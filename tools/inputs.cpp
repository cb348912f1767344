// Making a fusion's inputs from the script's list, overrides and .npy files.
#include "cli_common.h"

#include <fusebox/checked_math.h>
#include <fusebox/error.h>
#include <fusebox/npy.h>

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <limits>
#include <cstdlib>

namespace fusebox::cli {
namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The value of a scalar input, read the way its dtype needs: integers exactly
// (never through double), bools as True/False/true/false/1/0, floating-point
// numbers as Python's float() reads them (inf and nan included).
ScalarValue parseScalarSpec(const std::string& name, const std::string& spec, DataType dtype) {
  auto fail = [&](const std::string& expected) -> ScalarValue {
    const std::string_view kind = pythonName(dtype);  // Int, Int32, Bool, Double, ...
    throw UserError(fmt::format("--input {}={}: {} is {} {} scalar; expected {}", name, spec, name,
                                kind[0] == 'I' ? "an" : "a", kind, expected));
  };
  if (dtype == DataType::Bool) {
    if (spec == "True" || spec == "true" || spec == "1") return true;
    if (spec == "False" || spec == "false" || spec == "0") return false;
    return fail("True, False, true, false, 1 or 0");
  }
  const char* end = spec.data() + spec.size();
  if (isIntegralType(dtype)) {
    const int64_t lowest = dtype == DataType::Int32 ? INT32_MIN : INT64_MIN;
    const int64_t highest = dtype == DataType::Int32 ? INT32_MAX : INT64_MAX;
    const std::string range = fmt::format("an integer from {} to {}", lowest, highest);
    const char* first = spec.data();
    if (spec.size() > 1 && spec[0] == '+' && spec[1] != '-') ++first;  // "+5", as int() reads it
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(first, end, v);
    if (ec == std::errc::result_out_of_range ||
        (ec == std::errc() && ptr == end && (v < lowest || v > highest)))
      return fail(fmt::format("{}; {} is out of range", range, spec));
    if (ec != std::errc() || ptr != end) return fail(range);
    return v;
  }
  // strtod also reads blanks, hex floats and nan(...), which float() does not.
  char* stop = nullptr;
  const double v = std::strtod(spec.c_str(), &stop);
  if (spec.empty() || stop != end || std::isspace(static_cast<unsigned char>(spec[0])) ||
      spec.find_first_of("xX(") != std::string::npos)
    return fail("a number such as 1.5, -2, 1e-3, inf or nan");
  return v;
}

// The number of elements of a shape given on the command line must fit in int64.
void checkShapeFits(const std::string& name, const std::string& spec,
                    const std::vector<int64_t>& shape) {
  FUSEBOX_USER_CHECK(checked::product(shape).has_value(),
                     "--input {}={}: the number of elements overflows int64", name, spec);
}

// "16x512x4096" or "16x512x4096:bfloat16" -> InputSpec of random values.
InputSpec parseShapeSpec(const std::string& name, const std::string& spec, DataType default_dtype) {
  InputSpec out;
  out.kind = InputSpec::Kind::Randn;
  out.dtype = default_dtype;
  std::string dims = spec;
  if (auto colon = spec.find(':'); colon != std::string::npos) {
    dims = spec.substr(0, colon);
    auto dtype_name = spec.substr(colon + 1);
    auto dtype = parseDataType(dtype_name);
    FUSEBOX_USER_CHECK(dtype.has_value(),
                       "--input {}: unknown dtype '{}' (expected one of bool, int32, int64, "
                       "float16, bfloat16, float32, float64)",
                       name, dtype_name);
    out.dtype = *dtype;
  }
  if (dims == "scalar" || dims.empty()) return out;  // rank 0
  size_t pos = 0;
  while (pos <= dims.size()) {
    size_t next = dims.find('x', pos);
    if (next == std::string::npos) next = dims.size();
    std::string part = dims.substr(pos, next - pos);
    int64_t extent = -1;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), extent);
    FUSEBOX_USER_CHECK(ec == std::errc() && ptr == part.data() + part.size() && extent >= 0,
                       "--input {}={}: expected a shape like 16x512x4096[:dtype], a .npy file or a "
                       "number; '{}' is not a size",
                       name, displayText(spec), displayText(part));
    out.shape.push_back(extent);
    pos = next + 1;
  }
  checkShapeFits(name, spec, out.shape);
  if (!isFloatingType(out.dtype)) {
    out.kind = InputSpec::Kind::Randint;
    out.low = 0;
    out.high = out.dtype == DataType::Bool ? 2 : 10;
  }
  return out;
}

// materializeInput, with its errors (a shape too big to allocate) naming the
// input, and where the script's inputs list made it.
Argument materialize(const InputSpec& spec, uint64_t seed, const std::string& what) {
  try {
    return materializeInput(spec, seed);
  } catch (const UserError& e) {
    if (e.where().known()) throw;
    throw UserError(spec.where, fmt::format("{}: {}", what, e.detail()));
  }
}

}  // namespace

InputOverride parseInputOverride(const std::string& text) {
  auto eq = text.find('=');
  FUSEBOX_USER_CHECK(eq != std::string::npos && eq > 0 && eq + 1 < text.size(),
                     "--input '{}': expected NAME=SPEC, e.g. T0=16x512:float, T0=x.npy, S0=1.5 "
                     "or #0=8x8",
                     displayText(text));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::vector<Argument> makeInputs(const PythonDefinition& def,
                                 const std::vector<InputOverride>& overrides, uint64_t seed) {
  const auto& inputs = def.fusion->inputs();
  std::vector<std::optional<std::string>> chosen(inputs.size());
  for (const auto& o : overrides) {
    std::optional<size_t> index;
    if (!o.name.empty() && o.name[0] == '#') {
      size_t i = 0;
      auto [ptr, ec] = std::from_chars(o.name.data() + 1, o.name.data() + o.name.size(), i);
      if (ec == std::errc() && ptr == o.name.data() + o.name.size() && i < inputs.size()) index = i;
    } else {
      for (size_t i = 0; i < def.input_names.size(); ++i)
        if (def.input_names[i] == o.name) index = i;
    }
    if (!index) {
      std::vector<std::string> known;
      for (size_t i = 0; i < inputs.size(); ++i)
        known.push_back(fmt::format("{} (#{})", i < def.input_names.size() ? def.input_names[i] : "?", i));
      throw UserError(fmt::format("--input {}: no fusion input has that name or position; inputs: {}",
                                  displayText(o.name), fmt::join(known, ", ")));
    }
    chosen[*index] = o.spec;
  }

  std::vector<Argument> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = i < def.input_names.size() ? def.input_names[i] : fmt::format("#{}", i);
    Val* input = inputs[i];
    if (chosen[i]) {
      const std::string& spec = *chosen[i];
      if (endsWith(spec, ".npy")) {
        try {
          args.emplace_back(loadNpy(spec));
        } catch (const UserError& e) {
          throw UserError(fmt::format("--input {}: {}", name, e.what()));
        }
      } else if (input->isScalar()) {
        args.emplace_back(parseScalarSpec(name, spec, input->dtype()));
      } else {
        args.push_back(materialize(parseShapeSpec(name, spec, input->dtype()), seed + i,
                                   fmt::format("--input {}={}", name, spec)));
      }
      continue;
    }
    FUSEBOX_USER_CHECK(def.has_inputs_list,
                       "input {} has no value: the script has no `inputs = [...]` list; give one "
                       "with --input {}=SHAPE[:dtype], --input {}=FILE.npy or --input {}=NUMBER",
                       name, name, name, name);
    FUSEBOX_USER_CHECK(i < def.inputs.size(),
                       "input {} has no value: the script's inputs list has {} entries for {} "
                       "fusion inputs; give it with --input {}=...",
                       name, def.inputs.size(), inputs.size(), name);
    args.push_back(materialize(def.inputs[i], seed + i, fmt::format("input {}", name)));
  }
  return args;
}

namespace {

// Integer tensors are summarized exactly (an int64 above 2^53 keeps its
// digits), by row-major position.
std::string summarizeIntegers(const Tensor& t) {
  std::vector<int64_t> index(t.dim(), 0);
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  double total = 0;
  std::vector<std::string> first;
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t rest = i;
    for (int64_t d = t.dim(); d-- > 0;) {
      index[d] = rest % t.sizes()[d];
      rest /= t.sizes()[d];
    }
    const int64_t v = t.getInt(index);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    total += static_cast<double>(v);
    if (i < 4) first.push_back(std::to_string(v));
  }
  return fmt::format(" min={} max={} mean={:.6g} first=[{}{}]", lo, hi,
                     total / static_cast<double>(t.numel()), fmt::join(first, ", "),
                     t.numel() > 4 ? ", ..." : "");
}

}  // namespace

std::string summarize(const Argument& value) {
  if (auto* s = std::get_if<ScalarValue>(&value)) return "scalar " + toString(*s);
  const Tensor& t = std::get<Tensor>(value);
  std::string s = t.describe();
  if (t.numel() == 0) return s + " (empty)";
  if (!isFloatingType(t.dtype())) return s + summarizeIntegers(t);
  auto values = t.toDoubles();
  double lo = INFINITY, hi = -INFINITY, total = 0;
  int64_t nonfinite = 0;
  for (double v : values) {
    if (!std::isfinite(v)) {
      ++nonfinite;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    total += v;
  }
  int64_t finite = static_cast<int64_t>(values.size()) - nonfinite;
  std::vector<std::string> first;
  for (size_t i = 0; i < values.size() && i < 4; ++i) first.push_back(fmt::format("{:.6g}", values[i]));
  const std::string head = fmt::format("first=[{}{}]", fmt::join(first, ", "),
                                       values.size() > 4 ? ", ..." : "");
  if (finite == 0) return s + fmt::format(" no finite values {} non-finite={}", head, nonfinite);
  s += fmt::format(" min={:.6g} max={:.6g} mean={:.6g} {}", lo, hi, total / finite, head);
  if (nonfinite) s += fmt::format(" non-finite={}", nonfinite);
  return s;
}

}  // namespace fusebox::cli
