// fusebox._fusebox: what the Python package (python/fusebox) builds on. The
// FusionDefinition class, DataType and the torch side live in Python; this
// extension holds the definition builder, the process-wide fusion cache and
// the runtime calls.
#include <fmt/format.h>
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/frontend/definition_builder.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/ir/printer.h>
#include <fusebox/version.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>

#include "compare.h"
#include "fusion_cache.h"
#include "script_reader.h"
#include "torch_io.h"
#include "values.h"

namespace py = pybind11;
using namespace fusebox;
using namespace fusebox::python;

namespace {

using BuilderCall = DefinitionValue (DefinitionBuilder::*)(std::string_view, const DefinitionCall&);

py::object callBuilder(DefinitionBuilder& b, BuilderCall member, const std::string& prefix,
                       const std::string& name, py::tuple args, py::dict kwargs,
                       const std::string& file, int line) {
  SourceLocation where{file, line, 0};
  DefinitionCall call = toDefinitionCall(prefix + name, args, kwargs, where);
  return fromDefinitionValue((b.*member)(name, call));
}

std::string pythonText(const Fusion& fusion) {
  PythonPrintOptions options;
  options.repro_script = false;
  return printPythonDefinition(fusion, options);
}

py::dict lastRunDict(const FusionRuntime& runtime) {
  const RunReport& r = runtime.lastRun();
  py::list segments;
  for (const SegmentRunRecord& s : r.segments) {
    py::dict d;
    d["group"] = s.group;
    d["scheduler"] = s.scheduler;
    d["kernel"] = s.kernel;
    d["params_hash"] = fmt::format("{:016x}", s.params_hash);
    d["milliseconds"] = s.milliseconds;
    segments.append(d);
  }
  py::dict d;
  d["cache_hit"] = r.cache_hit;
  d["signature"] = r.signature;
  d["milliseconds"] = r.milliseconds;
  d["setup_milliseconds"] = r.setup_milliseconds;
  d["segments"] = segments;
  d["backend"] = std::string(runtime.backendChoice() == BackendChoice::Cuda ? "cuda" : "host");
  return d;
}

// What execute and benchmark share: the call's inputs, checked against the
// declared contiguity (the module's contract, as nvFuser's; the runtime
// checks kinds, dtypes and ranks on a new signature), and the runtime for
// their backend, on torch's current stream when on the GPU (ordered with
// the work that made the inputs and the work that reads the outputs).
struct PreparedCall {
  CallInputs call;
  FusionRuntime* runtime = nullptr;
};
PreparedCall prepareCall(CachedFusion& c, py::list inputs, const RunSettings& settings,
                         uintptr_t stream, bool want_cuda) {
  PreparedCall p{toCallInputs(inputs, c.inputNames())};
  p.call.on_cuda |= want_cuda;
  validateInputContiguity(c.fusion(), p.call.arguments, c.evaluatorOptions());
  p.runtime = &c.runtime(settings, p.call.on_cuda ? BackendChoice::Cuda : BackendChoice::Host);
  if (p.call.on_cuda) setCudaStream(*p.runtime->backend(), stream);
  return p;
}

const FusionRuntime& lastRuntime(const CachedFusion& c) {
  FUSEBOX_USER_CHECK(c.lastRuntime() != nullptr,
                     "the fusion has not run yet: call fd.execute(inputs) first");
  return *c.lastRuntime();
}

}  // namespace

PYBIND11_MODULE(_fusebox, m) {
  m.doc() = "fusebox's C++ core for the fusebox Python package";
  static py::exception<UserError> user_error(m, "FuseboxError", PyExc_RuntimeError);
  static py::exception<InternalError> internal_error(m, "FuseboxInternalError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UserError& e) {
      user_error(displayMessage(e.what()).c_str());
    } catch (const InternalError& e) {
      internal_error(e.what());
    }
  });

  py::class_<DefinitionValue>(m, "_Value")
      .def_property_readonly("kind",
                             [](const DefinitionValue& v) -> std::string {
                               switch (v.kind) {
                                 case DefinitionValue::Kind::Tensor:
                                   return "tensor";
                                 case DefinitionValue::Kind::Scalar:
                                   return "scalar";
                                 case DefinitionValue::Kind::Vector:
                                   return "vector";
                                 default:
                                   return "value";
                               }
                             })
      .def_property_readonly("name", [](const DefinitionValue& v) { return v.name; })
      .def_property_readonly(
          "ndim",
          [](const DefinitionValue& v) -> int64_t {
            FUSEBOX_USER_CHECK(v.kind == DefinitionValue::Kind::Tensor,
                               "{} is not a tensor: it has no ndim", v.name);
            return static_cast<int64_t>(v.val->as<TensorView>()->logicalNoReductions().size());
          })
      .def_property_readonly("dtype",
                             [](const DefinitionValue& v) -> std::string {
                               FUSEBOX_USER_CHECK(v.val != nullptr, "a vector has no dtype");
                               return std::string(pythonName(v.val->dtype()));
                             })
      .def_property_readonly(
          "is_fusion_input",
          [](const DefinitionValue& v) { return v.val != nullptr && v.val->isFusionInput(); })
      .def("vector_items", [](const DefinitionValue& v) {
        py::list items;
        for (Val* x : v.vec) {
          DefinitionValue s;
          s.kind = DefinitionValue::Kind::Scalar;
          s.val = x;
          s.name = handleName(x);
          s.owner = v.owner;
          items.append(py::cast(s));
        }
        return items;
      });

  py::class_<DefinitionBuilder>(m, "_Builder")
      .def(py::init<>())
      .def("method",
           [](DefinitionBuilder& b, const std::string& name, py::tuple args, py::dict kwargs,
              const std::string& file, int line) {
             return callBuilder(b, &DefinitionBuilder::method, "fd.", name, args, kwargs, file,
                                line);
           })
      .def("op",
           [](DefinitionBuilder& b, const std::string& name, py::tuple args, py::dict kwargs,
              const std::string& file, int line) {
             return callBuilder(b, &DefinitionBuilder::op, "fd.ops.", name, args, kwargs, file,
                                line);
           })
      .def("value_method",
           [](DefinitionBuilder& b, const DefinitionValue& self, const std::string& name,
              py::tuple args, py::dict kwargs, const std::string& file, int line) {
             SourceLocation where{file, line, 0};
             DefinitionCall call =
                 toDefinitionCall(fmt::format("{}.{}", self.name, name), args, kwargs, where);
             return fromDefinitionValue(b.valueMethod(self, name, call));
           })
      .def("python", [](const DefinitionBuilder& b) { return pythonText(b.fusion()); })
      .def("finish", [](DefinitionBuilder& b) { return FusionCache::get().intern(b.release()); });

  py::class_<RunSettings>(m, "_RunSettings")
      .def(py::init([](std::string config, std::vector<std::string> settings,
                       std::vector<std::string> disabled_passes,
                       std::vector<std::string> disabled_schedulers,
                       std::vector<std::string> dumps) {
        // Fixed once made: its key is computed at the first call and kept.
        RunSettings r;
        r.config = std::move(config);
        r.settings = std::move(settings);
        r.disabled_passes = std::move(disabled_passes);
        r.disabled_schedulers = std::move(disabled_schedulers);
        r.dumps = std::move(dumps);
        return r;
      }))
      .def_property_readonly("key", &RunSettings::key);

  py::class_<CachedFusion, std::shared_ptr<CachedFusion>>(m, "_CachedFusion")
      .def_property_readonly("id", &CachedFusion::id)
      .def("python", [](const CachedFusion& c) { return pythonText(c.fusion()); })
      .def("fusion_ir", [](const CachedFusion& c) { return printFusion(c.fusion()); })
      .def("input_names", &CachedFusion::inputNames)
      .def("execute",
           [](CachedFusion& c, py::list inputs, const RunSettings& settings, uintptr_t stream,
              bool want_cuda) {
             // Index errors of earlier calls on any of this fusion's runtimes.
             c.checkDeferredIndexErrors(/*wait=*/false);
             auto [call, prepared] = prepareCall(c, inputs, settings, stream, want_cuda);
             FusionRuntime& runtime = *prepared;
             std::vector<Argument> outputs;
             try {
               outputs = runtime.run(call.arguments);
             } catch (...) {
               // Dumps written before the error still reach the caller's stream.
               py::module_::import("sys").attr("stdout").attr("write")(c.takeDump());
               throw;
             }
             c.setLastRuntime(&runtime);
             return py::make_tuple(toPythonOutputs(c.fusion(), outputs, call.arguments),
                                   c.takeDump(), c.takeDiagnostics());
           })
      .def("last_kernels",
           [](const CachedFusion& c) {
             py::list kernels;
             for (const KernelSource& k : lastRuntime(c).lastKernels())
               kernels.append(py::make_tuple(k.name, k.source));
             return kernels;
           })
      .def("last_segmentation",
           [](const CachedFusion& c) { return lastRuntime(c).lastSegmentation().toString(); })
      .def("last_fusion_ir",
           [](const CachedFusion& c) { return printFusion(lastRuntime(c).lastFusion()); })
      .def("last_run", [](const CachedFusion& c) { return lastRunDict(lastRuntime(c)); })
      .def("benchmark",
           [](CachedFusion& c, py::list inputs, const RunSettings& settings, uintptr_t stream,
              bool want_cuda, int iterations, bool flush_l2) {
             auto [call, prepared] = prepareCall(c, inputs, settings, stream, want_cuda);
             FusionRuntime& runtime = *prepared;
             std::vector<KernelBenchmark> bench = runtime.benchmarkKernels(
                 call.arguments, iterations, flush_l2 ? L2State::Flushed : L2State::Warm);
             c.setLastRuntime(&runtime);
             py::list result;
             for (const KernelBenchmark& k : bench) {
               py::dict d;
               d["group"] = k.group;
               d["kernel"] = k.kernel;
               d["median_ms"] = k.median_ms;
               d["bytes_moved"] = k.bytes_moved;
               d["gb_per_s"] = k.gigabytesPerSecond();
               result.append(d);
             }
             return py::make_tuple(result, c.takeDump(), c.takeDiagnostics());
           })
      .def("check_outputs", &checkOutputs)
      .def("runtime_count", &CachedFusion::runtimeCount);

  m.def("compute_tensor_descriptor",
        [](const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
          TensorDescriptor td = computeTensorDescriptor(sizes, strides);
          return py::make_tuple(td.contiguity, td.stride_order);
        });
  m.def("read_script", &readScript, py::arg("path"), py::arg("seed") = 0, py::arg("run") = true);
  m.def("check_deferred_index_errors", [] { FusionCache::get().checkDeferredIndexErrors(); });
  m.def("aliased_inputs", [](const CachedFusion& c) {
    // Positions of the inputs outputs are written into (alias_input).
    std::vector<int64_t> positions;
    const auto& inputs = c.fusion().inputs();
    for (const Val* out : c.fusion().outputs())
      if (const Val* in = c.fusion().aliasedInput(out))
        positions.push_back(std::find(inputs.begin(), inputs.end(), in) - inputs.begin());
    return positions;
  });
  bindCompareStatistics(m);
  m.def("num_fusions", [] { return FusionCache::get().size(); });
  m.def("clear_cache", [] { FusionCache::get().clear(); });
  m.def("fusion_by_id", [](int64_t id) { return FusionCache::get().byId(id); });
  m.def("op_names", &DefinitionBuilder::opNames);
  m.def("version", [] { return std::string(FUSEBOX_VERSION_STRING); });
  m.def("cuda_available", [] {
    CudaAvailability a = cudaAvailable();
    return py::make_tuple(a.available, a.reason);
  });
}
