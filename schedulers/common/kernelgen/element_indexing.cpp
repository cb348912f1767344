// Indirect loads of the element writer (element_writer.h): index_select,
// gather and take_along_axis read their index operand at the element, then
// the indexed input at that index along their dim; select reads its scalar
// once per kernel. Every index is checked at run time (index_check.cuh in the
// device runtime): one out of range is recorded in the kernel's IndexErrors
// words and read as 0, and the runtime raises it after the launch. The
// indexed dim's offset is opaque index math, so those loads are scalar ones;
// the index operand and the outputs vectorize as any other access.
#include <fmt/format.h>

#include "kernelgen/element_writer.h"
#include "kernelgen/value_task.h"

namespace fusebox::kernelgen {

int ElementWriter::indexCheckId(const Expr* e, int64_t size, int64_t lowest) {
  if (auto it = index_check_ids_.find(e); it != index_check_ids_.end()) return it->second;
  IndexCheck c;
  c.op = fmt::format("{} (expr {})", e->opName(), e->name());
  c.tensor = e->input(0)->toString();
  c.dim = e->attr<IndexAttr>().dim;
  c.size = size;
  c.lowest = lowest;
  index_checks_.push_back(std::move(c));
  const int id = static_cast<int>(index_checks_.size());
  index_check_ids_[e] = id;
  return id;
}

ElementWriter::ValueStep ElementWriter::startIndexed(ValueTask& t) {
  const Expr* e = t.tv->definition();
  const auto* index = e->input(1)->as<TensorView>();
  const size_t d = static_cast<size_t>(e->attr<IndexAttr>().dim);
  Index at;
  switch (e->op()) {
    case OpType::IndexSelect:
      // A 1-D index along the output's dim d; a 0-D one is the same for all.
      if (!sizesOf(index).empty()) at.push_back(t.idx[d]);
      break;
    case OpType::Gather:
      at = t.idx;  // the output has the index's shape
      break;
    default:  // take_along_axis: the index broadcasts to the output
      at = alignRight(t.idx, sizesOf(index), space_);
      break;
  }
  t.stage = ValueTask::Stage::Indexed;
  return need(index, std::move(at));
}

namespace {

// id as the 64-bit unsigned literal the runtime's index checks take.
kir::Value checkId(int id) {
  return kir::text(fmt::format("{}ull", id));
}

}  // namespace

ElementWriter::ValueStep ElementWriter::finishIndexed(ValueTask& t, const kir::Value& index_value) {
  const Expr* e = t.tv->definition();
  const size_t d = static_cast<size_t>(e->attr<IndexAttr>().dim);
  const auto& in_sizes = sizesOf(e->input(0));
  const int64_t size = in_sizes[d];
  const int id = indexCheckId(e, size, 0);
  const kir::Value value = kir::cast(kir::named("int64_t"), index_value);
  const kir::Value errors = kir::var(params_.indexErrors());
  if (size == 0) {
    // Nothing to read: every index is out of range.
    sink.at().evaluate(kir::call("fusebox::recordIndexError", {errors, checkId(id), value}));
    const DataType out = t.tv->dtype();
    return finished(declare(out, kir::roundTo(out, kir::lit(0))));
  }
  const std::string role = fmt::format("T{}.{}<", e->input(0)->name(), d);
  const std::string x = loads_->indexVariable(
      sink, index_value,
      kir::asIndex(kir::call("fusebox::checkedIndex",
                             {value, space_.literal(size, role), errors, checkId(id)})));
  // take_along_axis reads a size-1 input dim at 0 for every output index.
  Index in = e->op() == OpType::TakeAlongAxis ? alignRight(t.idx, in_sizes, space_) : t.idx;
  // A segment input is loaded at once: its offset keeps the index as a term
  // of affine index math, so the placement may load a vector through it (an
  // embedding row). Anything else reads through opaque index math.
  const auto* src = e->input(0)->as<TensorView>();
  if (src->isFusionInput() && branches_.empty() && sources_.count(src) == 0) {
    in[d] = IndexExpr::constant(0, space_.rank());
    in[d].a.terms.emplace_back(x, 1);
  } else {
    in[d] = IndexExpr::opaque(kir::var(x, kir::indexType()));
  }
  return forwardTo(t, std::move(in));
}

ElementWriter::ValueStep ElementWriter::startSelect(ValueTask& t) {
  const Expr* e = t.tv->definition();
  const size_t d = static_cast<size_t>(e->attr<IndexAttr>().dim);
  const auto& in_sizes = sizesOf(e->input(0));
  const int64_t size = in_sizes[d];
  const int id = indexCheckId(e, size, -size);
  // The scalar is the same for every element: checked once per thread.
  const kir::Value raw = kir::cast(kir::named("int64_t"), scalarValue(e->input(1)));
  const kir::Value errors = kir::var(params_.indexErrors());
  const std::string role = fmt::format("T{}.{}<", e->input(0)->name(), d);
  const std::string s = sink.newVar("s");
  if (size == 0) {
    prologue.evaluate(kir::call("fusebox::recordIndexError", {errors, checkId(id), raw}));
    const DataType out = t.tv->dtype();
    return finished(declare(out, kir::roundTo(out, kir::lit(0))));
  }
  const kir::Value index = prologue.declare(
      s, kir::indexType(),
      kir::asIndex(kir::call("fusebox::checkedSelectIndex",
                             {raw, space_.literal(size, role), errors, checkId(id)})),
      {.is_const = true});
  Index in = t.idx;
  in.insert(in.begin() + static_cast<std::ptrdiff_t>(d), IndexExpr::opaque(index));
  return forwardTo(t, std::move(in));
}

}  // namespace fusebox::kernelgen
