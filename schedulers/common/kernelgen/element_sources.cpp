// Where the element writer's values come from (element_writer.h): segment
// inputs through the placement, outputs written back through it, scalars from
// kernel parameters and literals, and the creation ops (full is in the walk;
// iota and the random ops here).
#include "kernelgen/element_writer.h"

#include <fmt/format.h>

#include <fusebox/checked_math.h>

#include <limits>
#include <optional>

#include "kernel_ir/element_math.h"
#include "kernel_ir/print_cuda.h"
#include "kernelgen/size_literals.h"

namespace fusebox::kernelgen {

ElementWriter::ElementWriter(const Fusion& segment, const TensorSizes& sizes,
                             const ParamLayout& params, RuntimeInfo& info, IterSpace space)
    : f_(segment),
      sizes_(sizes),
      params_(params),
      info_(info),
      space_(std::move(space)),
      approximate_(approximableExprs(segment)),
      exact_(segment) {
  const std::vector<const TensorArgInfo*> args = tensorInputArgs(segment, info);
  for (size_t k = 0; k < args.size(); ++k)
    if (args[k] != nullptr) inputs_[segment.inputs()[k]] = {static_cast<int>(k), args[k]};
  memo_.assign(1, {});
}

void ElementWriter::provide(const TensorView* tv, ValueSource source) {
  sources_[tv] = std::move(source);
}

void ElementWriter::beginElement() {
  memo_.assign(1, {});
}

kir::Value ElementWriter::value(const TensorView* tv, const Index& idx, Placement& loads) {
  loads_ = &loads;
  kir::Value v = tensorValue(tv, idx);
  loads_ = nullptr;
  return v;
}

Index ElementWriter::iterationIndexOf(const TensorView* tv) const {
  const auto& sizes = sizes_.at(tv);
  if (sizes == space_.sizes) return space_.index();
  // The same sizes but for size-1 dims (a keepdim reduction's output over
  // the kept space): dim for dim, so the index stays affine.
  std::vector<size_t> mine, theirs;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] != 1) mine.push_back(d);
  for (size_t d = 0; d < space_.sizes.size(); ++d)
    if (space_.sizes[d] != 1) theirs.push_back(d);
  bool same = mine.size() == theirs.size();
  for (size_t k = 0; same && k < mine.size(); ++k) same = sizes[mine[k]] == space_.sizes[theirs[k]];
  if (same) {
    const Index all = space_.index();
    Index idx(sizes.size(), IndexExpr::constant(0, space_.rank()));
    for (size_t k = 0; k < mine.size(); ++k) idx[mine[k]] = all[theirs[k]];
    return idx;
  }
  return reshapeIndex(space_.index(), space_.sizes, sizes, space_, fmt::format("I{}", tv->name()));
}

void ElementWriter::store(size_t k, const Index& idx, const std::vector<int64_t>& strides,
                          Placement& placement) {
  const auto* tv = f_.outputs().at(k)->as<TensorView>();
  const kir::Value v = value(tv, idx, placement);
  const auto& sizes = sizes_.at(tv);
  ElementRef ref;
  ref.tv = tv;
  ref.index = static_cast<int>(k);
  ref.pointer = params_.outputPointer(k);
  ref.offset = linearOffset(idx, sizes, strides, space_, ref.pointer);
  record(tv, true, ref.offset, 16, maxOffset(sizes, strides));
  accesses_.back().opened = std::move(opened_);
  opened_.clear();
  placement.store(sink, ref, v);
}

void ElementWriter::storeOutputs(const std::vector<std::vector<int64_t>>& strides,
                                 Placement& placement) {
  beginElement();
  for (const TensorView* tv : read_first_) value(tv, iterationIndexOf(tv), placement);
  for (size_t k = 0; k < f_.outputs().size(); ++k)
    store(k, iterationIndexOf(f_.outputs()[k]->as<TensorView>()), strides.at(k), placement);
}

void ElementWriter::record(const TensorView* tv, bool is_output, const IndexExpr& off,
                           int64_t alignment, int64_t max_offset) {
  Access a;
  a.tv = tv;
  a.is_output = is_output;
  a.offset = off;
  a.conditional = !branches_.empty();
  if (!is_output) a.branches = branches_;
  a.element_size = dataTypeSize(tv->dtype());
  a.alignment = alignment;
  a.max_offset = max_offset;
  accesses_.push_back(a);
}

kir::Value ElementWriter::load(const TensorView* tv, const Index& idx) {
  const InputArg& in = inputs_.at(tv);
  ElementRef ref;
  ref.tv = tv;
  ref.index = in.index;
  ref.pointer = params_.inputPointer(tv);
  ref.offset = linearOffset(idx, in.arg->sizes, in.arg->strides, space_, ref.pointer);
  ref.conditional = !branches_.empty();
  ref.alignment = in.arg->alignment;
  ref.branches = branches_;
  record(tv, false, ref.offset, in.arg->alignment, maxOffset(in.arg->sizes, in.arg->strides));
  return loads_->load(sink, ref);
}

const kir::Value* ElementWriter::lookup(const std::string& key) const {
  for (auto it = memo_.rbegin(); it != memo_.rend(); ++it) {
    auto f = it->find(key);
    if (f != it->end()) return &f->second;
  }
  return nullptr;
}

kir::Value ElementWriter::declare(DataType t, kir::Value value) {
  return sink.at().declare(sink.newVar("v"), kir::computeTypeFor(t), std::move(value),
                           {.is_const = true});
}

kir::Value ElementWriter::opValue(const Expr* e, const std::vector<kir::Operand>& ops,
                                  DataType out) {
  auto operand = [&](size_t k) { return ops.at(k); };
  const bool approximate = approximate_.count(e) > 0;
  switch (e->op()) {
    case OpType::Unary:
      return kir::unaryOp(e->attr<UnaryOpType>(), operand(0), out, approximate);
    case OpType::Binary: {
      const auto o = e->attr<BinaryOpType>();
      if (kir::Value narrow = narrowCompare(o, ops); narrow.defined()) return narrow;
      if (auto it = prepared_divisors_.find(e);
          it != prepared_divisors_.end() && approximate &&
          kir::dividesApproximately(o, operand(0), operand(1), out))
        return kir::divideByPrepared(it->second, operand(0), out);
      return kir::binaryOp(o, operand(0), operand(1), out, approximate);
    }
    case OpType::Ternary:
      return kir::ternaryOp(e->attr<TernaryOpType>(), operand(0), operand(1), operand(2), out);
    case OpType::Cast:
    case OpType::Set:
    case OpType::SegmentSet:
      // A value the output's 16-bit type already holds needs no rounding.
      if (exact_.holds(e->input(0), out))
        return kir::castFrom(kir::computeTypeFor(out), operand(0).value);
      return kir::roundTo(out, operand(0).value);
    default:
      break;
  }
  throw InternalError(fmt::format("kernelgen: {} on scalars", e->opName()));
}

// Scalars keep their own stack too: a scalar chain of any length fits.
kir::Value ElementWriter::scalarValue(const Val* root) {
  struct Frame {
    const Val* v;
    size_t next = 0;
    std::vector<kir::Operand> ops;
  };
  std::vector<Frame> stack;
  // A prologue variable of v's compute type holding `value`.
  auto prologueVariable = [&](const Val* v, kir::Value value) {
    return prologue.declare(sink.newVar("s"), kir::computeTypeFor(v->dtype()), std::move(value),
                            {.is_const = true});
  };
  // The value of `v` when it needs no operands first; otherwise pushes a
  // frame for it and returns nullopt.
  auto visit = [&](const Val* v) -> std::optional<kir::Value> {
    if (auto it = scalar_memo_.find(v); it != scalar_memo_.end()) return it->second;
    const auto* s = v->as<Scalar>();
    kir::Value value;
    if (s->isConst()) {
      value = kir::literal(*s->value(), s->dtype());
    } else if (const kir::Value param = params_.scalarParam(v); param.defined()) {
      value = prologueVariable(v, kir::roundTo(s->dtype(), param));
    } else if (const Expr* e = s->definition(); e != nullptr && !e->isTensorOp()) {
      stack.push_back({v, 0, {}});
      return std::nullopt;
    } else {
      // A scalar the run time knows (an extent): an integer one is a size the
      // kernel may take as a parameter (size_literals.h).
      auto known = info_.evaluator().evaluate(v);
      FUSEBOX_USER_CHECK(known.has_value(), "scalar {} has no value at run time", v->toString());
      value = kir::literal(*known, s->dtype());
      const int64_t i = isIntegralType(s->dtype()) ? toInt(*known) : 0;
      if (space_.symbolic() && i != 0 && i != 1)
        value = space_.literals->value(i, fmt::format("s{}", v->name()), SizeLiterals::Type::Int64);
    }
    scalar_memo_[v] = value;
    return value;
  };
  if (auto value = visit(root)) return *value;
  while (true) {
    Frame& top = stack.back();
    const Expr* e = top.v->definition();
    if (top.next < e->inputs().size()) {
      const Val* in = e->input(top.next++);
      if (auto value = visit(in)) top.ops.push_back({*value, in->dtype()});  // else: pushed
      continue;
    }
    const kir::Value var = prologueVariable(top.v, opValue(e, top.ops, top.v->dtype()));
    scalar_memo_[top.v] = var;
    stack.pop_back();
    if (stack.empty()) return var;
    const Val* in = stack.back().v->definition()->input(stack.back().next - 1);
    stack.back().ops.push_back({var, in->dtype()});
  }
}

kir::Value ElementWriter::iotaValue(const Expr* e, const Index& idx) {
  const DataType out = e->output(0)->dtype();
  const std::string role = fmt::format("T{}", e->output(0)->name());
  const kir::Value i = idx.at(0).value(space_, role);
  const kir::Value start = scalarValue(e->input(1)), step = scalarValue(e->input(2));
  if (isFloatingType(out)) {
    const kir::Type f64 = kir::named("double");
    return declare(out, kir::roundTo(out, kir::castFrom(f64, start) +
                                              kir::cast(f64, i) * kir::castFrom(f64, step)));
  }
  // Wrapping, as the evaluator's: in uint64_t.
  const kir::Type i64 = kir::named("int64_t"), u64 = kir::named("uint64_t");
  const kir::Value value = declare(
      out, kir::roundTo(out, kir::cast(i64, kir::cast(u64, kir::castFrom(i64, start)) +
                                                kir::cast(u64, i) *
                                                    kir::cast(u64, kir::castFrom(i64, step)))));
  if (out == DataType::Int64) declareNarrowIota(e, i, value);
  return value;
}

void ElementWriter::declareNarrowIota(const Expr* e, const kir::Value& i, const kir::Value& value) {
  const auto* start = dynamic_cast<const Scalar*>(e->input(1));
  const auto* step = dynamic_cast<const Scalar*>(e->input(2));
  const auto& sizes = sizesOf(e->output(0));
  // Over symbolic sizes the kernel serves other extents: not narrowed.
  if (space_.symbolic() || start == nullptr || step == nullptr || !start->isConst() ||
      !step->isConst() || sizes.size() != 1 || sizes[0] < 1)
    return;
  const int64_t first = toInt(*start->value()), stride = toInt(*step->value());
  const std::optional<int64_t> span = checked::mul(stride, sizes[0] - 1);
  const std::optional<int64_t> last = checked::add(first, span);
  auto fits = [](std::optional<int64_t> x) {
    return x && *x >= std::numeric_limits<int32_t>::min() &&
           *x <= std::numeric_limits<int32_t>::max();
  };
  // Every value lies between the first and the last, and every i * step
  // between 0 and the span: the int32 arithmetic below cannot overflow (and
  // with a step other than 0, i < extent <= 2^31 is an int32 itself).
  if (!fits(first) || !fits(last) || !fits(span)) return;
  const kir::Type i32 = kir::named("int32_t");
  kir::Value narrow = kir::cast(i32, i);
  if (stride != 1) narrow = narrow * kir::lit(stride);
  if (first != 0) narrow = kir::lit(first) + narrow;
  narrow_iotas_[kir::printValue(value)] =
      sink.at().declare(sink.newVar("n"), i32, narrow, kir::kConstUnused);
}

kir::Value ElementWriter::narrowCompare(BinaryOpType o,
                                        const std::vector<kir::Operand>& ops) const {
  if ((o != BinaryOpType::Eq && o != BinaryOpType::Ne) || ops[0].dtype != DataType::Int64 ||
      ops[1].dtype != DataType::Int64)
    return {};
  for (size_t k = 0; k < 2; ++k) {
    const auto narrow = narrow_iotas_.find(kir::printValue(ops[k].value));
    if (narrow == narrow_iotas_.end()) continue;
    // Both iotas narrow: compare the int32 twins themselves.
    const auto other = narrow_iotas_.find(kir::printValue(ops[1 - k].value));
    const kir::Value b = other != narrow_iotas_.end()
                             ? kir::cast(kir::named("int64_t"), other->second)
                             : ops[1 - k].value;
    return kir::call(o == BinaryOpType::Eq ? "fusebox::op::eqInt32" : "fusebox::op::neInt32",
                     {narrow->second, b});
  }
  return {};
}

// uniform / normal: element i (row-major in the op's shape) from the Philox
// word stream exactly as docs/random.md specifies (the device runtime's
// fusebox_runtime/philox.cuh, which the evaluator shares): a narrow uniform
// is one float fma, the rest is in double; rounded once to the dtype.
kir::Value ElementWriter::randomValue(const Expr* e, const Index& idx) {
  const auto& attr = e->attr<RandAttr>();
  const auto* tv = e->output(0)->as<TensorView>();
  const auto& sizes = sizesOf(tv);
  const size_t rank = sizes.size();
  const std::string role = fmt::format("T{}", tv->name());
  const kir::Type f64 = kir::named("double"), i64 = kir::named("int64_t"),
                  u64 = kir::named("uint64_t");
  const IndexExpr position = linearOffset(idx, sizes, contiguousStrides(sizes), space_, role);
  const kir::Value i =
      loads_ != nullptr ? loads_->position(position, space_, role) : position.value(space_, role);
  const kir::Value a = kir::castFrom(f64, scalarValue(e->input(rank)));
  const kir::Value b = kir::castFrom(f64, scalarValue(e->input(rank + 1)));
  kir::Value seed = kir::text("0ull"), offset = kir::text("0ull");
  if (attr.has_seed) {
    seed = kir::cast(u64, kir::castFrom(i64, scalarValue(e->input(rank + 2))));
    offset = kir::cast(u64, kir::castFrom(i64, scalarValue(e->input(rank + 3))));
  }
  const bool wide = tv->dtype() == DataType::Double;
  const kir::Value element = kir::cast(u64, i);
  // One stream per op and thread, for the whole kernel: a thread's
  // consecutive elements share each Philox call (docs/random.md).
  auto found = streams_.find(e);
  if (found == streams_.end())
    found = streams_
                .emplace(e, kir::declarePhiloxStream(
                                prologue, fmt::format("rng{}", streams_.size()), seed, offset))
                .first;
  const kir::Value stream = found->second;
  auto draw = [&](kir::Value k) { return kir::philoxDraw(stream, std::move(k), wide); };
  auto op = [](const char* f, kir::Value x) { return kir::call(f, {std::move(x)}); };
  kir::Value value;
  if (attr.dist == RandomDistribution::Uniform && !wide) {
    const kir::Type f32 = kir::named("float");
    value =
        kir::philoxUniformNarrow(stream, element, kir::castFrom(f32, a), kir::castFrom(f32, b - a));
  } else if (attr.dist == RandomDistribution::Uniform) {
    value = a + kir::call("fusebox::philox::mulRounded", {b - a, draw(element)});
  } else {
    const kir::Value u1 = sink.at().declare(
        sink.newVar("u"), f64, kir::text("1.0") - draw(kir::lit(2) * element), {.is_const = true});
    const kir::Value u2 = sink.at().declare(
        sink.newVar("u"), f64, draw(kir::lit(2) * element + kir::lit(1)), {.is_const = true});
    value =
        a + kir::call("fusebox::philox::mulRounded",
                      {b, op("fusebox::op::sqrt", kir::text("-2.0") * op("fusebox::op::log", u1)) *
                              op("fusebox::op::cos",
                                 kir::text("2.0") * kir::text("3.141592653589793116") * u2)});
  }
  return declare(tv->dtype(), kir::roundTo(tv->dtype(), value));
}

}  // namespace fusebox::kernelgen
