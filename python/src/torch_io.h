// torch tensors in and out without linking libtorch: the Python side hands
// each tensor over as (data pointer, sizes, strides, dtype, device), so one
// build serves every torch version; outputs go back as DLPack capsules
// (DLPack 0.6, which torch 1.13 reads) or, when an output is a view of an
// input, as the view to take of that input.
#pragma once

#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/fusion.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

namespace fusebox::python {

namespace py = pybind11;

struct CallInputs {
  std::vector<Argument> arguments;
  bool on_cuda = false;  // some tensor input is a CUDA tensor
};

// `inputs` holds, per fusion input, a tuple ("tensor", data_ptr, sizes,
// strides, dtype name, device type "cpu"/"cuda", device index) or a Python
// bool, int or float. `names` names the fusion inputs ("T0") in messages.
// Wrong counts, unknown dtypes, a tensor on a second GPU or a CPU tensor (of
// rank > 0) beside CUDA tensors are UserErrors naming the input.
CallInputs toCallInputs(py::list inputs, const std::vector<std::string>& names);

// One item per output the caller sees (outputs written into an input,
// `alias_input`, are not returned, as in nvFuser):
//   ("dlpack", capsule, dtype name)          a tensor the runtime made
//   ("view", input index, sizes, strides, element offset, dtype name)
//                                            a view of input k's memory
//   ("scalar", value, dtype name)            a scalar output
// A bool tensor travels as uint8 (DLPack 0.6 has no bool); the dtype name
// says to view it back.
py::list toPythonOutputs(const Fusion& fusion, const std::vector<Argument>& outputs,
                         const std::vector<Argument>& inputs);

// Host arguments as ("dlpack", capsule, dtype name) or ("scalar", value,
// dtype name) items (the capsules share the tensors' storage).
py::list toPythonArguments(const std::vector<Argument>& arguments);

}  // namespace fusebox::python
