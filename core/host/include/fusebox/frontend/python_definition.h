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

// Elementwise math on an inputs-list tensor (`x + 0.5`, `2 * x`, `-x`,
// `x.abs()`, `x.clamp(0, 1)`): one torch op, made as a copy (InputCopy) whose
// values are the op's results. Computed in float64 (int64 where the result is
// an integer dtype, wrapping as torch does) and stored as the copy's dtype.
struct InputMath {
  enum class Op {
    Add,
    Sub,
    Mul,
    Div,
    Pow,  // with `operand`; `operand_first`: `2 - x`
    Neg,
    Abs,
    Exp,
    Log,
    Log1p,
    Expm1,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Tanh,
    Sigmoid,
    Reciprocal,
    Clamp,  // between `low` and `high` (either may be absent)
  };
  Op op = Op::Add;
  ScalarValue operand = 0.0;
  bool operand_first = false;
  std::optional<ScalarValue> low, high;
};

// A copy torch makes between an inputs-list constructor and the tensor the
// fusion gets (`.to(dtype)`, `.contiguous()`, `.to(memory_format=...)`,
// `.clone()`): the storage so far, viewed as (shape, strides, storage_offset),
// becomes a new storage of `dtype` holding the same values laid out with
// `new_strides`.
struct InputCopy {
  // How the copy's layout was chosen, so that it can be written back as the
  // torch call that makes it: Preserve keeps the view's strides when they are
  // dense and free of overlaps (torch's preserve_format), else row-major.
  enum class Layout { Preserve, Contiguous, ChannelsLast };
  std::vector<int64_t> shape, strides;
  int64_t storage_offset = 0;
  DataType dtype = DataType::Float;
  Layout layout = Layout::Preserve;
  std::vector<int64_t> new_strides;
  // An arithmetic copy: the values are this op's results.
  std::optional<InputMath> math;
};

// One entry of the script's `inputs = [...]` list.
struct InputSpec {
  enum class Kind {
    Randn,
    Rand,
    Ones,
    Zeros,
    Full,
    Randint,
    MakeTensor,
    Literal,  // torch.tensor(data): `values`
    Arange,   // torch.arange(start, end, step)
    Scalar,
  };
  Kind kind = Kind::Randn;
  // The tensor's sizes as the fusion sees them: the constructor's shape, or the
  // view's (`.as_strided(size, stride)`, `.t()`, `.expand(...)`, `x[:, 1:]`, ...).
  std::vector<int64_t> shape;
  DataType dtype = DataType::Float;  // the tensor's dtype (after any .to(dtype))
  // The view's strides over its storage (the constructor's, or the last copy's);
  // always set when there are copies.
  std::optional<std::vector<int64_t>> strides;
  // With a view or copies: the constructor's own shape (the storage the first
  // view or copy reads) and the final view's storage offset.
  std::vector<int64_t> base_shape;
  int64_t storage_offset = 0;
  // With copies: the dtype the constructor makes (copies[i].dtype are the later ones).
  std::optional<DataType> constructor_dtype;
  std::vector<InputCopy> copies;
  ScalarValue fill_value = 0.0;               // Full (an int stays exact)
  int64_t low = 0, high = 0;                  // Randint (and make_tensor low/high when set)
  std::optional<double> make_low, make_high;  // make_tensor low=/high=
  bool exclude_zero = false;                  // make_tensor exclude_zero=True
  std::vector<ScalarValue> values;            // Literal: row-major, as written
  ScalarValue arange_start = int64_t{0};      // Arange: element k is start + k * step
  ScalarValue arange_end = int64_t{0};
  ScalarValue arange_step = int64_t{1};
  ScalarValue scalar = 0.0;  // Scalar (a plain number in the list)
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
//   [-9, 10) for integers, {0, 1} for bool); ones / zeros / full: constant;
//   tensor: the values written; arange: start + k * step.
// The constructor's tensor is filled in row-major order; copies and the view
// follow (the view shares its storage).
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
