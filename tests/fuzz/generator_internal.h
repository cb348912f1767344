// The generator's state: the script so far, a model of every variable in it
// and the random choices. Op families live in gen_*.cpp.
#pragma once

#include "generator.h"

#include <fusebox/dtype.h>
#include <fusebox/eval/evaluator.h>

#include <deque>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::fuzz {

enum class DimKind { Iter, Bcast, Expanded };

// What the generator knows of a tensor variable.
struct TensorVar {
  std::string name;
  DataType dtype = DataType::Float;
  std::vector<int64_t> sizes;
  std::vector<DimKind> dims;
  bool exact = true;            // every correct backend computes it bit for bit
  bool finite = true;           // no NaN or infinity
  double max_abs = 0;           // over the finite values
  double min_abs = 0;           // over the values (0 when empty)
  std::vector<double> samples;  // a few distinct values, for literals that hit them
  int approx_depth = 0;         // inexact ops on the longest path from the inputs
  // For an inexact value: the least precise floating dtype its rounding
  // errors came through (a float result cast to double keeps float's error).
  DataType precision = DataType::Double;
  int input_index = -1;  // >= 0: fusion input
  bool writable = true;  // an input that may be aliased (no stride-0 dim)
  int64_t numel() const;
  int64_t rank() const { return static_cast<int64_t>(sizes.size()); }
};

// A scalar variable (input, constant, extent or scalar arithmetic).
struct ScalarVar {
  std::string name;
  DataType dtype = DataType::Double;
  ScalarValue value = 0.0;
  bool is_input = false;
};

// An operand as written in a call: a variable name or a literal, with what the
// type promotion and exactness rules need to know.
struct Operand {
  std::string text;
  bool is_tensor = false;
  DataType dtype = DataType::Double;  // a literal's: Bool, Int64 or Double
  bool exact = true;
  bool finite = true;
  double max_abs = 0;
  double min_abs = 0;
  double value = 0;  // a scalar's value
  int approx_depth = 0;
  DataType precision = DataType::Double;
  const TensorVar* tensor = nullptr;
};

struct NewVar {
  std::string name;
  bool exact = true;
  int approx_depth = 0;
  DataType precision = DataType::Double;
};
// The result of an op on `operands`: exact when the op is and every operand
// is; one inexact op deeper than its deepest operand otherwise.
NewVar resultOf(std::string name, const std::vector<Operand>& operands, bool op_exact);

class Generator {
 public:
  Generator(uint64_t seed, const GeneratorOptions& options);
  GeneratedCase run();

  // ---- random choices
  uint64_t next() { return rng_(); }
  int64_t between(int64_t lo, int64_t hi);  // inclusive
  bool chance(double p);
  template <class C>
  const typename C::value_type& pick(const C& v) {
    return v[static_cast<size_t>(between(0, static_cast<int64_t>(v.size()) - 1))];
  }
  bool allowed(std::string_view feature) const;
  void use(std::string_view feature);

  // ---- names and statements
  std::string newName(char prefix);
  // Appends `lhs = rhs`; keeps it when the script still parses and evaluates,
  // and records the new variables (tensors or scalars, in order). False when
  // the statement was dropped.
  // With `must_accept`, a UserError is a finding (the op is valid by
  // construction: shapes and indices come from the model, not from chance).
  bool tryStatement(const std::vector<NewVar>& vars, const std::string& rhs,
                    bool must_accept = false);
  bool tryTensor(const std::string& rhs, const std::vector<Operand>& operands, bool op_exact,
                 bool must_accept = false) {
    return tryStatement({resultOf(newName('T'), operands, op_exact)}, rhs, must_accept);
  }

  // ---- operand choice
  // A random tensor satisfying `ok` (recent ones more often), or null.
  const TensorVar* pickTensor(const std::function<bool(const TensorVar&)>& ok = {});
  // True when `t` may feed an op that amplifies nothing: exact, or small.
  static bool tame(const TensorVar& t);
  static double tameBound(DataType t);
  // Whether tensors a and b broadcast together (right-aligned; sizes equal or
  // one side a plain broadcast dim) into at most numelCap() elements.
  bool broadcastable(const TensorVar& a, const TensorVar& b) const;
  // The most elements a new tensor may have: outer products of large inputs
  // would make cases that take minutes to evaluate.
  int64_t numelCap() const;
  Operand tensorOperand(const TensorVar& t) const;
  // A scalar operand for an op whose tensor operands compute in `compute`:
  // a literal or a scalar variable, exactly representable unless the
  // float-scalar feature is on.
  // With `near`, sometimes a literal equal to one of its values (so that
  // comparisons are sometimes true, and `0.1` meets a float tensor holding
  // float(0.1)).
  Operand scalarOperand(DataType compute, bool want_int = false, const TensorVar* near = nullptr);
  // A literal of a dtype's category: "2", "-0.5", "True", "float('nan')".
  std::string literal(DataType t, bool small = false);
  // A shape list for `sizes`, sometimes with extents read from tensors.
  std::string shapeList(const std::vector<int64_t>& sizes, bool allow_minus_one = false,
                        const std::vector<bool>* keep = nullptr);
  // An int operand equal to `value`: the literal, or a scalar variable holding it.
  std::string intArgument(int64_t value);

  // ---- op families (gen_elementwise.cpp, gen_shapes.cpp, gen_indexing.cpp)
  bool genUnary();
  bool genBinary();
  bool genTernary();
  bool genCast();
  bool genScalarOp();
  bool genSet();
  bool genBroadcast();
  bool genBroadcastInDim();
  bool genExpand();
  bool genSqueeze();
  bool genPermute();
  bool genReshape();
  bool genReduction();
  bool genVariance();
  bool genSlice();
  bool genPad();
  bool genCat();
  bool genFull();
  bool genIota();
  bool genRandom();
  bool genMatmul();
  // (gen_indexing.cpp)
  bool genIndexing();
  bool genScan();
  bool genSort();
  bool genTriu();
  // (gen_hostile.cpp)
  bool genMasked();
  // After the outputs: one indexing op at data-made indices, kept even when
  // the evaluator refuses it (the runtime must refuse it too).
  void appendHostileIndexing();

  // ---- state
  GeneratorOptions options;
  // Deques: operand pointers stay valid while statements add variables.
  std::deque<TensorVar> tensors;
  std::deque<ScalarVar> scalars;
  std::vector<int64_t> base;  // the case's base shape; inputs take sizes from it
  GeneratedCase result;

 private:
  void defineInputs();
  void defineTensorInput(const std::vector<int64_t>& sizes, int input_index);
  void defineScalarInput(int input_index);
  void chooseOutputs();
  // The "deep" feature: a long chain of dependent ops (stack depth in every
  // walk of the IR).
  void appendDeepChain();
  // Records what the checker may expect of output `t` (exact, or a looser tolerance).
  void noteOutput(const TensorVar& t);
  // Ends the case with `trial` (the statement that failed and its outputs).
  void fail(FuzzCase trial, const std::vector<NewVar>& vars, const std::string& category,
            const std::string& message);
  void recordVars(const std::vector<NewVar>& vars, const std::vector<Argument>& values,
                  const std::vector<const Val*>& outputs);
  // Reads the inputs' values (as the checker will make them) into their variables.
  void measureInputs();

  std::mt19937_64 rng_;
  int64_t counter_ = 0;
  std::vector<Argument> input_values_;
  bool failed_ = false;
};

// Whether `v` (an int) is exactly representable in dtype t's computation type.
bool intFitsCompute(double max_abs, DataType compute);
// The less precise of two floating dtypes (bfloat16 < half < float < double).
DataType lessPrecise(DataType a, DataType b);
// Sets a variable's value statistics from its tensor.
void measure(TensorVar& v, const Tensor& t);

}  // namespace fusebox::fuzz
