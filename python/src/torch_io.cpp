#include "torch_io.h"

#include <dlpack/dlpack.h>
#include <fmt/format.h>
#include <fusebox/checked_math.h>

#include <map>
#include <memory>
#include <string_view>

namespace fusebox::python {
namespace {

std::string inputLabel(size_t k, const std::vector<std::string>& names) {
  return k < names.size() ? fmt::format("input {} ({})", k, names[k]) : fmt::format("input {}", k);
}

Argument scalarArgument(py::handle item, size_t k, const std::vector<std::string>& names) {
  if (py::isinstance<py::bool_>(item)) return ScalarValue(item.cast<bool>());
  if (py::isinstance<py::int_>(item)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(item.ptr(), &overflow);
    FUSEBOX_USER_CHECK(overflow == 0, "{}: integer {} does not fit in int64", inputLabel(k, names),
                       py::str(item).cast<std::string>());
    return ScalarValue(static_cast<int64_t>(v));
  }
  if (py::isinstance<py::float_>(item)) return ScalarValue(item.cast<double>());
  throw UserError(
      fmt::format("{} is a Python {}, expected a torch tensor or a number", inputLabel(k, names),
                  py::str(py::type::of(item).attr("__qualname__")).cast<std::string>()));
}

bool isAscii(py::handle s, const char* text) {
  return PyUnicode_Check(s.ptr()) && PyUnicode_CompareWithASCIIString(s.ptr(), text) == 0;
}

// The dtype names the Python side sends (torch's, without "torch.").
std::optional<DataType> torchDataType(py::handle name) {
  static constexpr std::pair<const char*, DataType> kNames[] = {
      {"float32", DataType::Float}, {"bfloat16", DataType::BFloat16}, {"float16", DataType::Half},
      {"int64", DataType::Int64},   {"int32", DataType::Int32},       {"bool", DataType::Bool},
      {"float64", DataType::Double}};
  for (const auto& [text, dtype] : kNames)
    if (isAscii(name, text)) return dtype;
  // Other spellings parseDataType knows ("float", "long"); others are refused.
  return PyUnicode_Check(name.ptr()) ? parseDataType(name.cast<std::string>()) : std::nullopt;
}

// torch.Size or a tuple of ints.
std::vector<int64_t> int64List(py::handle seq) {
  if (!PyTuple_Check(seq.ptr())) return seq.cast<std::vector<int64_t>>();
  const Py_ssize_t n = PyTuple_GET_SIZE(seq.ptr());
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(seq.ptr(), i), &overflow);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    FUSEBOX_CHECK(overflow == 0, "a size or stride beyond int64");
    out[static_cast<size_t>(i)] = v;
  }
  return out;
}

struct ManagedOutput {
  Tensor tensor;  // keeps the storage alive while torch holds the capsule
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed{};
};

void deleteManaged(DLManagedTensor* m) {
  delete static_cast<ManagedOutput*>(m->manager_ctx);
}

DLDataType dlpackType(DataType t) {
  switch (t) {
    case DataType::Bool:
      return {kDLUInt, 8, 1};
    case DataType::Int32:
      return {kDLInt, 32, 1};
    case DataType::Int64:
      return {kDLInt, 64, 1};
    case DataType::Half:
      return {kDLFloat, 16, 1};
    case DataType::BFloat16:
      return {kDLBfloat, 16, 1};
    case DataType::Float:
      return {kDLFloat, 32, 1};
    case DataType::Double:
      return {kDLFloat, 64, 1};
  }
  FUSEBOX_CHECK(false, "no DLPack type for dtype {}", static_cast<int>(t));
}

py::capsule toCapsule(const Tensor& t) {
  auto owner = std::make_unique<ManagedOutput>();
  owner->tensor = t;
  owner->shape = t.sizes();
  owner->strides = t.strides();
  DLTensor& dl = owner->managed.dl_tensor;
  dl.data = t.data();
  dl.device = t.device() == Device::Cuda ? DLDevice{kDLCUDA, 0} : DLDevice{kDLCPU, 0};
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = dlpackType(t.dtype());
  dl.shape = owner->shape.data();
  dl.strides = owner->strides.data();
  dl.byte_offset = 0;
  owner->managed.manager_ctx = owner.get();
  owner->managed.deleter = deleteManaged;
  DLManagedTensor* managed = &owner.release()->managed;
  // A capsule nobody consumed (renamed "used_dltensor" by the consumer) frees the tensor.
  return py::capsule(managed, "dltensor", [](PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, "dltensor")) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
      m->deleter(m);
    }
  });
}

}  // namespace

CallInputs toCallInputs(py::list inputs, const std::vector<std::string>& names) {
  FUSEBOX_USER_CHECK(inputs.size() == names.size(),
                     "execute: the fusion takes {} input{} ({}), got {}", names.size(),
                     names.size() == 1 ? "" : "s", fmt::join(names, ", "), inputs.size());
  CallInputs call;
  call.arguments.reserve(inputs.size());
  std::optional<int64_t> cuda_index;
  std::optional<size_t> cpu_tensor;  // a CPU tensor of rank > 0
  for (size_t k = 0; k < inputs.size(); ++k) {
    // Made only for a message: every call passes here (docs/perf.md, the
    // Python module's overhead).
    auto label = [&] { return inputLabel(k, names); };
    py::handle item = inputs[k];
    if (!PyTuple_Check(item.ptr())) {
      call.arguments.push_back(scalarArgument(item, k, names));
      continue;
    }
    auto t = py::reinterpret_borrow<py::tuple>(item);
    FUSEBOX_CHECK(t.size() == 7 && isAscii(t[0], "tensor"), "{}: malformed tensor descriptor",
                  label());
    auto data = reinterpret_cast<void*>(t[1].cast<uintptr_t>());
    auto sizes = int64List(t[2]);
    auto strides = int64List(t[3]);
    std::optional<DataType> dtype = torchDataType(t[4]);
    FUSEBOX_USER_CHECK(dtype.has_value(),
                       "{} has dtype {}, which fusebox does not support (supported: bool, int32, "
                       "int64, float16, bfloat16, float32, float64)",
                       label(), py::str(t[4]).cast<std::string>());
    for (size_t d = 0; d < strides.size(); ++d)
      FUSEBOX_USER_CHECK(strides[d] >= 0,
                         "{} has a negative stride ({} in dim {}); fusebox takes "
                         "tensors with non-negative strides (copy it with .contiguous())",
                         label(), strides[d], d);
    const bool cuda = isAscii(t[5], "cuda");
    if (cuda) {
      int64_t index = t[6].cast<int64_t>();
      FUSEBOX_USER_CHECK(!cuda_index || *cuda_index == index,
                         "{} is on cuda:{}, an earlier input on cuda:{}; a fusion runs on one GPU",
                         label(), index, *cuda_index);
      FUSEBOX_USER_CHECK(index == 0,
                         "{} is on cuda:{}; fusebox runs on the first visible GPU (cuda:0): "
                         "choose the GPU with CUDA_VISIBLE_DEVICES",
                         label(), index);
      cuda_index = index;
    } else if (!sizes.empty() && !cpu_tensor) {
      cpu_tensor = k;
    }
    call.arguments.push_back(Tensor::fromBlob(data, *dtype, std::move(sizes), std::move(strides),
                                              cuda ? Device::Cuda : Device::Host));
  }
  call.on_cuda = cuda_index.has_value();
  FUSEBOX_USER_CHECK(!call.on_cuda || !cpu_tensor,
                     "{} is a CPU tensor, other inputs are CUDA tensors; pass it on the GPU "
                     "(.cuda()), or all inputs on the CPU (only 0-dim CPU tensors mix with CUDA "
                     "ones)",
                     inputLabel(cpu_tensor.value_or(0), names));
  return call;
}

namespace {

// The item kinds and dtype names as Python strings made once (every call
// returns some), never freed: they may outlive the interpreter's teardown.
const py::str& pythonText(std::string_view text) {
  static auto* made = new std::map<std::string, py::str, std::less<>>();
  auto found = made->find(text);
  if (found == made->end())
    found = made->emplace(std::string(text), py::str(text.data(), text.size())).first;
  return found->second;
}

}  // namespace

py::list toPythonOutputs(const Fusion& fusion, const std::vector<Argument>& outputs,
                         const std::vector<Argument>& inputs) {
  py::list result;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Val* out = fusion.outputs().at(k);
    if (fusion.aliasedInput(out) != nullptr) continue;  // written into its input, not returned
    const py::str& dtype = pythonText(dtypeName(out->dtype()));
    if (const auto* s = std::get_if<ScalarValue>(&outputs[k])) {
      py::object value = std::visit([](auto v) { return py::cast(v); }, *s);
      result.append(py::make_tuple("scalar", value, dtype));
      continue;
    }
    const Tensor& t = std::get<Tensor>(outputs[k]);
    size_t view_of = inputs.size();
    for (size_t i = 0; i < inputs.size() && view_of == inputs.size(); ++i)
      if (const auto* in = std::get_if<Tensor>(&inputs[i]))
        if (in->storage() == t.storage()) view_of = i;
    if (view_of < inputs.size() && std::get<Tensor>(inputs[view_of]).dtype() != t.dtype()) {
      // A reinterpreting view of the caller's memory: a copy, since the
      // capsule cannot keep the caller's tensor alive.
      FUSEBOX_USER_CHECK(t.device() == Device::Host,
                         "output {} views input {} as another dtype, which the module cannot "
                         "return for CUDA tensors yet",
                         k, view_of);
      result.append(py::make_tuple("dlpack", toCapsule(t.clone()), dtype));
      continue;
    }
    if (view_of < inputs.size()) {
      const Tensor& in = std::get<Tensor>(inputs[view_of]);
      int64_t offset = t.storageOffset() - in.storageOffset();
      result.append(py::make_tuple("view", view_of, t.sizes(), t.strides(), offset, dtype));
      continue;
    }
    result.append(py::make_tuple(pythonText("dlpack"), toCapsule(t), dtype));
  }
  return result;
}

py::list toPythonArguments(const std::vector<Argument>& arguments) {
  py::list result;
  for (const Argument& a : arguments) {
    if (const auto* s = std::get_if<ScalarValue>(&a)) {
      py::object value = std::visit([](auto v) { return py::cast(v); }, *s);
      const char* dtype = std::holds_alternative<bool>(*s)      ? "bool"
                          : std::holds_alternative<int64_t>(*s) ? "int64"
                                                                : "double";
      result.append(py::make_tuple("scalar", value, dtype));
      continue;
    }
    const Tensor& t = std::get<Tensor>(a);
    result.append(py::make_tuple("dlpack", toCapsule(t), std::string(dtypeName(t.dtype()))));
  }
  return result;
}

}  // namespace fusebox::python
