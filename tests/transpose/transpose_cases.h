// Fusions for the transpose scheduler with the inputs they run on and the
// scheduler expected to take them, shared by the host suite
// (tests/transpose) and the GPU suite (tests/runtime_gpu).
#pragma once

#include <fusebox/frontend/python_definition.h>
#include <fusebox/tensor.h>

#include <string>
#include <vector>

#include "support/row_major_fill.h"

namespace fusebox::transpose_testing {

struct TransposeCase {
  std::string name;
  std::string body;  // the `with FusionDefinition() as fd:` block
  std::vector<Tensor> inputs;
  std::string scheduler;  // which scheduler runs the one segment
};

inline PythonDefinition parseCase(const TransposeCase& c) {
  return parsePythonDefinition(
      "from nvfuser import FusionDefinition, DataType\n"
      "with FusionDefinition() as fd:\n" +
          c.body,
      c.name + ".py");
}

// Distinct, exactly representable values (in bfloat16 too), laid out in
// `order` (nvFuser's stride_order; empty: row-major).
inline Tensor patterned(DataType dtype, const std::vector<int64_t>& sizes, int salt,
                        const std::vector<int64_t>& order = {}) {
  Tensor t = order.empty() ? Tensor::empty(dtype, sizes)
                           : Tensor::emptyWithStrideOrder(dtype, sizes, order);
  testing::fillRowMajor(
      t, [&](int64_t i) { return static_cast<double>((i * 37 + salt * 11) % 101 - 50) / 8; });
  return t;
}

inline std::string tensorLine(const std::string& name, int rank, const std::string& dtype,
                              const std::string& extra = "") {
  std::string shape, contiguity;
  for (int d = 0; d < rank; ++d) {
    shape += d ? ", -1" : "-1";
    contiguity += d ? ", True" : "True";
  }
  return "    " + name + " = fd.define_tensor(shape=[" + shape + "], contiguity=[" + contiguity +
         "], dtype=DataType." + dtype + extra + ")\n";
}

inline std::vector<TransposeCase> transposeCases() {
  const DataType f32 = DataType::Float;
  std::vector<TransposeCase> cases;
  // a + b.T with partial tiles along both dims.
  for (auto [dtype, name] :
       {std::pair{DataType::Float, "Float"}, std::pair{DataType::BFloat16, "BFloat16"},
        std::pair{DataType::Half, "Half"}})
    cases.push_back({std::string("a_plus_b_t_") + name,
                     tensorLine("T0", 2, name) + tensorLine("T1", 2, name) +
                         "    T2 = fd.ops.permute(T1, dims=[1, 0])\n"
                         "    T3 = fd.ops.add(T0, T2)\n"
                         "    fd.add_output(T3)\n",
                     {patterned(dtype, {67, 130}, 1), patterned(dtype, {130, 67}, 2)},
                     "transpose"});
  // A bias broadcast along the outputs' inner dim is read directly.
  cases.push_back(
      {"with_broadcast_bias",
       tensorLine("T0", 2, "Float") + tensorLine("T1", 2, "Float") + tensorLine("T2", 1, "Float") +
           "    T3 = fd.ops.permute(T1, dims=[1, 0])\n"
           "    T4 = fd.ops.broadcast_in_dim(T2, shape=T0.shape(), "
           "broadcast_dims=[1])\n"
           "    T5 = fd.ops.mul(T0, T3)\n"
           "    T6 = fd.ops.add(T5, T4)\n"
           "    fd.add_output(T6)\n",
       {patterned(f32, {40, 72}, 3), patterned(f32, {72, 40}, 4), patterned(f32, {72}, 5)},
       "transpose"});
  // A channels-last input (NCHW logical, C innermost in memory) to a
  // contiguous output (asked for: the allocation order pass would otherwise
  // give the output the input's order): the tile spans C and W, N and H are
  // the other dims.
  cases.push_back({"channels_last_to_contiguous",
                   tensorLine("T0", 4, "Float", ", stride_order=[3, 0, 2, 1]") +
                       "    T1 = fd.ops.relu(T0)\n"
                       "    fd.add_output(T1, stride_order=[3, 2, 1, 0])\n",
                   {patterned(f32, {2, 40, 5, 37}, 6, {3, 0, 2, 1})},
                   "transpose"});
  // A transposed output order: the input runs along dim 1, the output along 0.
  cases.push_back({"column_major_output",
                   tensorLine("T0", 2, "Float") + "    T1 = fd.ops.mul(T0, 2.0)\n"
                                                  "    fd.add_output(T1, stride_order=[0, 1])\n",
                   {patterned(f32, {50, 70}, 7)},
                   "transpose"});
  // A batch dim beside the transposed pair, and the same input read twice.
  cases.push_back({"batched",
                   tensorLine("T0", 3, "Float") + tensorLine("T1", 3, "Float") +
                       "    T2 = fd.ops.permute(T1, dims=[0, 2, 1])\n"
                       "    T3 = fd.ops.add(T0, T2)\n"
                       "    T4 = fd.ops.mul(T3, T2)\n"
                       "    fd.add_output(T4)\n"
                       "    fd.add_output(T3)\n",
                   {patterned(f32, {3, 40, 48}, 8), patterned(f32, {3, 48, 40}, 9)},
                   "transpose"});
  // Left to pointwise: nothing transposed, or an extent below a tile.
  cases.push_back({"nothing_transposed",
                   tensorLine("T0", 2, "Float") + tensorLine("T1", 2, "Float") +
                       "    T2 = fd.ops.add(T0, T1)\n"
                       "    fd.add_output(T2)\n",
                   {patterned(f32, {64, 64}, 10), patterned(f32, {64, 64}, 11)},
                   "pointwise"});
  // Vectors broadcast across the outputs' inner dim (a bias per row) are read
  // once per row, not transposed.
  cases.push_back({"broadcast_vectors",
                   tensorLine("T0", 3, "Float") + tensorLine("T1", 1, "Float") +
                       "    T2 = fd.ops.broadcast_in_dim(T1, shape=T0.shape(), "
                       "broadcast_dims=[1])\n"
                       "    T3 = fd.ops.mul(T0, T2)\n"
                       "    fd.add_output(T3)\n",
                   {patterned(f32, {4, 40, 48}, 14), patterned(f32, {40}, 15)},
                   "pointwise"});
  cases.push_back({"narrow",
                   tensorLine("T0", 2, "Float") + tensorLine("T1", 2, "Float") +
                       "    T2 = fd.ops.permute(T1, dims=[1, 0])\n"
                       "    T3 = fd.ops.add(T0, T2)\n"
                       "    fd.add_output(T3)\n",
                   {patterned(f32, {8, 100}, 12), patterned(f32, {100, 8}, 13)},
                   "pointwise"});
  return cases;
}

}  // namespace fusebox::transpose_testing
