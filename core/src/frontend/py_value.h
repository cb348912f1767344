// The values the definition interpreter computes while it reads a script:
// Python literals, nvFuser handles (tensors, scalars, vectors), dtypes, and
// torch constructors from an `inputs = [...]` list. Each remembers where it was
// written and, when it came from a variable, that variable's name, so errors
// can say "T3 is a scalar, expected a tensor" at the right line:col.
#pragma once

#include <fusebox/frontend/python_definition.h>
#include <fusebox/ir/ir.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusebox::frontend {

struct PyValue {
  enum class Kind {
    None,
    Bool,
    Int,
    Float,
    String,
    DType,       // DataType.X; `dtype` empty for DataType.Null
    TorchDType,  // torch.float32, ...
    List,
    Tuple,
    Tensor,    // an nvFuser tensor handle: `val` is a TensorView
    Scalar,    // an nvFuser scalar handle: `val` is a Scalar
    Vector,    // an nvFuser vector (define_vector, T.shape()): `vec`
    Input,     // a torch constructor from an inputs list: `input`
    Opaque,    // something understood and ignored (fd.execute's result, FusionDefinition())
    Complex,   // a complex number (`3.0 + 0j`): `f` real part, `imag`; only parsed, never used
    Slice,     // `start:stop:step` inside `[]`: `items` holds the three (each None or an Int)
    Ellipsis,  // `...` inside `[]`
  };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  // Int 2**63 (i holds INT64_MIN): the literal 9223372036854775808 or a sum
  // that reaches it. Only the expression reader sees one; it must be negated
  // before the expression ends, or the reader reports it does not fit.
  bool int_is_two_pow_63 = false;
  double f = 0;
  double imag = 0;  // Complex
  std::string s;
  std::optional<DataType> dtype;
  std::vector<PyValue> items;
  Val* val = nullptr;
  std::vector<Val*> vec;
  std::shared_ptr<InputSpec> input;
  SourceLocation where;
  std::string var;  // variable the value was read from, if any

  bool isNumber() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  bool isSequence() const { return kind == Kind::List || kind == Kind::Tuple; }

  static PyValue none(SourceLocation w) { return make(Kind::None, std::move(w)); }
  static PyValue boolean(bool v, SourceLocation w);
  static PyValue integer(int64_t v, SourceLocation w);
  static PyValue floating(double v, SourceLocation w);
  static PyValue make(Kind k, SourceLocation w) {
    PyValue p;
    p.kind = k;
    p.where = std::move(w);
    return p;
  }
};

// A Python slice applied to a sequence of length n (PySlice_AdjustIndices):
// element k of the result is start + k * step, for k < length.
struct SliceBounds {
  int64_t start = 0;
  int64_t step = 1;
  int64_t length = 0;
};
// `slice` is a Slice value; a zero step is an error at its location.
SliceBounds normalizeSlice(const PyValue& slice, int64_t n);

// `seq[start:stop:step]` of a list or tuple, as Python slices it.
PyValue sliceOf(const PyValue& seq, const PyValue& slice);

// `a op b` where either is complex (`3.0 + 0j`): + - * only. Complex numbers
// are read so that a script fails where it uses one, with a message about
// complex dtypes; `op_where` locates any other operator's error.
PyValue complexArithmetic(const std::string& op, const PyValue& a, const PyValue& b,
                          const SourceLocation& op_where);

// "a scalar", "a tensor", "a list", "an int", ...
std::string kindPhrase(PyValue::Kind kind);
// How an error names a value: the variable ("T3") or what it is ("the list [...]", "2.5").
std::string describeValue(const PyValue& v);
// "T3 is a scalar, expected a tensor" / "2.5 is a float, expected an int".
[[noreturn]] void throwWrongKind(const PyValue& v, const std::string& expected,
                                 const std::string& context);

// Python literals: "0.5", "3.0", "1e-05", "float('inf')", "True", "7".
std::string pythonFloat(double v);
std::string pythonLiteral(const ScalarValue& v);
// "torch.float32", "torch.bfloat16", "torch.int64", "torch.bool", ...
std::string torchDTypeName(DataType t);

// DataType.<name> (`name_where` locates the name, `where` the whole): Null
// gives a DType without a dtype; complex dtypes and spellings other than
// nvFuser's (DataType.float32) are UserErrors at the name.
PyValue dataTypeNamed(const std::string& name, const SourceLocation& where,
                      const SourceLocation& name_where);

// Complex numbers are read but not computed with: a UserError at `v`.
[[noreturn]] void throwComplexUnsupported(const PyValue& v);

// Conversions from interpreter values to builder arguments. `context` names the
// argument for messages ("argument 'dims' of fd.ops.sum"). Number literals
// become constants: int -> Int64, float -> Double, bool -> Bool.
PyValue fromVal(Val* v, SourceLocation where);
TensorView* asTensor(const PyValue& v, const std::string& context);
// A tensor, a scalar, or a number literal.
Val* asOperand(Fusion& f, const PyValue& v, const std::string& context);
// A scalar or a number literal.
Scalar* asScalar(Fusion& f, const PyValue& v, const std::string& context);
int64_t asInt(const PyValue& v, const std::string& context);
bool asBool(const PyValue& v, const std::string& context);
double asDouble(const PyValue& v, const std::string& context);
// A list or tuple of ints; a single int is a one-element list.
std::vector<int64_t> asIntList(const PyValue& v, const std::string& context);
std::vector<bool> asBoolList(const PyValue& v, const std::string& context);
// A list or tuple mixing ints and scalars, or a vector.
std::vector<Val*> asShape(Fusion& f, const PyValue& v, const std::string& context);
std::vector<TensorView*> asTensorList(const PyValue& v, const std::string& context);
// DataType.X; DataType.Null gives nullopt when allowed.
std::optional<DataType> asDataType(const PyValue& v, const std::string& context, bool allow_null);

}  // namespace fusebox::frontend
