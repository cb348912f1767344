// The generator's inputs: tensors of every dtype with shapes from the case's
// base shape and every layout define_tensor can declare, symbolic scalars,
// and their values as the checker will make them.
#include "generator_internal.h"

#include <fmt/format.h>
#include <fusebox/frontend/python_definition.h>

#include <algorithm>
#include <numeric>

namespace fusebox::fuzz {

// ---- inputs -------------------------------------------------------------------------

namespace {

std::string torchDtype(DataType t) {
  switch (t) {
    case DataType::Bool:
      return "torch.bool";
    case DataType::Int32:
      return "torch.int32";
    case DataType::Int64:
      return "torch.int64";
    case DataType::Half:
      return "torch.float16";
    case DataType::BFloat16:
      return "torch.bfloat16";
    case DataType::Float:
      return "torch.float32";
    case DataType::Double:
      return "torch.float64";
  }
  return "torch.float32";
}

std::string tupleText(const std::vector<int64_t>& v) {
  if (v.size() == 1) return fmt::format("({},)", v[0]);
  return fmt::format("({})", fmt::join(v, ", "));
}

}  // namespace

void Generator::defineTensorInput(const std::vector<int64_t>& sizes, int input_index) {
  static const std::vector<DataType> dtypes = {
      DataType::Float,  DataType::Float, DataType::Float, DataType::Half,  DataType::BFloat16,
      DataType::Double, DataType::Int32, DataType::Int64, DataType::Int64, DataType::Bool};
  DataType dtype = pick(dtypes);
  const int64_t rank = static_cast<int64_t>(sizes.size());
  std::vector<std::string> shape;
  std::vector<bool> declared_bcast;
  for (int64_t s : sizes) {
    bool bcast = s == 1 && !(allowed("size1-iteration") && chance(0.25));
    if (s == 1 && !bcast) use("size1-iteration");
    declared_bcast.push_back(bcast);
    shape.push_back(bcast ? "1" : (s != 1 && chance(0.2) ? std::to_string(s) : "-1"));
  }
  // Layout: allocation order (outermost first), gaps, stride-0 dims, offset.
  std::vector<int64_t> alloc(static_cast<size_t>(rank));
  std::iota(alloc.begin(), alloc.end(), 0);
  std::vector<int64_t> strides(static_cast<size_t>(rank), 0);
  bool strided = rank > 0 && allowed("strided-input") && chance(0.3);
  bool permuted = false, writable = true;
  int64_t offset = 0;
  if (strided) {
    use("strided-input");
    if (chance(0.6)) {
      std::shuffle(alloc.begin(), alloc.end(), rng_);
      permuted = !std::is_sorted(alloc.begin(), alloc.end());
    }
    if (chance(0.3)) offset = between(1, 5);
  }
  int64_t expected = 1;
  for (int64_t k = rank - 1; k >= 0; --k) {
    size_t d = static_cast<size_t>(alloc[static_cast<size_t>(k)]);
    if (strided && !declared_bcast[d] && sizes[d] > 1 && allowed("stride0-input") && chance(0.1)) {
      use("stride0-input");
      strides[d] = 0;
      writable = false;
      continue;
    }
    int64_t gap = strided && chance(0.3) ? between(2, 3) : 1;
    strides[d] = expected * gap;
    expected = strides[d] * std::max<int64_t>(sizes[d], 1);
  }
  // Contiguity from the actual strides, in allocation order.
  std::vector<std::string> contiguity;
  int64_t inner = 1;
  std::vector<std::string> contiguity_rev;
  for (int64_t k = rank - 1; k >= 0; --k) {
    size_t d = static_cast<size_t>(alloc[static_cast<size_t>(k)]);
    if (declared_bcast[d]) {
      contiguity_rev.push_back("None");
      continue;
    }
    contiguity_rev.push_back(strides[d] == inner ? "True" : "False");
    inner = strides[d] * sizes[d];
  }
  contiguity.assign(contiguity_rev.rbegin(), contiguity_rev.rend());
  std::string name = newName('T');
  std::string line = fmt::format(
      "{} = fd.define_tensor(shape=[{}], contiguity=[{}], dtype=DataType.{}, is_cpu=False", name,
      fmt::join(shape, ", "), fmt::join(contiguity, ", "), pythonName(dtype));
  if (permuted) {
    std::vector<int64_t> stride_order(static_cast<size_t>(rank));
    for (int64_t k = 0; k < rank; ++k)
      stride_order[static_cast<size_t>(alloc[static_cast<size_t>(k)])] = rank - 1 - k;
    line += fmt::format(", stride_order=[{}]", fmt::join(stride_order, ", "));
  }
  line += ")";
  result.fuzz_case.body.push_back({line, input_index});

  // The constructor: values that exercise each dtype.
  std::string ctor;
  std::vector<int64_t> ctor_shape = sizes;
  int64_t storage = 0;
  if (strided) {
    int64_t numel = 1;
    for (int64_t s : sizes) numel *= s;
    storage = offset + 1;
    for (int64_t d = 0; d < rank; ++d)
      storage += (sizes[static_cast<size_t>(d)] - 1) * strides[static_cast<size_t>(d)];
    if (numel == 0) storage = offset + 1;
    ctor_shape = {storage};
  }
  std::string dt = torchDtype(dtype);
  double r = static_cast<double>(between(0, 999)) / 1000;
  if (isFloatingType(dtype) && allowed("nonfinite") && r < 0.03) {
    use("nonfinite");
    ctor = fmt::format(
        "torch.full({}, {}, dtype={}, device='cuda:0')", tupleText(ctor_shape),
        pick(std::vector<std::string>{"float('nan')", "float('inf')", "float('-inf')"}), dt);
  } else if (r < 0.06) {
    ctor = fmt::format("torch.{}({}, dtype={}, device='cuda:0')", chance(0.5) ? "ones" : "zeros",
                       tupleText(ctor_shape), dt);
  } else if (isFloatingType(dtype) && r < 0.3) {
    ctor = fmt::format("torch.randn({}, dtype={}, device='cuda:0')", tupleText(ctor_shape), dt);
  } else if (dtype == DataType::Bool) {
    ctor = fmt::format("torch.testing.make_tensor({}, dtype={}, device='cuda:0')",
                       tupleText(ctor_shape), dt);
  } else {
    int64_t span = pick(std::vector<int64_t>{2, 3, 5, 9, 100});
    if (isIntegralType(dtype) && allowed("big-int") && chance(0.05)) {
      use("big-int");
      span = dtype == DataType::Int32 ? 2000000000 : 4000000000000000000;
    }
    ctor = fmt::format("torch.testing.make_tensor({}, dtype={}, device='cuda:0', low={}, high={})",
                       tupleText(ctor_shape), dt, -span, span);
  }
  if (strided)
    ctor += fmt::format(".as_strided({}, {}, {})", tupleText(sizes), tupleText(strides), offset);
  result.fuzz_case.inputs.push_back(ctor);

  TensorVar v;
  v.name = name;
  v.dtype = dtype;
  v.sizes = sizes;
  for (bool b : declared_bcast) v.dims.push_back(b ? DimKind::Bcast : DimKind::Iter);
  v.input_index = input_index;
  v.writable = writable;
  tensors.push_back(std::move(v));
}

void Generator::defineScalarInput(int input_index) {
  use("scalar-input");
  static const std::vector<DataType> dtypes = {DataType::Double, DataType::Double, DataType::Int64,
                                               DataType::Int64,  DataType::Bool,   DataType::Float,
                                               DataType::Int32};
  DataType dtype = pick(dtypes);
  ScalarValue value;
  std::string text;
  if (dtype == DataType::Bool) {
    bool b = chance(0.5);
    value = b;
    text = b ? "True" : "False";
  } else if (isIntegralType(dtype)) {
    int64_t i = between(-4, 9);
    value = i;
    text = std::to_string(i);
  } else {
    double d = static_cast<double>(between(-12, 12)) / 4;
    value = d;
    text = fmt::format("{:.2f}", d);
  }
  std::string name = newName('S');
  result.fuzz_case.body.push_back(
      {fmt::format("{} = fd.define_scalar(None, dtype=DataType.{})", name, pythonName(dtype)),
       input_index});
  result.fuzz_case.inputs.push_back(text);
  scalars.push_back({name, dtype, value, true});
}

void Generator::defineInputs() {
  // The base shape: every tensor input takes a suffix of it, some dims 1.
  int64_t rank = pick(std::vector<int64_t>{0, 1, 1, 2, 2, 2, 3, 3, 3, 4});
  int64_t numel = 1;
  if (allowed("large") && chance(options.large_probability)) {
    // Big enough for the kernels' vectorized, unrolled, 2-D and multi-threaded
    // paths: rows of 128 or more, up to 64K elements.
    use("large");
    rank = between(1, 3);
    int64_t inner = pick(std::vector<int64_t>{128, 129, 256, 512, 1000, 1024, 4096});
    std::vector<int64_t> outer;
    int64_t rest = std::max<int64_t>(1, 65536 / inner);
    for (int64_t d = 0; d + 1 < rank; ++d) {
      int64_t s = between(1, std::min<int64_t>(rest, 64));
      outer.push_back(s);
      rest = std::max<int64_t>(1, rest / s);
    }
    base = outer;
    base.push_back(inner);
  }
  for (int64_t d = static_cast<int64_t>(base.size()); d < rank; ++d) {
    int64_t s = pick(std::vector<int64_t>{1, 2, 2, 3, 3, 4, 4, 5, 6, 7, 8, 8, 16, 33});
    if (allowed("size0") && chance(0.04)) {
      s = 0;
      use("size0");
    }
    if (numel * std::max<int64_t>(s, 1) > options.max_numel) s = 1;
    numel *= std::max<int64_t>(s, 1);
    base.push_back(s);
  }
  int64_t n_tensors = between(1, options.max_inputs);
  int64_t n_scalars = allowed("scalar-input") ? pick(std::vector<int64_t>{0, 0, 0, 1, 2}) : 0;
  int index = 0;
  for (int64_t k = 0; k < n_tensors + n_scalars; ++k) {
    bool scalar = k >= n_tensors ? true : false;
    if (scalar) {
      defineScalarInput(index++);
      continue;
    }
    const int64_t base_rank = static_cast<int64_t>(base.size());
    int64_t r = k == 0 ? base_rank : between(0, base_rank);
    std::vector<int64_t> sizes(base.end() - r, base.end());
    for (auto& s : sizes)
      if (chance(0.15)) s = 1;
    defineTensorInput(sizes, index++);
  }
}

void Generator::measureInputs() {
  try {
    PythonDefinition def = parsePythonDefinition(renderScript(result.fuzz_case), "case.py");
    for (size_t i = 0; i < def.inputs.size(); ++i)
      input_values_.push_back(materializeInput(def.inputs[i], i));
  } catch (const std::exception& e) {
    FuzzCase trial = result.fuzz_case;
    fail(trial, {}, dynamic_cast<const UserError*>(&e) ? "frontend-rejects" : "generator",
         std::string("the inputs: ") + e.what());
    return;
  }
  for (auto& t : tensors)
    if (t.input_index >= 0)
      measure(t, std::get<Tensor>(input_values_[static_cast<size_t>(t.input_index)]));
}

}  // namespace fusebox::fuzz
