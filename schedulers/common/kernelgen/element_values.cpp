// The value walk of the element writer (element_writer.h): from a tensor at
// an index back through every op to the segment inputs (or a value source).
// It keeps its own stack instead of recursing, so a segment that is a chain
// of 100,000 ops generates like a short one; each step emits the same code,
// in the same order, as a recursive walk would.
#include "kernelgen/element_writer.h"
#include "kernelgen/value_task.h"

#include <fmt/format.h>
#include <fusebox/checked_math.h>
#include <fusebox/ir/compute_type.h>

#include <algorithm>

#include "kernel_ir/element_math.h"
#include "kernel_ir/print_cuda.h"

namespace fusebox::kernelgen {

namespace {

// An opaque index longer than this (printed) is computed once into a
// variable: a chain of reshapes that split and merge dims would otherwise
// nest the previous index into the next one, doubling it each time.
constexpr size_t kMaxIndexText = 200;

// Whether a shape scalar (a pad width, a slice start) may differ from call to
// call: over symbolic sizes the code then must not depend on its value.
bool varies(const Val* v) {
  return !v->as<Scalar>()->isConst();
}

}  // namespace

ElementWriter::ValueStep ElementWriter::finished(kir::Value value) {
  ValueStep s;
  s.finished = true;
  s.value = std::move(value);
  return s;
}

kir::Value ElementWriter::tensorValue(const TensorView* tv, const Index& idx) {
  std::vector<ValueTask> stack;
  kir::Value value;  // the value last found in the memo or finished
  // The memoized value of (t, i) into `value` (true), or a new task for it.
  auto request = [&](const TensorView* t, Index i) {
    std::string key = fmt::format("T{}@{}", t->name(), indexKey(i, space_));
    if (const kir::Value* hit = lookup(key)) {
      value = *hit;
      return true;
    }
    ValueTask task;
    task.tv = t;
    task.idx = std::move(i);
    task.key = std::move(key);
    stack.push_back(std::move(task));
    return false;
  };
  if (request(tv, idx)) return value;
  const kir::Value* operand = nullptr;  // the value the top task waits for, once known
  while (true) {
    ValueStep step = advance(stack.back(), operand);
    operand = nullptr;
    if (step.finished) {
      memo_.back()[stack.back().key] = step.value;
      if (observer_ && sources_.count(stack.back().tv) == 0)
        observer_(stack.back().tv, stack.back().idx, step.value, !branches_.empty());
      stack.pop_back();
      value = std::move(step.value);
      if (stack.empty()) return value;
      operand = &value;
      continue;
    }
    if (request(step.tv, std::move(step.idx))) operand = &value;
  }
}

ElementWriter::ValueStep ElementWriter::advance(ValueTask& t, const kir::Value* operand) {
  switch (t.stage) {
    case ValueTask::Stage::Start:
      return start(t);
    case ValueTask::Stage::Operands:
      t.ops.push_back({*operand, t.tv->definition()->input(t.next - 1)->dtype()});
      return nextOperand(t);
    case ValueTask::Stage::Power:
      return finished(declare(t.tv->dtype(), smallPowerValue(t.tv->definition(), *operand)));
    case ValueTask::Stage::Forward: {
      // Data movement keeps the element: the input's value, converted if the
      // output's dtype differs.
      const Expr* e = t.tv->definition();
      const DataType out = e->output(0)->dtype();
      if (e->input(0)->dtype() == out) return finished(*operand);
      return finished(declare(out, kir::roundTo(out, *operand)));
    }
    case ValueTask::Stage::PassThrough:
      return finished(*operand);
    case ValueTask::Stage::Branches:
      return closeBranch(t, *operand);
    case ValueTask::Stage::Indexed:
      return finishIndexed(t, *operand);
  }
  throw InternalError("kernelgen: a value task in an unknown stage");
}

ElementWriter::ValueStep ElementWriter::need(const TensorView* tv, Index idx) {
  for (IndexExpr& d : idx)
    if (!d.affine && kir::printValue(d.opaque_value).size() > kMaxIndexText)
      d = IndexExpr::opaque(
          sink.at().declare(sink.newVar("x"), kir::indexType(), d.opaque_value, kir::kConstUnused));
  ValueStep s;
  s.tv = tv;
  s.idx = std::move(idx);
  return s;
}

ElementWriter::ValueStep ElementWriter::start(ValueTask& t) {
  const TensorView* tv = t.tv;
  const Index& idx = t.idx;
  if (auto source = sources_.find(tv); source != sources_.end())
    return finished(source->second(idx));
  if (tv->isFusionInput()) return finished(load(tv, idx));
  const Expr* e = tv->definition();
  FUSEBOX_CHECK(e != nullptr, "kernelgen: {} has no definition", tv->toString());
  const DataType out = tv->dtype();
  switch (e->op()) {
    case OpType::Unary:
    case OpType::Binary:
    case OpType::Ternary:
    case OpType::Cast:
    case OpType::Set:
    case OpType::SegmentSet:
      if (const TensorView* base = smallPowerBase(e)) {
        t.stage = ValueTask::Stage::Power;
        return need(base, alignRight(idx, sizesOf(base), space_));
      }
      t.stage = ValueTask::Stage::Operands;
      return nextOperand(t);
    case OpType::Broadcast:
    case OpType::Squeeze:
    case OpType::Reduction:
    case OpType::Expand:
    case OpType::Permute:
    case OpType::Reshape:
    case OpType::Slice:
      return forwardTo(t, movedIndex(e, idx));
    case OpType::IndexSelect:
    case OpType::Gather:
    case OpType::TakeAlongAxis:
      return startIndexed(t);
    case OpType::Select:
      return startSelect(t);
    case OpType::Pad:
      return startPad(t);
    case OpType::Cat:
      return startCat(t);
    case OpType::Full:
      return finished(declare(out, kir::roundTo(out, scalarValue(e->input(0)))));
    case OpType::Iota:
      return finished(iotaValue(e, idx));
    case OpType::Rand:
      return finished(randomValue(e, idx));
    default:
      break;
  }
  throw InternalError(fmt::format("kernelgen: cannot generate {}", e->opName()));
}

// The index of a data-movement op's input that holds the output's element
// at `idx` (broadcast, squeeze, a reduction over extent-1 dims, expand,
// permute, reshape, slice).
Index ElementWriter::movedIndex(const Expr* e, const Index& idx) {
  switch (e->op()) {
    case OpType::Broadcast: {
      const auto& flags = e->attr<BroadcastAttr>().is_broadcast_dim;
      Index in;
      for (size_t k = 0; k < flags.size(); ++k)
        if (!flags[k]) in.push_back(idx[k]);
      return in;
    }
    case OpType::Squeeze: {
      const auto& dims = e->attr<SqueezeAttr>().dims;
      Index in;
      size_t k = 0;
      for (size_t d = 0; d < sizesOf(e->input(0)).size(); ++d) {
        if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end())
          in.push_back(IndexExpr::constant(0, space_.rank()));
        else
          in.push_back(idx[k++]);
      }
      return in;
    }
    case OpType::Reduction: {
      // Only over dims of extent 1 (schedulers take no other here): the one
      // element, converted to the output's dtype.
      const auto& axes = e->attr<ReductionAttr>().axes;
      const auto& in_sizes = sizesOf(e->input(0));
      Index in;
      size_t k = 0;
      for (size_t d = 0; d < in_sizes.size(); ++d) {
        const bool reduced =
            std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
        FUSEBOX_CHECK(!reduced || in_sizes[d] == 1,
                      "kernelgen: {} reduces dim {} of extent {}; only a reduction over extent-1 "
                      "dims is elementwise",
                      e->output(0)->toString(), d, in_sizes[d]);
        in.push_back(reduced ? IndexExpr::constant(0, space_.rank()) : idx[k++]);
      }
      return in;
    }
    case OpType::Expand:
      return alignRight(idx, sizesOf(e->input(0)), space_);
    case OpType::Permute: {
      const auto& dims = e->attr<PermuteAttr>().dims;
      Index in(dims.size());
      for (size_t k = 0; k < dims.size(); ++k) in[static_cast<size_t>(dims[k])] = idx[k];
      return in;
    }
    case OpType::Reshape:
      return reshapeIndex(idx, sizesOf(e->output(0)), sizesOf(e->input(0)), space_,
                          fmt::format("T{}", e->output(0)->name()));
    case OpType::Slice:
      return sliceIndex(e, idx);
    default:
      break;
  }
  throw InternalError(fmt::format("kernelgen: {} moves no element", e->opName()));
}

ElementWriter::ValueStep ElementWriter::nextOperand(ValueTask& t) {
  const Expr* e = t.tv->definition();
  while (t.next < e->inputs().size()) {
    const Val* in = e->input(t.next++);
    if (in->isTensor()) return need(in->as<TensorView>(), alignRight(t.idx, sizesOf(in), space_));
    // A scalar operand is read in the op's compute type (float32 for a
    // float32 op), as the evaluator and PyTorch read it.
    const DataType compute = elementwiseComputeType(e);
    if (convertsToComputeType(in->dtype(), false, compute))
      t.ops.push_back({kir::roundTo(compute, scalarValue(in)), compute});
    else
      t.ops.push_back({scalarValue(in), in->dtype()});
  }
  return finished(declare(t.tv->dtype(), opValue(e, t.ops, t.tv->dtype())));
}

ElementWriter::ValueStep ElementWriter::forwardTo(ValueTask& t, Index in) {
  t.stage = ValueTask::Stage::Forward;
  return need(t.tv->definition()->input(0)->as<TensorView>(), std::move(in));
}

Index ElementWriter::sliceIndex(const Expr* e, const Index& idx) {
  const auto& in_sizes = sizesOf(e->input(0));
  const auto& out_sizes = sizesOf(e->output(0));
  const size_t r = in_sizes.size();
  Index in;
  for (size_t d = 0; d < r; ++d) {
    const std::string role = fmt::format("T{}.{}", e->output(0)->name(), d);
    int64_t start = evaluateShapeScalar(info_, e->input(1 + d), "slice start");
    if (start < 0) start += in_sizes[d];
    start = std::clamp<int64_t>(start, 0, in_sizes[d]);
    const int64_t step = evaluateShapeScalar(info_, e->input(1 + 2 * r + d), "slice step");
    const bool param = space_.symbolic() && varies(e->input(1 + d));
    // With one output element the index is `start` whatever the step (which
    // may be near 2^63); with more, step < the input's size, so no product overflows.
    if (in_sizes[d] == 1) {
      in.push_back(IndexExpr::constant(0, space_.rank()));
    } else if (out_sizes[d] <= 1) {
      in.push_back(IndexExpr::constant(start, space_.rank()));
      in.back().a.c_param = param;
    } else {
      in.push_back(idx[d].scaled(start, step, space_, role, param));
    }
  }
  return in;
}

// x^2 and x^3 of a floating tensor by a constant exponent as products: a
// general pow is dozens of instructions (GELU's x^3), a product one. The
// evaluator rounds pow once in double; the products round two or three
// times in the compute type, well inside the comparison tolerances.
const TensorView* ElementWriter::smallPowerBase(const Expr* e) {
  if (e->op() != OpType::Binary || e->attr<BinaryOpType>() != BinaryOpType::Pow) return nullptr;
  const DataType out = e->output(0)->dtype();
  if (!isFloatingType(out) || !e->input(0)->isTensor() || e->input(1)->isTensor()) return nullptr;
  const auto* exponent = e->input(1)->as<Scalar>();
  if (!exponent->isConst()) return nullptr;
  const double k = toDouble(*exponent->value());
  if (k != 2.0 && k != 3.0) return nullptr;
  return e->input(0)->as<TensorView>();
}

kir::Value ElementWriter::smallPowerValue(const Expr* e, kir::Value base) {
  const DataType out = e->output(0)->dtype();
  const double k = toDouble(*e->input(1)->as<Scalar>()->value());
  const kir::Type ct = kir::computeTypeFor(out);
  if (kir::computeTypeFor(e->input(0)->dtype()) != ct) base = kir::castFrom(ct, base);
  const kir::Value square = base * base;
  return kir::roundTo(out, k == 2.0 ? square : square * base);
}

// pad: the input's value where the index falls inside it, else the pad value.
ElementWriter::ValueStep ElementWriter::startPad(ValueTask& t) {
  const Expr* e = t.tv->definition();
  const Index& idx = t.idx;
  const auto* src = e->input(0)->as<TensorView>();
  const auto& in_sizes = sizesOf(src);
  const size_t r = in_sizes.size();
  const size_t npairs = (e->inputs().size() - 2) / 2;
  Index in = idx;
  std::vector<kir::Value> checks;  // each dim's, and-ed
  BranchBounds bounds;
  for (size_t k = 0; k < npairs; ++k) {
    const size_t d = r - 1 - k;
    const std::string role = fmt::format("T{}.{}", e->output(0)->name(), d);
    const int64_t left = evaluateShapeScalar(info_, e->input(2 + 2 * k), "pad width");
    const int64_t right = evaluateShapeScalar(info_, e->input(3 + 2 * k), "pad width");
    // Over symbolic sizes, widths from the inputs take the general code: a
    // shift that is a parameter and both bounds checked, whatever their values.
    const bool general =
        space_.symbolic() && (varies(e->input(2 + 2 * k)) || varies(e->input(3 + 2 * k)));
    if (left == 0 && right == 0 && !general) continue;
    // Cropping by 2^63 (left = INT64_MIN) leaves nothing of the input.
    const auto shift = checked::neg(left);
    BranchBound& b = bounds.emplace_back();
    if (in_sizes[d] == 0 || !shift) {
      checks.push_back(kir::text("false"));
      b.never = true;
      in[d] = IndexExpr::constant(0, space_.rank());
      continue;
    }
    in[d] = idx[d].plus(*shift, space_, role, general);
    const kir::Value s = in[d].value(space_, role);
    const kir::Value size = space_.literal(in_sizes[d], role + "<");
    b.index = in[d];
    b.role = role;
    b.hi = in_sizes[d];
    b.hi_role = role + "<";
    if (left <= 0 && !general) {
      checks.push_back(s < size);
    } else {
      checks.push_back(s >= kir::lit(0) && s < size);
      b.lo = 0;
    }
    if (in_sizes[d] == 1) in[d] = IndexExpr::constant(0, space_.rank());
  }
  const DataType out = e->output(0)->dtype();
  const kir::Value pad_value = kir::roundTo(out, scalarValue(e->input(1)));
  if (checks.empty()) return forwardTo(t, std::move(in));
  t.var = sink.newVar("v");
  sink.at().declare(t.var, kir::computeTypeFor(out), {});
  t.chain.emplace(sink.at());
  t.branches = {{kir::allOf(checks), std::move(bounds), src, std::move(in)}};
  t.otherwise = pad_value;
  t.stage = ValueTask::Stage::Branches;
  return openBranch(t);
}

// cat: the value of the input whose range along the dim holds the index; the
// last input takes everything past the others, with no condition.
ElementWriter::ValueStep ElementWriter::startCat(ValueTask& t) {
  const Expr* e = t.tv->definition();
  const Index& idx = t.idx;
  const size_t dim = static_cast<size_t>(e->attr<CatAttr>().dim);
  const DataType out = e->output(0)->dtype();
  std::vector<ValueBranch> branches;
  std::vector<std::pair<int64_t, std::string>> ends;  // of each branch's range, and its role
  int64_t at = 0;
  const std::string role = fmt::format("T{}.{}", e->output(0)->name(), dim);
  for (size_t k = 0; k < e->inputs().size(); ++k) {
    const auto* src = e->input(k)->as<TensorView>();
    const int64_t size = sizesOf(src).at(dim);
    if (size == 0) continue;
    // Each input's bounds are parameters of their own (role ...:k).
    const std::string branch = fmt::format("{}:{}", role, k);
    Index in = idx;
    in[dim] =
        size == 1 ? IndexExpr::constant(0, space_.rank()) : idx[dim].plus(-at, space_, branch);
    at += size;
    ends.emplace_back(at, branch + "<");
    branches.push_back({{}, {}, src, std::move(in)});
  }
  FUSEBOX_CHECK(!branches.empty(), "kernelgen: cat of empty tensors has elements");
  if (branches.size() == 1) {
    t.stage = ValueTask::Stage::PassThrough;
    return need(branches[0].src, std::move(branches[0].idx));
  }
  // Branch b takes [ends[b - 1], ends[b]): the element code checks the upper
  // bound (the earlier branches took the rest), the bounds hold both.
  for (size_t b = 0; b < branches.size(); ++b) {
    BranchBound& bound = branches[b].bounds.emplace_back();
    bound.index = idx[dim];
    bound.role = role;
    if (b > 0) {
      bound.lo = ends[b - 1].first;
      bound.lo_role = ends[b - 1].second;
    }
    if (b + 1 < branches.size()) {
      branches[b].cond =
          idx[dim].value(space_, role) < space_.literal(ends[b].first, ends[b].second);
      bound.hi = ends[b].first;
      bound.hi_role = ends[b].second;
    }
  }
  t.var = sink.newVar("v");
  sink.at().declare(t.var, kir::computeTypeFor(out), {});
  t.chain.emplace(sink.at());
  t.branches = std::move(branches);
  t.stage = ValueTask::Stage::Branches;
  return openBranch(t);
}

// A branch's code goes in its own block, with its own memo scope: what it
// computes only exists where its condition holds.
ElementWriter::ValueStep ElementWriter::openBranch(ValueTask& t) {
  const ValueBranch& b = t.branches[t.next];
  // A cat's last branch takes what the others did not: the chain's else.
  sink.open(!b.cond.defined() ? t.chain->otherwise()
                              : t.chain->branch(loads_->branchCondition(sink, b.bounds, b.cond)));
  branches_.push_back(b.bounds);
  opened_.push_back(b.bounds);
  memo_.emplace_back();
  return need(b.src, b.idx);
}

ElementWriter::ValueStep ElementWriter::closeBranch(ValueTask& t, const kir::Value& value) {
  // A tensor's value is already rounded to its dtype: one of the output's
  // dtype needs no second rounding (a cat's inputs, a pad's input).
  const DataType out = t.tv->dtype();
  sink.at().assign(kir::var(t.var),
                   t.branches[t.next].src->dtype() == out ? value : kir::roundTo(out, value));
  memo_.pop_back();
  branches_.pop_back();
  sink.close();
  if (++t.next < t.branches.size()) return openBranch(t);
  if (t.otherwise) t.chain->otherwise().assign(kir::var(t.var), *t.otherwise);
  return finished(kir::var(t.var, kir::computeTypeFor(out)));
}

}  // namespace fusebox::kernelgen
