// _fusebox.read_script: what the script reader (fusebox run) makes of a
// definition script, for tests that check the module against it: the
// fusion's printed IR, the inputs its `inputs = [...]` list makes (seeded as
// `fusebox run` seeds them) and the outputs fusebox's host backend computes
// from them.
#include "script_reader.h"

#include <fusebox/frontend/python_definition.h>
#include <fusebox/ir/printer.h>

#include "fusion_cache.h"
#include "torch_io.h"

namespace fusebox::python {

py::dict readScript(const std::string& path, uint64_t seed, bool run) {
  PythonDefinition def = parsePythonFile(path);
  py::dict result;
  result["ir"] = printFusion(*def.fusion);
  result["python"] = [&] {
    PythonPrintOptions options;
    options.repro_script = false;
    return printPythonDefinition(*def.fusion, options);
  }();
  if (!def.has_inputs_list || !run) return result;
  // Two sets of the same values: the caller's, and the one this run may
  // update in place (alias_input), returned afterwards as inputs_after.
  auto materialize = [&] {
    std::vector<Argument> inputs;
    for (size_t k = 0; k < def.inputs.size(); ++k)
      inputs.push_back(materializeInput(def.inputs[k], seed + k));
    return inputs;
  };
  result["inputs"] = toPythonArguments(materialize());
  std::vector<Argument> inputs = materialize();
  CachedFusion reader(-1, std::move(def.fusion));
  FusionRuntime& runtime = reader.runtime(RunSettings{}, BackendChoice::Host);
  std::vector<Argument> outputs = runtime.run(inputs);
  result["outputs"] = toPythonOutputs(reader.fusion(), outputs, inputs);
  result["inputs_after"] = toPythonArguments(inputs);
  return result;
}

}  // namespace fusebox::python
