// Malformed definitions: each must fail with a UserError that names the exact
// file:line:col and says what was expected. Nothing may crash.
#include <fusebox/frontend/python_definition.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frontend/definition_scripts.h"

namespace fusebox {
namespace {

constexpr const char* kHeader =
    "import torch\n"
    "from nvfuser import FusionDefinition, DataType\n"
    "\n"
    "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n";
constexpr int kHeaderLines = 4;
constexpr const char* kTwoInputs =
    "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n";

// A fusion body: each line indented by four spaces under kHeader.
std::string body(const std::string& lines) {
  return kHeader + testing::indented(lines);
}

struct BadCase {
  const char* name;
  std::string source;
  int line;  // in the whole file
  int column;
  const char* phrase;
};

// Cases written as fusion bodies: line/col counted within the body (the body's
// first line is 1, its first column 1), shifted here past the header and indent.
BadCase inBody(const char* name, const std::string& lines, int line, int col, const char* phrase) {
  return BadCase{name, body(lines), line + kHeaderLines, col + 4, phrase};
}

std::vector<BadCase> badCases() {
  const std::string t0 = kTwoInputs;
  return {
      // ---- ops: names, arity, keywords, operand kinds ----
      inBody("unknown_op", t0 + "T1 = fd.ops.foo(T0)", 2, 13,
             "unknown op fd.ops.foo (known: abs, acos, "),
      inBody("unexpected_keyword", t0 + "T1 = fd.ops.sum(T0, dimz=[0])", 2, 21,
             "unexpected keyword 'dimz' for fd.ops.sum (expected: dims, axes, dim, keepdim, "
             "keep_dim, dtype)"),
      inBody("too_many_args", t0 + "T1 = fd.ops.add(T0, T0, T0)", 2, 25,
             "fd.ops.add takes 2 arguments, got 3"),
      inBody("too_few_args", t0 + "T1 = fd.ops.add(T0)", 2, 6,
             "fd.ops.add takes 2 arguments, got 1 (missing 'arg2')"),
      inBody("missing_dtype", t0 + "T1 = fd.ops.cast(T0)", 2, 6,
             "fd.ops.cast takes 2 arguments, got 1 (missing 'dtype')"),
      inBody("optional_arity", t0 + "T1 = fd.ops.sum(T0, [0], False, DataType.Null, 7)", 2, 48,
             "fd.ops.sum takes 1 to 4 arguments, got 5"),
      inBody("undefined_variable", t0 + "T1 = fd.ops.add(T0, T9)", 2, 21, "undefined variable T9"),
      inBody("scalar_not_tensor", t0 + "S1 = fd.define_scalar(1.0)\nT2 = fd.ops.sum(S1, dims=[0])",
             3, 17, "S1 is a scalar, expected a tensor (argument 'arg' of fd.ops.sum)"),
      inBody("tensor_not_int", t0 + "T1 = fd.ops.sum(T0, dims=[T0])", 2, 27,
             "T0 is a tensor, expected an int"),
      inBody("keyword_twice", t0 + "T1 = fd.ops.sum(T0, dims=[0], dims=[1])", 2, 31,
             "keyword argument 'dims' given twice"),
      inBody("multiple_values", t0 + "T1 = fd.ops.sum(T0, [0], dims=[1])", 2, 26,
             "fd.ops.sum got multiple values for 'dims'"),
      inBody("positional_after_keyword", t0 + "T1 = fd.ops.sum(T0, dims=[0], True)", 2, 31,
             "positional argument follows keyword argument"),
      inBody("alias_keyword_twice", t0 + "T1 = fd.ops.sum(T0, dims=[0], axes=[1])", 2, 31,
             "fd.ops.sum got multiple values for 'dims'"),
      inBody("unsupported_dtype", t0 + "T1 = fd.ops.cast(T0, dtype=DataType.Float8_e4m3fn)", 2, 37,
             "unsupported dtype DataType.Float8_e4m3fn (supported: DataType.Bool"),
      inBody("complex_dtype", t0 + "T1 = fd.ops.cast(T0, dtype=DataType.ComplexFloat)", 2, 37,
             "DataType.ComplexFloat: complex dtypes are not supported"),
      inBody("complex_scalar", "S0 = fd.define_scalar(3.0 + 0j, DataType.Double)", 1, 23,
             "is a complex number; complex numbers and dtypes are not supported"),
      inBody("complex_operand", t0 + "T1 = fd.ops.mul(T0, complex(1, 2))", 2, 21,
             "(1+2j) is a complex number"),
      inBody("complex_division", "S0 = fd.define_scalar(1j / 2)", 1, 26,
             "operator '/' on complex numbers is not supported"),
      inBody("null_dtype_for_cast", t0 + "T1 = fd.ops.cast(T0, dtype=DataType.Null)", 2, 28,
             "DataType.Null is not allowed here"),
      inBody("rng_seed_without_offset",
             t0 + "S1 = fd.define_scalar(1, dtype=DataType.Int)\nT2 = fd.ops.rand_like(T0, "
                  "rng_seed=S1)",
             3, 6, "fd.ops.rand_like needs both rng_seed and rng_offset"),
      inBody("empty_cat", t0 + "T1 = fd.ops.cat([], dim=0)", 2, 17, "needs at least one tensor"),
      inBody("manual_padding", t0 + "T1 = fd.ops.cat([T0, T0], dim=0, manual_padding=1)", 2, 49,
             "manual_padding=True is not supported"),
      inBody("manual_normalization_value",
             t0 + "T1 = fd.ops.slice(T0, [0, 0], [1, 1], manual_normalization=2)", 2, 60,
             "expected 0 or 1 (argument 'manual_normalization' of fd.ops.slice)"),
      // ---- errors from the builder, re-thrown at the call ----
      inBody("shape_mismatch",
             "T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float)\n"
             "T1 = fd.define_tensor(shape=[4, 3], contiguity=[True, True], dtype=DataType.Float)\n"
             "T2 = fd.ops.add(T0, T1)",
             3, 6, "fd.ops.add: "),
      inBody("reshape_two_inferred", t0 + "T1 = fd.ops.reshape(T0, new_shape=[-1, -1])", 2, 6,
             "fd.ops.reshape: new_shape"),
      inBody("bad_reduction_dim", t0 + "T1 = fd.ops.sum(T0, dims=[5])", 2, 6, "fd.ops.sum"),
      inBody("bad_permute", t0 + "T1 = fd.ops.permute(T0, dims=[0, 0])", 2, 6, "fd.ops.permute"),
      // ---- fd.define_* and add_output ----
      inBody("contiguity_length",
             "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True], dtype=DataType.Float)", 1,
             50, "contiguity has 1 entries, expected 2 (one per dim of shape)"),
      inBody("stride_order_not_permutation",
             "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], stride_order=[1, 1])",
             1, 77, "stride_order must be a permutation of 0..1"),
      inBody("negative_size", "T0 = fd.define_tensor(shape=[-1, -2])", 1, 34,
             "size -2 in argument 'shape'"),
      inBody("define_scalar_string", "S0 = fd.define_scalar('x', dtype=DataType.Double)", 1, 23,
             "'x' is a string, expected a number or None"),
      inBody("unknown_fd_method", "T0 = fd.define_tensr(shape=[-1])", 1, 9,
             "unknown FusionDefinition method fd.define_tensr"),
      inBody("execute_in_body", "fd.execute([])", 1, 4, "fd.execute belongs after"),
      inBody("add_output_list", "fd.add_output([1, 2])", 1, 15, "expected a tensor or a scalar"),
      inBody("alias_not_input",
             t0 + "T1 = fd.ops.exp(T0)\nT2 = fd.ops.neg(T1)\nfd.add_output(T2, alias_input=T1)", 4,
             31, "alias_input T1 is not a fusion input"),
      inBody("output_stride_order_rank",
             t0 + "T1 = fd.ops.exp(T0)\nfd.add_output(T1, stride_order=[0, 1, 2])", 3, 32,
             "stride_order must be a permutation of 0..1 (T1 has 2 dims)"),
      // ---- statements and expressions ----
      inBody("unpack_count", t0 + "T1, T2, T3 = fd.ops.var_mean(T0, dims=[0])", 2, 1,
             "3 names on the left, but the call returns 2 values"),
      inBody("unpack_tensor", t0 + "T1, T2 = fd.ops.exp(T0)", 2, 1,
             "cannot unpack a tensor into 2 names"),
      inBody("unpack_bracketed_count", t0 + "(T1, T2, T3) = fd.ops.var_mean(T0, dims=[0])", 2, 2,
             "3 names on the left, but the call returns 2 values"),
      inBody("bracketed_not_names", t0 + "(T1, 2) = fd.ops.var_mean(T0, dims=[0])", 2, 1,
             "a statement such as"),
      inBody("unknown_method", t0 + "S1 = T0.sizes(0)", 2, 9, "has no method 'sizes'"),
      inBody("size_out_of_range", t0 + "S1 = T0.size(5)", 2, 14,
             "dim 5 is out of range for T0 of rank 2"),
      inBody("index_out_of_range", t0 + "V1 = T0.shape()\nS2 = V1[3]", 3, 9,
             "index 3 is out of range for V1 of length 2"),
      inBody("attribute_access", t0 + "S1 = T0.ndim", 2, 9,
             "attribute 'ndim' of T0 is not supported"),
      inBody("for_in_body", t0 + "for i in range(3):\n    pass", 2, 1,
             "'for' is not supported inside a fusion definition"),
      inBody("tensor_arithmetic", t0 + "T1 = T0 + T0", 2, 6,
             "T0 is a tensor, expected a number (operator '+' only works on number literals"),
      inBody("comparison_operator", t0 + "T1 = fd.ops.where(T0 == T0, T0, T0)", 2, 22,
             "operator '==' is not supported"),
      inBody("division_by_zero", "S0 = fd.define_scalar(1 / 0)", 1, 25, "division by zero"),
      inBody("lambda", "S0 = lambda x: x", 1, 6, "'lambda' is not supported"),
      inBody("double_star_args", t0 + "T1 = fd.ops.add(**kw)", 2, 17,
             "'**' arguments are not supported"),
      inBody("star_args_of_tensor", t0 + "T1 = fd.ops.add(*T0)", 2, 18,
             "T0 is a tensor, expected a list or tuple (a '*' argument)"),
      inBody("star_after_keyword", t0 + "T1 = fd.ops.add(arg1=T0, *[T0])", 2, 26,
             "'*' argument follows keyword argument"),
      inBody("slice_syntax", t0 + "V1 = T0.shape()\nS2 = V1[0:1]", 3, 9,
             "slicing V1 (a vector) is not supported; index it with an int"),
      inBody("slice_step_zero", "S0 = fd.define_scalar([1, 2, 3][::0])", 1, 35,
             "slice step cannot be zero"),
      inBody("dict_literal", "S0 = fd.define_scalar({})", 1, 23,
             "dicts and sets are not supported"),
      inBody("not_callable", t0 + "T1 = T0(1)", 2, 8, "T0 is not callable"),
      inBody("undefined_function", "T0 = make_tensor()", 1, 6, "undefined function make_tensor"),
      inBody("garbage_after_statement", t0 + "T1 = fd.ops.exp(T0) T2", 2, 21,
             "expected end of line, found 'T2'"),
      // ---- lexer ----
      inBody("unterminated_string", "S0 = fd.define_scalar('abc)", 1, 23, "unterminated string"),
      inBody("unexpected_character", "S0 = fd.define_scalar(1) $", 1, 26,
             "unexpected character '$'"),
      inBody("unclosed_paren", t0 + "T1 = fd.ops.add(T0, T0", 2, 16, "'(' is never closed"),
      inBody("mismatched_bracket", t0 + "T1 = fd.ops.add(T0, T0]", 2, 23, "']' does not match '('"),
      inBody("bad_number", "S0 = fd.define_scalar(12abc)", 1, 25,
             "unexpected character 'a' in a number"),
      inBody("integer_overflow", "S0 = fd.define_scalar(99999999999999999999)", 1, 23,
             "integer 99999999999999999999 does not fit in int64"),
      BadCase{"inconsistent_dedent", body(t0) + "  fd.add_output(T0)\n", 6, 3,
              "indentation does not match any enclosing block"},
      BadCase{"unexpected_indent", "import torch\n    import torch\n", 2, 5,
              "unexpected indentation"},
      BadCase{"non_ascii", "import torch\nT0 = \xc3\xa9\n", 2, 6, "unexpected non-ASCII character"},
      // ---- script structure ----
      BadCase{"unsupported_import", "import numpy\n", 1, 8, "unsupported import 'numpy'"},
      BadCase{"unsupported_from_import", "from nvfuser import FusionDefinition, Tensor\n", 1, 39,
              "unsupported import 'Tensor' from nvfuser"},
      BadCase{"import_from_torch", "from torch import nn\n", 1, 6,
              "unsupported import from 'torch'"},
      BadCase{"no_fusion", "import torch\nfrom nvfuser import FusionDefinition, DataType\n", 3, 1,
              "no fusion definition found"},
      BadCase{"empty_file", "", 1, 1, "no fusion definition found"},
      BadCase{"second_def", body(t0) + "def other(fd : FusionDefinition) -> None :\n    pass\n", 6,
              5, "a second fusion function 'other'"},
      BadCase{"def_missing_colon", "def f(fd : FusionDefinition) -> None\n    pass\n", 1, 37,
              "expected ':' after the function signature"},
      BadCase{"def_two_params", "def f(fd, x):\n    pass\n", 1, 9,
              "a fusion function takes one parameter"},
      BadCase{"with_other_class", "with open('x') as f:\n    pass\n", 1, 6,
              "expected `with FusionDefinition() as fd:`"},
      BadCase{"with_args", "with FusionDefinition(1) as fd:\n    pass\n", 1, 23,
              "FusionDefinition() takes no arguments"},
      BadCase{"call_without_fd",
              body(t0) + "with FusionDefinition() as fd:\n    nvfuser_fusion_id0()\n", 7, 5,
              "expected nvfuser_fusion_id0(fd)"},
      BadCase{"call_twice",
              body(t0) + "with FusionDefinition() as fd:\n    nvfuser_fusion_id0(fd)\n    "
                         "nvfuser_fusion_id0(fd)\n",
              8, 5, "nvfuser_fusion_id0 is called twice"},
      BadCase{
          "second_with",
          "with FusionDefinition() as fd:\n    pass\nwith FusionDefinition() as fd:\n    pass\n", 3,
          6, "a second FusionDefinition block"},
      BadCase{"for_not_range", body(t0) + "for x in inputs:\n    pass\n", 6, 10,
              "only `for _ in range(n):` loops"},
      BadCase{"if_other", body(t0) + "if True:\n    pass\n", 6, 1,
              "only `if __name__ == \"__main__\":`"},
      BadCase{"top_level_garbage", body(t0) + "42\n", 6, 1, "expected an import, a def"},
      BadCase{
          "execute_not_list",
          body(t0) + "with FusionDefinition() as fd:\n    nvfuser_fusion_id0(fd)\nfd.execute(3)\n",
          8, 12, "3 is an int, expected the inputs list"},
      BadCase{"unknown_top_call", body(t0) + "run(1)\n", 6, 1,
              "unsupported call run(...) at the top level"},
      // ---- the inputs list ----
      BadCase{"inputs_count", body(t0) + "inputs = [\n    torch.randn(2, 3),\n    1.0,\n]\n", 6, 10,
              "the inputs list has 2 entries, but the fusion has 1 inputs (T0)"},
      BadCase{"inputs_entry", body(t0) + "inputs = [\n    'x',\n]\n", 7, 5,
              "inputs[0] is a string, expected a torch constructor"},
      BadCase{"torch_empty", body(t0) + "inputs = [torch.empty(2, 3)]\n", 6, 17,
              "unsupported call torch.empty (supported: torch.randn"},
      BadCase{"torch_dtype", body(t0) + "inputs = [torch.randn(2, 3, dtype=torch.float8_e5m2)]\n",
              6, 35, "unsupported torch name torch.float8_e5m2"},
      BadCase{"torch_complex_dtype",
              body(t0) + "inputs = [torch.randn(2, 3, dtype=torch.complex64)]\n", 6, 35,
              "torch.complex64: complex dtypes are not supported"},
      BadCase{"randn_int", body(t0) + "inputs = [torch.randn(2, 3, dtype=torch.int64)]\n", 6, 35,
              "torch.randn needs a floating dtype, got torch.int64"},
      BadCase{"randint_range", body(t0) + "inputs = [torch.randint(5, 5, (2, 3))]\n", 6, 28,
              "torch.randint needs low < high, got low=5 high=5"},
      BadCase{"as_strided_too_big",
              body(t0) + "inputs = [torch.randn(4).as_strided((2, 3), (3, 1))]\n", 6, 26,
              "as_strided view needs 6 elements of storage, but the tensor it views has 4"},
      BadCase{"as_strided_ranks", body(t0) + "inputs = [torch.randn(6).as_strided((2, 3), (1,))]\n",
              6, 45, "as_strided got 2 sizes but 1 strides"},
      BadCase{"input_method", body(t0) + "inputs = [torch.randn(6).numpy()]\n", 6, 26,
              "unsupported method .numpy on a torch tensor"},
      BadCase{"randn_no_size", body(t0) + "inputs = [torch.randn(device='cuda')]\n", 6, 11,
              "torch.randn needs a size"},
      BadCase{"make_tensor_no_dtype",
              body(t0) + "inputs = [torch.testing.make_tensor((2, 3), device='cuda')]\n", 6, 11,
              "missing 'dtype'"},
      BadCase{"negative_input_size", body(t0) + "inputs = [torch.zeros(2, -3)]\n", 6, 26,
              "size -3 must not be negative"},
      // ---- tensors of the inputs list: constructors, views, copies ----
      BadCase{"empty_tensor_strides_overflow",
              body(t0) + "inputs = [torch.zeros(0, 9223372036854775807, 4)]\n", 6, 11,
              "the strides of a tensor of size (0, 9223372036854775807, 4) overflow int64"},
      BadCase{"as_strided_negative_stride",
              body(t0) + "inputs = [torch.randn(4).as_strided((2,), (-1,))]\n", 6, 44,
              "stride -1 must not be negative"},
      BadCase{"expand_mismatch", body(t0) + "inputs = [torch.randn(2, 3).expand(4, 3)]\n", 6, 29,
              "the expanded size of the tensor (4) must match the existing size (2) at "
              "non-singleton dimension 0"},
      BadCase{"t_rank3", body(t0) + "inputs = [torch.randn(2, 3, 4).t()]\n", 6, 32,
              "t() expects a tensor with <= 2 dimensions, but this one has 3"},
      BadCase{"negative_step", body(t0) + "inputs = [torch.randn(4)[::-1]]\n", 6, 26,
              "slices of a torch tensor need a positive step"},
      BadCase{"too_many_indices", body(t0) + "inputs = [torch.randn(4)[0, 1]]\n", 6, 25,
              "too many indices for a tensor of 1 dims"},
      BadCase{"two_ellipses", body(t0) + "inputs = [torch.randn(4)[..., ...]]\n", 6, 25,
              "an index can only have a single ellipsis"},
      BadCase{"index_out_of_bounds", body(t0) + "inputs = [torch.randn(4)[5]]\n", 6, 26,
              "index 5 is out of bounds for dim 0 with size 4"},
      BadCase{"reshape_noncontiguous", body(t0) + "inputs = [torch.randn(2, 3).t().reshape(6)]\n",
              6, 33, "reshape of a non-contiguous tensor is not supported"},
      BadCase{"reshape_size", body(t0) + "inputs = [torch.randn(2, 3).reshape(4, -1)]\n", 6, 29,
              "reshape: shape [4, -1] is invalid for a tensor of 6 elements"},
      BadCase{"channels_last_rank",
              body(t0) + "inputs = [torch.randn(2, 3).to(memory_format=torch.channels_last)]\n", 6,
              29, "torch.channels_last needs a tensor of 4 dims, this one has 2"},
      BadCase{
          "memory_format_3d",
          body(t0) + "inputs = [torch.randn(4).contiguous(memory_format=torch.channels_last_3d)]\n",
          6, 51, "expected torch.contiguous_format, torch.channels_last or"},
      BadCase{"to_bad_argument", body(t0) + "inputs = [torch.randn(4).to(3)]\n", 6, 29,
              "3 is an int, expected a torch dtype or a device such as 'cuda'"},
      BadCase{"unsqueeze_range", body(t0) + "inputs = [torch.randn(2).unsqueeze(2)]\n", 6, 36,
              "dim 2 is out of range for a tensor of 1 dims"},
      BadCase{"unsupported_attribute", body(t0) + "inputs = [torch.randn(4).device]\n", 6, 26,
              "unsupported attribute .device of a torch tensor"},
      BadCase{"tensor_ragged", body(t0) + "inputs = [torch.tensor([[1, 2], [3]])]\n", 6, 33,
              "torch.tensor: expected a sequence of length 2 at dim 1 (got 1)"},
      BadCase{"tensor_complex", body(t0) + "inputs = [torch.tensor([1j])]\n", 6, 25,
              "is a complex number; complex numbers and dtypes are not supported"},
      BadCase{"tensor_int32_overflow",
              body(t0) + "inputs = [torch.tensor([3000000000], dtype=torch.int32)]\n", 6, 25,
              "torch.tensor element 3000000000 does not fit in torch.int32"},
      BadCase{"arange_direction", body(t0) + "inputs = [torch.arange(5, 0)]\n", 6, 11,
              "torch.arange(5, 0, 1): the step must be nonzero and lead from start towards end"},
      BadCase{"arange_bool", body(t0) + "inputs = [torch.arange(5, dtype=torch.bool)]\n", 6, 33,
              "torch.arange cannot make torch.bool values"},
      BadCase{"complex_input", body(t0) + "inputs = [1j]\n", 6, 11, "is a complex number"},
      // ---- the definition reading the module: from_pytorch, module-level names ----
      BadCase{"pytorch_utils_import", "from nvfuser.pytorch_utils import foo\n", 1, 35,
              "unsupported import 'foo' from nvfuser.pytorch_utils (expected "
              "torch_dtype_to_nvfuser_dtype)"},
      inBody("from_pytorch_not_tensor", "T0 = fd.from_pytorch(DataType.Float)", 1, 22,
             "expected a torch tensor such as inputs[0], or a number (argument 'tensor' of "
             "fd.from_pytorch)"),
      BadCase{"from_pytorch_order",
              body("T0 = fd.from_pytorch(inputs[1])\nT1 = fd.from_pytorch(inputs[0])") +
                  "inputs = [torch.randn(2), torch.randn(3, 2)]\n",
              5, 13,
              "fd.from_pytorch(inputs[1]) defines fusion input 0, but fd.execute(inputs) passes "
              "inputs[0] there"},
      BadCase{"inputs_index_range",
              body("T0 = fd.from_pytorch(inputs[2])") + "inputs = [torch.randn(2)]\n", 5, 33,
              "index 2 is out of range for inputs of length 1"},
      BadCase{"module_name_assigned_later",
              body("S0 = fd.define_scalar(N)\nN = 3\nfd.add_output(S0)") + "N = 2\n", 5, 27,
              "N is read before the function assigns it"},
      inBody("strides_count", "T0 = fd.define_tensor(sizes=[2, 3], strides=[1])", 1, 45,
             "2 sizes but 1 strides"),
      inBody("negative_stride", "T0 = fd.define_tensor(sizes=[2, 3], strides=[-1, 1])", 1, 45,
             "stride -1 of dim 0 is negative"),
  };
}

void PrintTo(const BadCase& c, std::ostream* os) {
  *os << c.name;
}

class BadInputTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInputTest, NamesFileLineColumnAndWhatWasExpected) {
  const BadCase& c = GetParam();
  try {
    parsePythonDefinition(c.source, "bad.py");
    FAIL() << "no error for:\n" << c.source;
  } catch (const UserError& e) {
    EXPECT_EQ(e.where().file, "bad.py");
    EXPECT_EQ(e.where().line, c.line) << e.what();
    EXPECT_EQ(e.where().column, c.column) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.phrase), std::string::npos)
        << "message: " << e.what() << "\nexpected phrase: " << c.phrase;
    std::string prefix = "bad.py:" + std::to_string(c.line) + ":" + std::to_string(c.column) + ": ";
    EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Table, BadInputTest, ::testing::ValuesIn(badCases()),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(BadInput, MissingFileIsAUserErrorNamingThePath) {
  try {
    parsePythonFile("/nonexistent/definition.py");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/definition.py"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos);
  }
}

}  // namespace
}  // namespace fusebox
