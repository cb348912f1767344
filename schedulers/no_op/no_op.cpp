// no_op: segments that move no data. Every output must be either a strided view
// of a segment input, reached only through set, broadcast, squeeze, expand,
// permute and reshape (reshape only where the input's strides allow a view), or
// a tensor with no elements. The plan returns views sharing the inputs' storage
// and empty tensors; nothing is copied or computed.
#include <fusebox/backend_plan.h>
#include <fusebox/checked_math.h>
#include <fusebox/scheduler.h>

#include <fmt/format.h>

#include <functional>
#include <optional>
#include <stdexcept>
#include <variant>

#include "view_analysis.h"

namespace {

using namespace fusebox;
using namespace fusebox::no_op;

std::string describeExpr(const Expr* e) {
  std::vector<std::string> outs, ins;
  for (const Val* v : e->outputs()) outs.push_back(v->toString());
  for (const Val* v : e->inputs()) ins.push_back(v->toString());
  return fmt::format("{} = {}({})", fmt::join(outs, ", "), e->opName(), fmt::join(ins, ", "));
}

// How the plan makes one output.
struct Recipe {
  enum class Kind { View, Empty } kind = Kind::Empty;
  DataType dtype = DataType::Float;
  std::string output;  // for dumps: "T3_g"
  int64_t input = -1;  // View: the segment input viewed
  std::string input_name;
  Layout expected_input;  // View: the input layout the view was computed for
  Layout layout;          // the output's sizes and strides

  std::string toString() const {
    if (kind == Kind::Empty)
      return fmt::format("{}: empty {}[{}]", output, irName(dtype), joinInts(layout.sizes));
    return fmt::format("{}: view of input {} ({}) as sizes [{}] strides [{}]", output, input,
                       input_name, joinInts(layout.sizes), joinInts(layout.strides));
  }
};

class NoOpParams final : public HeuristicParams {
 public:
  explicit NoOpParams(std::vector<Recipe> recipes) : recipes_(std::move(recipes)) {}
  const std::vector<Recipe>& recipes() const { return recipes_; }
  uint64_t hash() const override { return std::hash<std::string>()(toString()); }
  bool sameAs(const HeuristicParams& other) const override {
    const auto* o = dynamic_cast<const NoOpParams*>(&other);
    return o != nullptr && o->toString() == toString();
  }
  std::string toString() const override {
    std::vector<std::string> lines;
    for (const auto& r : recipes_) lines.push_back(r.toString());
    return fmt::format("{}", fmt::join(lines, "\n"));
  }

 private:
  std::vector<Recipe> recipes_;
};

class ViewPlan final : public BackendPlan {
 public:
  explicit ViewPlan(std::vector<Recipe> recipes) : recipes_(std::move(recipes)) {}
  std::string describe() const override {
    int64_t views = 0;
    for (const auto& r : recipes_) views += r.kind == Recipe::Kind::View;
    return fmt::format("{} view{} of inputs and {} empty tensor{}; no data moved", views,
                       views == 1 ? "" : "s", recipes_.size() - views,
                       recipes_.size() - views == 1 ? "" : "s");
  }
  std::vector<Argument> run(const std::vector<Argument>& inputs) const override {
    return make(nullptr, inputs);
  }
  // Views stay on the device; empty outputs are allocated there.
  std::vector<Argument> runOn(Backend& backend, const std::vector<Argument>& inputs) const override {
    return make(&backend, inputs);
  }

 private:
  std::vector<Argument> make(Backend* backend, const std::vector<Argument>& inputs) const {
    std::vector<Argument> outputs;
    for (const auto& r : recipes_) {
      if (r.kind == Recipe::Kind::Empty) {
        outputs.emplace_back(
            backend != nullptr
                ? backend->allocate(r.dtype, r.layout.sizes, r.layout.strides)
                : Tensor::emptyStrided(r.dtype, r.layout.sizes, r.layout.strides));
        continue;
      }
      const Tensor& in = std::get<Tensor>(inputs.at(r.input));
      // The plan is made per input signature; another layout is a runtime bug.
      if (in.sizes() != r.expected_input.sizes || in.strides() != r.expected_input.strides)
        throw std::logic_error(fmt::format(
            "no_op plan for {} was made for input {} of sizes [{}] strides [{}], but got {}",
            r.output, r.input, joinInts(r.expected_input.sizes), joinInts(r.expected_input.strides),
            in.describe()));
      outputs.emplace_back(in.asStrided(r.layout.sizes, r.layout.strides, in.storageOffset()));
    }
    return outputs;
  }

  std::vector<Recipe> recipes_;
};

// A constant extent that is not zero: the tensor can never be empty.
bool neverEmpty(const TensorView* tv) {
  for (const IterDomain* id : tv->logicalNoReductions()) {
    const Scalar* extent = id->logicalExtent();
    if (!extent->isConst() || toInt(*extent->value()) == 0) return false;
  }
  return true;
}

std::string extentsOf(const TensorView* tv) {
  std::vector<std::string> parts;
  for (const IterDomain* id : tv->logicalNoReductions())
    parts.push_back(id->logicalExtent()->toString());
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

std::string notAView(const Fusion& segment, const Val* out, const OutputSource& source) {
  if (!out->isTensor())
    return fmt::format(
        "output {} is a scalar; no_op only returns views of inputs and empty "
        "tensors",
        out->toString());
  if (source.computing_expr < 0)
    return fmt::format("output {} is not derived from a segment input", out->toString());
  const Expr* e = segment.tensorExprs().at(source.computing_expr);
  return fmt::format(
      "output {} depends on `{}`, and {} computes new values (no_op only "
      "accepts set, broadcast, squeeze, expand, permute and reshape of inputs, "
      "or outputs with no elements)",
      out->toString(), describeExpr(e), e->opName());
}

class NoOpScheduler final : public Scheduler {
 public:
  std::string name() const override { return "no_op"; }

  Answer propose(const Fusion& segment, RuntimeInfo& info, CompileTimeCache& cache) override {
    const Decision structure =
        cache.get<Decision>("no_op.compile_time", [&] { return checkStructure(segment, cache); });
    if (!structure) return Refusal::ofStructure(structure);
    auto result = makeRecipes(segment, info, cache);
    if (auto* reason = std::get_if<std::string>(&result)) return Refusal::ofInputs(*reason);
    auto recipes = std::get<std::vector<Recipe>>(std::move(result));
    return std::make_unique<LazyProposal>(
        [recipes] { return std::make_unique<NoOpParams>(recipes); },
        [](const HeuristicParams& params) {
          return std::make_unique<ViewPlan>(dynamic_cast<const NoOpParams&>(params).recipes());
        });
  }

 private:
  // Outputs that are views, or computed ones that may be empty (known at run
  // time, unless their extents are constants).
  static Decision checkStructure(const Fusion& segment, CompileTimeCache& cache) {
    const SegmentFacts& facts = factsOf(segment, cache);
    for (size_t k = 0; k < facts.outputs.size(); ++k) {
      const OutputSource& source = facts.outputs[k];
      if (source.is_view) continue;
      const Val* out = segment.outputs()[k];
      if (!out->isTensor()) return Decision::reject(notAView(segment, out, source));
      const auto* tv = out->as<TensorView>();
      if (neverEmpty(tv))
        return Decision::reject(
            notAView(segment, out, source) +
            fmt::format("; its extents {} are constants, so it is never empty", extentsOf(tv)));
    }
    return Decision::accept();
  }

  static const SegmentFacts& factsOf(const Fusion& segment, CompileTimeCache& cache) {
    return cache.get<SegmentFacts>("no_op.facts", [&] { return analyzeSegment(segment); });
  }

  // Each output's recipe, or why some output needs data moved.
  static std::variant<std::vector<Recipe>, std::string> makeRecipes(const Fusion& segment,
                                                                    RuntimeInfo& info,
                                                                    CompileTimeCache& cache) {
    const SegmentFacts& facts = factsOf(segment, cache);
    if (std::string problem = uncheckedIndicesProblem(segment, info); !problem.empty())
      return problem;
    const std::vector<Expr*> exprs = segment.tensorExprs();
    std::vector<Recipe> recipes;
    for (size_t k = 0; k < facts.outputs.size(); ++k) {
      const OutputSource& source = facts.outputs[k];
      const Val* out = segment.outputs()[k];
      if (!out->isTensor()) return notAView(segment, out, source);
      const auto* tv = out->as<TensorView>();
      Recipe r;
      r.dtype = tv->dtype();
      r.output = tv->toString();
      r.layout.sizes = info.sizes(tv);
      const std::optional<int64_t> count = checked::product(r.layout.sizes);
      if (!count)
        return fmt::format("output {} of sizes [{}]: the number of elements overflows int64",
                           tv->toString(), fmt::join(r.layout.sizes, ", "));
      const int64_t numel = *count;
      if (numel == 0) {
        r.kind = Recipe::Kind::Empty;
        r.layout.strides = tv->hasAllocation() ? stridesForOrder(r.layout.sizes, tv->strideOrder())
                                               : contiguousStrides(r.layout.sizes);
        recipes.push_back(std::move(r));
        continue;
      }
      if (!source.is_view)
        return notAView(segment, out, source) + fmt::format("; it has {} elements", numel);
      const auto* arg = std::get_if<TensorArgInfo>(&info.inputs().at(source.input));
      if (arg == nullptr)
        return fmt::format("output {}: input {} is not a tensor", tv->toString(), source.input);
      r.kind = Recipe::Kind::View;
      r.input = source.input;
      r.input_name = segment.inputs()[source.input]->toString();
      r.expected_input = {arg->sizes, arg->strides};
      Layout layout = r.expected_input;
      for (int64_t index : source.chain) {
        const Expr* e = exprs.at(index);
        std::string why;
        auto next = viewLayout(e, layout, info.sizes(e->output(0)->as<TensorView>()), &why);
        if (!next)
          return fmt::format("output {} needs a copy: `{}`: {}", tv->toString(), describeExpr(e),
                             why);
        layout = std::move(*next);
      }
      r.layout = std::move(layout);
      recipes.push_back(std::move(r));
    }
    return recipes;
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(NoOpScheduler, "no_op", "1.0",
                                 "Segments that move no data: outputs that are views of inputs "
                                 "(set, broadcast, squeeze, expand, permute, reshape) or empty")
