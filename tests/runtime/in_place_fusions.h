// Fusions whose aliased outputs a kernel can write over their inputs (the
// pointwise scheduler honours RuntimeInfo::inPlaceRequests), shared by the
// host and GPU suites.
#pragma once

#include <fusebox/frontend/python_definition.h>

#include <string>

namespace fusebox::runtime_testing {

inline PythonDefinition parseInPlace(const std::string& body) {
  return parsePythonDefinition(
      "from nvfuser import FusionDefinition, DataType\n"
      "with FusionDefinition() as fd:\n" +
          body,
      "in_place_test.py");
}

// One Adam step over a flat parameter: the parameter and both moments are
// updated in place (three aliased outputs, one kernel).
inline PythonDefinition adamStep() {
  return parseInPlace(
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T4 = fd.ops.mul(T2, 0.9)\n"
      "    T5 = fd.ops.mul(T1, 0.1)\n"
      "    T6 = fd.ops.add(T4, T5)\n"
      "    T7 = fd.ops.mul(T3, 0.999)\n"
      "    T8 = fd.ops.mul(T1, T1)\n"
      "    T9 = fd.ops.mul(T8, 0.001)\n"
      "    T10 = fd.ops.add(T7, T9)\n"
      "    T11 = fd.ops.sqrt(T10)\n"
      "    T12 = fd.ops.add(T11, 1e-08)\n"
      "    T13 = fd.ops.div(T6, T12)\n"
      "    T14 = fd.ops.mul(T13, 0.001)\n"
      "    T15 = fd.ops.sub(T0, T14)\n"
      "    fd.add_output(T15, alias_input=T0)\n"
      "    fd.add_output(T6, alias_input=T2)\n"
      "    fd.add_output(T10, alias_input=T3)\n");
}

// The aliased output does not read its input; another output does, and must
// see the old value (the kernel reads the input before it writes it).
inline PythonDefinition overwrittenThenRead() {
  return parseInPlace(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T2 = fd.ops.mul(T1, 2.0)\n"
      "    T3 = fd.ops.add(T0, 1.0)\n"
      "    fd.add_output(T2, alias_input=T0)\n"
      "    fd.add_output(T3)\n");
}

// The input is also read transposed: other threads read an element after
// its own thread wrote it, so it is copied in after the call instead.
inline PythonDefinition readTransposed() {
  return parseInPlace(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "    T1 = fd.ops.permute(T0, dims=[1, 0])\n"
      "    T2 = fd.ops.add(T0, T1)\n"
      "    fd.add_output(T2, alias_input=T0)\n");
}

}  // namespace fusebox::runtime_testing
