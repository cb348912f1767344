// Reads nvFuser's straight-line Python fusion definitions and repro scripts:
//
//   def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
//       T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
//       ...
//       fd.add_output(T3)
//   inputs = [torch.randn(16, 512, device='cuda'), ...]
//   with FusionDefinition() as fd:
//       nvfuser_fusion_id0(fd)
//   for _ in range(5):
//       fd.execute(inputs)
//
// Anything outside that subset is a UserError naming file:line:col and what
// was expected.
#pragma once

#include <fusebox/error.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/fusion.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

// One entry of the script's `inputs = [...]` list.
struct InputSpec {
  enum class Kind { Randn, Rand, Ones, Zeros, Full, Randint, MakeTensor, Scalar };
  Kind kind = Kind::Randn;
  // The tensor's sizes as the fusion sees them: the constructor's shape, or the
  // `size` of `.as_strided(size, stride)` when there is one.
  std::vector<int64_t> shape;
  DataType dtype = DataType::Float;
  std::optional<std::vector<int64_t>> strides;  // from .as_strided(size, stride)
  // With .as_strided: the constructor's own shape (the storage the view lives
  // in) and the view's storage offset.
  std::vector<int64_t> base_shape;
  int64_t storage_offset = 0;
  ScalarValue fill_value = 0.0;               // Full (an int stays exact)
  int64_t low = 0, high = 0;                  // Randint (and make_tensor low/high when set)
  std::optional<double> make_low, make_high;  // make_tensor low=/high=
  bool exclude_zero = false;                  // make_tensor exclude_zero=True
  ScalarValue scalar = 0.0;                   // Scalar (a plain number in the list)
  SourceLocation where;
};

// The entry as Python, e.g. "torch.randn((2, 3), dtype=torch.float32, device='cuda:0')".
std::string toPython(const InputSpec& spec);

struct PythonDefinition {
  std::unique_ptr<Fusion> fusion;
  std::string function_name;                    // "nvfuser_fusion_id0" (empty for a bare body)
  std::vector<std::string> input_names;         // script variable of each fusion input, in order
  std::vector<SourceLocation> input_locations;  // where each fusion input was defined
  std::vector<InputSpec> inputs;                // the `inputs = [...]` list; empty if absent
  bool has_inputs_list = false;
};

PythonDefinition parsePythonDefinition(std::string_view source, const std::string& filename);
// Reads a script of at most kMaxScriptBytes from a regular file (anything else,
// such as /dev/urandom or a FIFO, is a UserError naming the file).
PythonDefinition parsePythonFile(const std::string& path);
inline constexpr uint64_t kMaxScriptBytes = uint64_t{16} << 20;  // 16 MiB

// Makes the tensor or scalar an InputSpec describes. Random values are a pure
// function of (spec, seed); callers pass a different seed per input (e.g. the
// base seed plus the input's position). Values:
//   randn: N(0, 1); rand: U[0, 1); randint: integers in [low, high);
//   make_tensor: U[low, high) with torch's defaults ([-9, 9] for floating types,
//   [-9, 10) for integers, {0, 1} for bool); ones / zeros / full: constant.
// With .as_strided the base tensor is filled in row-major order and the view
// returned (sharing its storage).
Argument materializeInput(const InputSpec& spec, uint64_t seed);

struct PythonPrintOptions {
  std::string function_name = "nvfuser_fusion_id0";
  // Also print the `inputs = [...]` list, the `with FusionDefinition()` block and
  // an execute call, so the output is a runnable repro script. When `inputs` is
  // empty a list is made from the fusion's input definitions (symbolic extents
  // become `symbolic_extent`).
  bool repro_script = true;
  std::vector<InputSpec> inputs;
  int64_t symbolic_extent = 8;
};

// Writes a fusion back as an nvFuser Python definition. parse(print(f)) is
// structurally equal to f.
std::string printPythonDefinition(const Fusion& fusion, const PythonPrintOptions& options = {});

}  // namespace fusebox
