// RuntimeInfo: what a scheduler knows of a segment's inputs at run time
// (scheduler.h), and the binding of a fusion's inputs to such knowledge
// that the host's FusionRuntimeFacts shares (argument_binding.h).
#include "scheduler/argument_binding.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <unordered_set>

#include <fusebox/checked_math.h>
#include <fusebox/ir/shape_scalars.h>
#include <fusebox/scheduler.h>

namespace fusebox {
namespace {

std::string inputName(const Fusion& fusion, size_t i) {
  return fmt::format("#{} ({})", i, fusion.inputs()[i]->toString());
}

std::string describeInfo(const ArgumentInfo& a) {
  if (const auto* t = std::get_if<TensorArgInfo>(&a))
    return fmt::format("a {} tensor of sizes [{}]", dtypeName(t->dtype), fmt::join(t->sizes, ", "));
  return fmt::format("the scalar {}", toString(std::get<ScalarValue>(a)));
}

}  // namespace

void bindArgumentInfos(const Fusion& fusion, const std::vector<ArgumentInfo>& infos,
                       ExpressionEvaluator& ee, const std::string& what) {
  const auto& inputs = fusion.inputs();
  FUSEBOX_USER_CHECK(infos.size() == inputs.size(), "{} has {} inputs, got {} argument infos", what,
                     inputs.size(), infos.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Val* v = inputs[i];
    const std::string name = inputName(fusion, i);
    if (!v->isTensor()) {
      const auto* s = std::get_if<ScalarValue>(&infos[i]);
      FUSEBOX_USER_CHECK(s != nullptr, "{} input {}: expected a scalar, got {}", what, name,
                         describeInfo(infos[i]));
      try {
        ee.bind(v, *s, name);
      } catch (const UserError& e) {
        throw UserError(fmt::format("{} input {}: {}", what, name, e.what()));
      }
      continue;
    }
    const auto* t = std::get_if<TensorArgInfo>(&infos[i]);
    const auto* tv = v->as<TensorView>();
    FUSEBOX_USER_CHECK(t != nullptr, "{} input {}: expected a tensor, got {}", what, name,
                       describeInfo(infos[i]));
    const auto dims = tv->logicalNoReductions();
    FUSEBOX_USER_CHECK(t->dtype == tv->dtype(), "{} input {}: expected dtype {}, got {}", what,
                       name, dtypeName(tv->dtype()), dtypeName(t->dtype));
    FUSEBOX_USER_CHECK(t->sizes.size() == dims.size(),
                       "{} input {}: expected {} dims, got sizes [{}]", what, name, dims.size(),
                       fmt::join(t->sizes, ", "));
    FUSEBOX_USER_CHECK(t->strides.empty() || t->strides.size() == t->sizes.size(),
                       "{} input {}: {} strides for {} sizes", what, name, t->strides.size(),
                       t->sizes.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      const IterDomain* id = dims[d];
      if (id->isBroadcast() && !id->hasExpandedExtent()) {
        FUSEBOX_USER_CHECK(t->sizes[d] == 1,
                           "{} input {}: dim {} has size {}, expected 1 (a broadcast dim)", what,
                           name, d, t->sizes[d]);
        continue;
      }
      std::string expected = ee.bindExtent(id->logicalExtent(), t->sizes[d], name);
      FUSEBOX_USER_CHECK(expected.empty(), "{} input {}: dim {} has size {}, expected {}", what,
                         name, d, t->sizes[d], expected);
    }
  }
}

// ---- RuntimeInfo ---------------------------------------------------------------------------

RuntimeInfo::RuntimeInfo(const Fusion& segment, std::vector<ArgumentInfo> inputs,
                         DeviceProperties device, ShapeMode shape_mode)
    : segment_(&segment),
      inputs_(std::move(inputs)),
      device_(std::move(device)),
      shape_mode_(shape_mode) {
  bindArgumentInfos(segment, inputs_, evaluator_, "segment");
}

int64_t RuntimeInfo::extent(const IterDomain* id) {
  return evaluator_.evaluateInt(id->logicalExtent());
}

std::vector<int64_t> RuntimeInfo::sizes(const TensorView* tv) {
  std::vector<int64_t> out;
  for (const IterDomain* id : tv->logicalNoReductions()) out.push_back(extent(id));
  return out;
}

namespace {

// Why a plan that computes only the segment's output elements would leave
// some of `e`'s output unread ("" when it reads all of it): every output it
// reaches is empty, or a slice or a cropping pad drops some of it on the way.
std::string partlyReadProblem(const Expr* e, RuntimeInfo& info) {
  auto empty = [&](const TensorView* tv) {
    const std::vector<int64_t> sizes = info.sizes(tv);
    return std::find(sizes.begin(), sizes.end(), 0) != sizes.end();
  };
  bool reaches_elements = false;
  std::vector<const Val*> stack = {e->output(0)};
  std::unordered_set<const Val*> seen;
  while (!stack.empty()) {
    const Val* v = stack.back();
    stack.pop_back();
    if (!seen.insert(v).second) continue;
    if (v->isFusionOutput() && !empty(v->as<TensorView>())) reaches_elements = true;
    for (const Expr* use : v->uses()) {
      if (use->op() == OpType::Slice)
        return fmt::format("{} (expr {}) keeps only part of it", use->opName(), use->name());
      if (use->op() == OpType::Pad)
        for (size_t k = 2; k < use->inputs().size(); ++k) {
          auto width = info.evaluator().evaluate(use->input(k));
          if (!width || toInt(*width) < 0)
            return fmt::format("{} (expr {}) crops it", use->opName(), use->name());
        }
      for (const Val* o : use->outputs())
        if (o->isTensor()) stack.push_back(o);
    }
  }
  return reaches_elements ? "" : "every output it reaches is empty";
}

}  // namespace

std::string uncheckedIndicesProblem(const Fusion& segment, RuntimeInfo& info) {
  auto empty = [&](const TensorView* tv) {
    const std::vector<int64_t> sizes = info.sizes(tv);
    return std::find(sizes.begin(), sizes.end(), 0) != sizes.end();
  };
  for (const Expr* e : segment.exprs()) {
    if (!isIndexingOp(e->op())) continue;
    const bool select = e->op() == OpType::Select;
    if (!select && empty(e->input(1)->as<TensorView>())) continue;
    std::string why = empty(e->output(0)->as<TensorView>()) ? std::string("its output is empty")
                                                            : partlyReadProblem(e, info);
    if (why.empty()) continue;
    return fmt::format(
        "{} (expr {}): {}, but its {} must still be checked in full (an index out of range is "
        "an error whatever is read), which a kernel does only where it reads one; the "
        "evaluator checks it",
        e->opName(), e->name(), why,
        select ? "index" : fmt::format("index {}", e->input(1)->toString()));
  }
  return "";
}

}  // namespace fusebox
