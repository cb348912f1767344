// The kernel IR: what a scheduler builds a kernel from, as data. Values are
// immutable expression trees (literals, variables, arithmetic, calls, casts,
// loads), statements are a tree of declarations, assignments, loops,
// branches and synchronization. One printer writes CUDA C++ from it
// (print_cuda.h), another a readable dump (`--dump kernel_ir`, print_ir.h).
// The host backend compiles the same printed text as the GPU does.
//
// Values print with the parentheses C++ precedence needs and no others, so
// a scheduler writes `base + i * stride` and never thinks about them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusebox::kir {

// A type as the kernel spells it: a C++ scalar ("float", "idx_t"), a runtime
// library type ("fusebox::ReduceSum") or a pointer ("float*").
struct Type {
  std::string spelling;
  bool operator==(const Type&) const = default;
};
Type indexType();  // idx_t: int32_t or int64_t, chosen per kernel
Type intType();
Type boolType();
Type named(std::string spelling);
Type pointerTo(const Type& t);
// T* const: a pointer that is not moved (DeclareFlags::is_const would make
// the pointee const: `const T*`).
Type constPointerTo(const Type& t);
// T* __restrict__: a kernel parameter's pointer, which no other aliases.
Type restrictPointerTo(const Type& t);
// const T: a pointee the kernel only reads.
Type constOf(const Type& t);

// ---- values -----------------------------------------------------------------

enum class ValueKind {
  IntLiteral,  // 4, -1
  Text,        // a constant the IR holds as printed text (a float literal, `true`)
  Variable,    // a declared name
  Unary,       // -a, !a
  Binary,      // a + b, a < b, a && b
  Select,      // c ? a : b
  Call,        // f<T...>(args)
  Cast,        // static_cast<T>(a)
  Subscript,   // a[i]
  Member,      // threadIdx.x
};

enum class UnaryOp { Neg, Not, BitNot, AddressOf };
enum class BinaryOp {
  Mul,
  Div,
  Mod,
  Add,
  Sub,
  Shl,
  Shr,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  BitAnd,
  BitXor,
  BitOr,
  And,
  Or
};

struct ValueNode;
// An expression: a shared, immutable tree. Copies are cheap.
class Value {
 public:
  Value() = default;
  explicit Value(std::shared_ptr<const ValueNode> node) : node_(std::move(node)) {}
  const ValueNode& node() const { return *node_; }
  bool defined() const { return node_ != nullptr; }

 private:
  std::shared_ptr<const ValueNode> node_;
};

struct ValueNode {
  ValueKind kind = ValueKind::IntLiteral;
  int64_t integer = 0;              // IntLiteral
  std::string text;                 // Text, Variable, Call (function), Member (field)
  UnaryOp unary_op{};               // Unary
  BinaryOp binary_op{};             // Binary
  Type type;                        // Cast target; Variable's type
  std::vector<Type> template_args;  // Call
  std::vector<Value> operands;
};

Value lit(int64_t v);
// Printed as is and never parenthesized: the caller passes a primary
// expression (a name, a literal, a call, a subscript) or one in parentheses.
Value text(std::string cxx);
Value var(std::string name, Type type = {});
Value call(std::string function, std::vector<Value> args, std::vector<Type> template_args = {});
Value cast(const Type& t, Value v);
// static_cast<idx_t>(v): a thread or block index or a loop counter in the
// kernel's index type, before it meets sizes.
Value asIndex(Value v);
Value reinterpretAs(const Type& t, Value v);  // reinterpret_cast<T>(v)
Value select(Value c, Value a, Value b);
Value subscript(Value base, Value index);
Value member(Value object, std::string field);
Value threadIdx(char axis);
Value blockIdx(char axis);
Value blockDim(char axis);
Value gridDim(char axis);

Value operator-(Value a);
Value operator!(Value a);
Value operator~(Value a);
Value addressOf(Value a);  // &a
Value operator+(Value a, Value b);
Value operator-(Value a, Value b);
Value operator*(Value a, Value b);
Value operator/(Value a, Value b);
Value operator%(Value a, Value b);
Value operator<(Value a, Value b);
Value operator<=(Value a, Value b);
Value operator>(Value a, Value b);
Value operator>=(Value a, Value b);
// Build `a == b` and `a != b` (as Halide's Expr does), not compare the trees.
Value operator==(Value a, Value b);
Value operator!=(Value a, Value b);
Value operator&&(Value a, Value b);
Value operator||(Value a, Value b);
Value binary(BinaryOp op, Value a, Value b);
// values[0] + values[1] + ..., values[0] && ..., values[0] || ..., left to
// right; an undefined value when `values` is empty.
Value sumOf(const std::vector<Value>& values);
Value allOf(const std::vector<Value>& values);
Value anyOf(const std::vector<Value>& values);

// ---- statements -------------------------------------------------------------

enum class StmtKind {
  Block,     // statements in order
  Declare,   // [[maybe_unused]] const T name = init;  T name[N];
  Assign,    // target op= value;
  Evaluate,  // value;  (a call for its effect)
  For,       // for (init; cond; step) body, maybe unrolled
  If,        // if (cond) then else
  Return,
  Break,
  SyncThreads,
  Scope,    // { statements }: names declared in it end with it
  Combine,  // states combined across threads or blocks (combine.h), printed as its lowering
  Code,     // lines of C++ a plugin writes as text (an escape hatch; no built-in kernel)
  Comment,
  TypeAlias,  // using name = type;
};

enum class Unroll { None, Full /* FUSEBOX_UNROLL above the loop */ };
// How a loop's or branch's body is printed: in braces on the lines after it,
// on the same line (one statement), or on the lines after it without braces
// (one loop or branch).
enum class BodyStyle { Braces, SameLine, NextLine };

struct StmtNode;
using Stmt = std::shared_ptr<StmtNode>;
struct CombineSpec;

struct DeclareFlags {
  bool is_const = false;
  bool maybe_unused = false;
  bool shared = false;  // __shared__: one per block (an array the block's threads exchange through)
  int align = 0;        // alignas(align): an array read as wider types (16: as vectors)
};
// `[[maybe_unused]] const`: an index or value not every kernel reads.
inline constexpr DeclareFlags kConstUnused{.is_const = true, .maybe_unused = true};

struct StmtNode {
  StmtKind kind = StmtKind::Block;
  std::vector<Stmt> body;    // Block; For's body; If's then
  std::vector<Stmt> orelse;  // If's else (empty: none)
  // Declare: name, type, init (optional), array extent (0: a scalar).
  std::string name;
  Type type;
  Value init;
  int64_t array_extent = 0;
  DeclareFlags flags;
  // Assign: target, op ("=", "+=", ...), value. Evaluate: value.
  Value target;
  std::string assign_op;
  Value value;
  // For: init (a Declare, or none: the loop reuses a variable), cond, step
  // (an Assign, or an increment when `increment` is set), unroll.
  Stmt loop_init;
  Value cond;
  Stmt loop_step;
  std::string increment;  // "++v" style: the variable incremented
  Unroll unroll = Unroll::None;
  BodyStyle style = BodyStyle::Braces;
  // Code, Comment: the lines.
  std::vector<std::string> lines;
  // Combine: what is combined (combine.h).
  std::shared_ptr<const CombineSpec> combine;
  // If: the else branch of the If whose `orelse` holds it alone, printed
  // `} else if (...) {` (IfChain).
  bool chained = false;
};

// Builders. A Block collects statements in order; a loop or branch returns
// the Block of its body, to be filled after the loop is placed.
class Block {
 public:
  Block();
  explicit Block(Stmt node) : node_(std::move(node)) {}
  Stmt stmt() const { return node_; }
  bool empty() const { return node_->body.empty(); }

  // Declares `name` and returns it as a value.
  Value declare(const std::string& name, const Type& type, Value init, DeclareFlags flags = {});
  Value declareArray(const std::string& name, const Type& type, int64_t extent,
                     DeclareFlags flags = {});
  void assign(Value target, Value value, const std::string& op = "=");
  void evaluate(Value value);
  void ret();
  void breakLoop();
  void syncThreads();
  void typeAlias(const std::string& name, const Type& type);  // using name = type;
  void code(const std::string& text);                         // one or more lines
  void comment(const std::string& text);
  // A braced scope: its body is returned to be filled.
  Block scope();
  // A combine node (combine.h builds them: combineLanes, combineRows, combineGrid).
  void combine(std::shared_ptr<const CombineSpec> spec);
  // A loop `for (T v = begin; cond; ++v)` (step 1) or `v += step`; the body
  // is returned to be filled.
  Block forLoop(const std::string& v, const Type& type, Value begin, Value end, Value step = {},
                Unroll unroll = Unroll::None, BodyStyle style = BodyStyle::Braces);
  // `for (; cond; v += step)` over a variable declared before.
  Block forExisting(Value v, Value cond, Value step, BodyStyle style = BodyStyle::Braces);
  Block ifThen(Value cond, BodyStyle style = BodyStyle::Braces);
  // if / else: returns both branches.
  std::pair<Block, Block> ifElse(Value cond);
  void append(const Block& other);  // other's statements, in order

 private:
  Stmt node_;
};

// if (c0) { } else if (c1) { } ... else { }, built one branch at a time (a
// writer that learns the next condition only after writing the branch
// before). Placed in `at` when the first branch opens.
class IfChain {
 public:
  explicit IfChain(Block at) : at_(std::move(at)) {}
  Block branch(Value cond);  // the first `if`, then each `else if`
  Block otherwise();         // the final `else` (after a branch)

 private:
  Block at_;
  Stmt last_;  // the chain's last if
};

}  // namespace fusebox::kir
