// The kernel IR's values and statement builders (kernel_ir.h).
#include "kernel_ir/kernel_ir.h"

#include <fusebox/error.h>

#include <utility>

namespace fusebox::kir {

Type indexType() {
  return {"idx_t"};
}
Type intType() {
  return {"int"};
}
Type boolType() {
  return {"bool"};
}
Type named(std::string spelling) {
  return {std::move(spelling)};
}
Type pointerTo(const Type& t) {
  return {t.spelling + "*"};
}
Type constPointerTo(const Type& t) {
  return {t.spelling + "* const"};
}
Type restrictPointerTo(const Type& t) {
  return {t.spelling + "* __restrict__"};
}
Type constOf(const Type& t) {
  return {"const " + t.spelling};
}

namespace {

Value make(ValueNode n) {
  return Value(std::make_shared<const ValueNode>(std::move(n)));
}

Stmt makeStmt(StmtKind kind) {
  auto s = std::make_shared<StmtNode>();
  s->kind = kind;
  return s;
}

}  // namespace

Block::Block() : node_(makeStmt(StmtKind::Block)) {}

Value lit(int64_t v) {
  ValueNode n;
  n.kind = ValueKind::IntLiteral;
  n.integer = v;
  return make(std::move(n));
}

Value text(std::string cxx) {
  ValueNode n;
  n.kind = ValueKind::Text;
  n.text = std::move(cxx);
  return make(std::move(n));
}

Value var(std::string name, Type type) {
  ValueNode n;
  n.kind = ValueKind::Variable;
  n.text = std::move(name);
  n.type = std::move(type);
  return make(std::move(n));
}

Value call(std::string function, std::vector<Value> args, std::vector<Type> template_args) {
  ValueNode n;
  n.kind = ValueKind::Call;
  n.text = std::move(function);
  n.operands = std::move(args);
  n.template_args = std::move(template_args);
  return make(std::move(n));
}

Value cast(const Type& t, Value v) {
  ValueNode n;
  n.kind = ValueKind::Cast;
  n.type = t;
  n.operands = {std::move(v)};
  return make(std::move(n));
}

Value asIndex(Value v) {
  return cast(indexType(), std::move(v));
}

Value reinterpretAs(const Type& t, Value v) {
  return call("reinterpret_cast", {std::move(v)}, {t});
}

Value select(Value c, Value a, Value b) {
  ValueNode n;
  n.kind = ValueKind::Select;
  n.operands = {std::move(c), std::move(a), std::move(b)};
  return make(std::move(n));
}

Value subscript(Value base, Value index) {
  ValueNode n;
  n.kind = ValueKind::Subscript;
  n.operands = {std::move(base), std::move(index)};
  return make(std::move(n));
}

Value member(Value object, std::string field) {
  ValueNode n;
  n.kind = ValueKind::Member;
  n.text = std::move(field);
  n.operands = {std::move(object)};
  return make(std::move(n));
}

Value threadIdx(char axis) {
  return member(var("threadIdx"), std::string(1, axis));
}
Value blockIdx(char axis) {
  return member(var("blockIdx"), std::string(1, axis));
}
Value blockDim(char axis) {
  return member(var("blockDim"), std::string(1, axis));
}
Value gridDim(char axis) {
  return member(var("gridDim"), std::string(1, axis));
}

namespace {

Value unary(UnaryOp op, Value a) {
  ValueNode n;
  n.kind = ValueKind::Unary;
  n.unary_op = op;
  n.operands = {std::move(a)};
  return make(std::move(n));
}

}  // namespace

Value binary(BinaryOp op, Value a, Value b) {
  ValueNode n;
  n.kind = ValueKind::Binary;
  n.binary_op = op;
  n.operands = {std::move(a), std::move(b)};
  return make(std::move(n));
}

namespace {

Value fold(BinaryOp op, const std::vector<Value>& values) {
  Value out;
  for (const Value& v : values) out = out.defined() ? binary(op, out, v) : v;
  return out;
}

}  // namespace

Value sumOf(const std::vector<Value>& values) {
  return fold(BinaryOp::Add, values);
}
Value allOf(const std::vector<Value>& values) {
  return fold(BinaryOp::And, values);
}
Value anyOf(const std::vector<Value>& values) {
  return fold(BinaryOp::Or, values);
}

Value operator-(Value a) {
  return unary(UnaryOp::Neg, std::move(a));
}
Value operator!(Value a) {
  return unary(UnaryOp::Not, std::move(a));
}
Value addressOf(Value a) {
  return unary(UnaryOp::AddressOf, std::move(a));
}
Value operator~(Value a) {
  return unary(UnaryOp::BitNot, std::move(a));
}
Value operator+(Value a, Value b) {
  return binary(BinaryOp::Add, std::move(a), std::move(b));
}
Value operator-(Value a, Value b) {
  return binary(BinaryOp::Sub, std::move(a), std::move(b));
}
Value operator*(Value a, Value b) {
  return binary(BinaryOp::Mul, std::move(a), std::move(b));
}
Value operator/(Value a, Value b) {
  return binary(BinaryOp::Div, std::move(a), std::move(b));
}
Value operator%(Value a, Value b) {
  return binary(BinaryOp::Mod, std::move(a), std::move(b));
}
Value operator<(Value a, Value b) {
  return binary(BinaryOp::Lt, std::move(a), std::move(b));
}
Value operator<=(Value a, Value b) {
  return binary(BinaryOp::Le, std::move(a), std::move(b));
}
Value operator>(Value a, Value b) {
  return binary(BinaryOp::Gt, std::move(a), std::move(b));
}
Value operator>=(Value a, Value b) {
  return binary(BinaryOp::Ge, std::move(a), std::move(b));
}
Value operator==(Value a, Value b) {
  return binary(BinaryOp::Eq, std::move(a), std::move(b));
}
Value operator!=(Value a, Value b) {
  return binary(BinaryOp::Ne, std::move(a), std::move(b));
}
Value operator&&(Value a, Value b) {
  return binary(BinaryOp::And, std::move(a), std::move(b));
}
Value operator||(Value a, Value b) {
  return binary(BinaryOp::Or, std::move(a), std::move(b));
}

// ---- statements -------------------------------------------------------------

Value Block::declare(const std::string& name, const Type& type, Value init, DeclareFlags flags) {
  Stmt s = makeStmt(StmtKind::Declare);
  s->name = name;
  s->type = type;
  s->init = std::move(init);
  s->flags = flags;
  node_->body.push_back(s);
  return var(name, type);
}

Value Block::declareArray(const std::string& name, const Type& type, int64_t extent,
                          DeclareFlags flags) {
  Stmt s = makeStmt(StmtKind::Declare);
  s->name = name;
  s->type = type;
  s->array_extent = extent;
  s->flags = flags;
  node_->body.push_back(s);
  return var(name, type);
}

void Block::assign(Value target, Value value, const std::string& op) {
  Stmt s = makeStmt(StmtKind::Assign);
  s->target = std::move(target);
  s->value = std::move(value);
  s->assign_op = op;
  node_->body.push_back(s);
}

void Block::evaluate(Value value) {
  Stmt s = makeStmt(StmtKind::Evaluate);
  s->value = std::move(value);
  node_->body.push_back(s);
}

void Block::ret() {
  node_->body.push_back(makeStmt(StmtKind::Return));
}
void Block::breakLoop() {
  node_->body.push_back(makeStmt(StmtKind::Break));
}
void Block::syncThreads() {
  node_->body.push_back(makeStmt(StmtKind::SyncThreads));
}

namespace {

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

void Block::typeAlias(const std::string& name, const Type& type) {
  Stmt s = makeStmt(StmtKind::TypeAlias);
  s->name = name;
  s->type = type;
  node_->body.push_back(s);
}

void Block::code(const std::string& text) {
  if (text.empty()) return;
  Stmt s = makeStmt(StmtKind::Code);
  s->lines = splitLines(text);
  node_->body.push_back(s);
}

void Block::comment(const std::string& text) {
  Stmt s = makeStmt(StmtKind::Comment);
  s->lines = splitLines(text);
  node_->body.push_back(s);
}

Block Block::scope() {
  Stmt s = makeStmt(StmtKind::Scope);
  node_->body.push_back(s);
  return Block(s);
}

void Block::combine(std::shared_ptr<const CombineSpec> spec) {
  Stmt s = makeStmt(StmtKind::Combine);
  s->combine = std::move(spec);
  node_->body.push_back(s);
}

Block Block::forLoop(const std::string& v, const Type& type, Value begin, Value end, Value step,
                     Unroll unroll, BodyStyle style) {
  Stmt s = makeStmt(StmtKind::For);
  s->loop_init = makeStmt(StmtKind::Declare);
  s->loop_init->name = v;
  s->loop_init->type = type;
  s->loop_init->init = std::move(begin);
  const Value index = var(v, type);
  s->cond = index < std::move(end);
  if (step.defined()) {
    s->loop_step = makeStmt(StmtKind::Assign);
    s->loop_step->target = index;
    s->loop_step->assign_op = "+=";
    s->loop_step->value = std::move(step);
  } else {
    s->increment = v;
  }
  s->unroll = unroll;
  s->style = style;
  node_->body.push_back(s);
  return Block(s);
}

Block Block::forExisting(Value v, Value cond, Value step, BodyStyle style) {
  Stmt s = makeStmt(StmtKind::For);
  s->cond = std::move(cond);
  s->loop_step = makeStmt(StmtKind::Assign);
  s->loop_step->target = std::move(v);
  s->loop_step->assign_op = "+=";
  s->loop_step->value = std::move(step);
  s->style = style;
  node_->body.push_back(s);
  return Block(s);
}

Block Block::ifThen(Value cond, BodyStyle style) {
  Stmt s = makeStmt(StmtKind::If);
  s->cond = std::move(cond);
  s->style = style;
  node_->body.push_back(s);
  return Block(s);
}

std::pair<Block, Block> Block::ifElse(Value cond) {
  Stmt s = makeStmt(StmtKind::If);
  s->cond = std::move(cond);
  node_->body.push_back(s);
  // The else branch is a Block node of its own held in `orelse`.
  Stmt otherwise = makeStmt(StmtKind::Block);
  s->orelse.push_back(otherwise);
  return {Block(s), Block(otherwise)};
}

Block IfChain::branch(Value cond) {
  if (last_ == nullptr) {
    Block first = at_.ifThen(std::move(cond));
    last_ = first.stmt();
    return first;
  }
  FUSEBOX_CHECK(last_->orelse.empty(), "kernel IR: an if chain continued after its else");
  Stmt s = makeStmt(StmtKind::If);
  s->cond = std::move(cond);
  s->chained = true;
  last_->orelse.push_back(s);
  last_ = s;
  return Block(s);
}

Block IfChain::otherwise() {
  FUSEBOX_CHECK(last_ != nullptr && last_->orelse.empty(),
                "kernel IR: an if chain's else needs a branch before it, and one else");
  Stmt s = makeStmt(StmtKind::Block);
  last_->orelse.push_back(s);
  return Block(s);
}

void Block::append(const Block& other) {
  for (const Stmt& s : other.node_->body) node_->body.push_back(s);
}

}  // namespace fusebox::kir
