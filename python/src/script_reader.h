// _fusebox.read_script (script_reader.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

namespace fusebox::python {

namespace py = pybind11;

// {"ir": the printed IR, "python": the definition printed back} and, when
// the script has an inputs list and `run`: {"inputs", "outputs",
// "inputs_after"} as torch_io items, computed on the host backend with the
// default config; input k drawn with seed + k, as `fusebox run` draws them.
py::dict readScript(const std::string& path, uint64_t seed, bool run);

}  // namespace fusebox::python
