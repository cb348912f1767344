// expr_eval: the universal fallback. It accepts every segment and runs it with
// the reference evaluator, so every fusion runs even where no kernel scheduler
// applies. It is the last entry of the default order. On the GPU, a segment
// that is one matmul or linear runs through cuBLAS; any other segment is
// evaluated on the host with its inputs copied from the device and its outputs
// copied back (the plan's description says how many).
#include <fusebox/backend/cublas_matmul.h>
#include <fusebox/backend_plan.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/scheduler.h>

#include <fmt/format.h>

namespace {

using namespace fusebox;

// Nothing to choose: the params only identify the segment they were made for.
class ExprEvalParams final : public HeuristicParams {
 public:
  explicit ExprEvalParams(uint64_t segment_hash) : segment_hash_(segment_hash) {}
  uint64_t hash() const override { return segment_hash_; }
  bool sameAs(const HeuristicParams& other) const override {
    const auto* o = dynamic_cast<const ExprEvalParams*>(&other);
    return o != nullptr && o->segment_hash_ == segment_hash_;
  }
  std::string toString() const override {
    return fmt::format("segment hash {:016x} (the reference evaluator has no parameters)",
                       segment_hash_);
  }

 private:
  uint64_t segment_hash_;
};

int64_t countTensors(const std::vector<Val*>& vals) {
  int64_t n = 0;
  for (const Val* v : vals) n += v->isTensor();
  return n;
}

class EvaluatorPlan final : public BackendPlan {
 public:
  // `copies`: the plan runs on a GPU, so its tensors cross to the host and back.
  EvaluatorPlan(const Fusion& segment, bool copies) : segment_(segment), copies_(copies) {
    for (const Expr* e : segment.exprs())
      if (e->isTensorOp()) ++tensor_exprs_;
  }
  std::string describe() const override {
    std::string what = fmt::format("{} tensor expression{} (reference evaluator)", tensor_exprs_,
                                   tensor_exprs_ == 1 ? "" : "s");
    if (!copies_) return "host evaluation of " + what;
    const int64_t in = countTensors(segment_.inputs()), out = countTensors(segment_.outputs());
    return fmt::format("host evaluation with copies: {} input{} to host, {} output{} to device; {}",
                       in, in == 1 ? "" : "s", out, out == 1 ? "" : "s", what);
  }
  std::vector<Argument> run(const std::vector<Argument>& inputs) const override {
    return evaluateFusion(segment_, inputs);
  }
  std::vector<Argument> runOn(Backend& backend, const std::vector<Argument>& inputs) const override {
    if (backend.kind() != BackendKind::Cuda) return evaluateFusion(segment_, inputs);
    std::vector<Argument> host;
    host.reserve(inputs.size());
    for (const Argument& a : inputs) {
      const auto* t = std::get_if<Tensor>(&a);
      host.push_back(t != nullptr && t->defined() && t->device() == Device::Cuda
                         ? Argument(backend.toHost(*t))
                         : a);
    }
    std::vector<Argument> outputs = evaluateFusion(segment_, host);
    for (Argument& o : outputs)
      if (auto* t = std::get_if<Tensor>(&o); t != nullptr && t->defined()) o = backend.toBackend(*t);
    return outputs;
  }

 private:
  // The runtime keeps the segment alive as long as the plan.
  const Fusion& segment_;
  bool copies_;
  int64_t tensor_exprs_ = 0;
};

// A segment that is one matmul or linear of its inputs, on the GPU: cuBLAS
// with the operands where they are.
class CublasPlan final : public BackendPlan {
 public:
  explicit CublasPlan(const Expr* e) : expr_(e) {}
  std::string describe() const override {
    return fmt::format("cuBLAS {} on the device (no copies)",
                       expr_->op() == OpType::Matmul ? "matmul" : "linear");
  }
  std::vector<Argument> run(const std::vector<Argument>&) const override {
    throw UserError("a cuBLAS plan needs the cuda backend");
  }
  std::vector<Argument> runOn(Backend& backend, const std::vector<Argument>& inputs) const override {
    const Tensor& a = std::get<Tensor>(inputs.at(0));
    const Tensor& b = std::get<Tensor>(inputs.at(1));
    if (expr_->op() == OpType::Matmul) return {cublasMatmul(backend, a, b)};
    const Tensor* bias = inputs.size() > 2 ? &std::get<Tensor>(inputs[2]) : nullptr;
    return {cublasLinear(backend, a, b, bias)};
  }

 private:
  const Expr* expr_;
};

// Row-major or column-major in the last two dims (what cuBLAS takes without a copy).
bool cublasLayout(const TensorArgInfo& t) {
  const size_t n = t.sizes.size();
  if (n == 0) return false;
  if (n == 1) return t.strides[0] == 1 || t.sizes[0] <= 1;
  const int64_t rows = t.sizes[n - 2], cols = t.sizes[n - 1];
  const int64_t rs = t.strides[n - 2], cs = t.strides[n - 1];
  return (cs == 1 && rs >= std::max<int64_t>(cols, 1)) ||
         (rs == 1 && cs >= std::max<int64_t>(rows, 1));
}

// The matmul or linear a segment consists of, when cuBLAS can run it as is.
const Expr* cublasExpr(const Fusion& segment, RuntimeInfo& info) {
  const Expr* only = nullptr;
  for (const Expr* e : segment.exprs()) {
    if (!e->isTensorOp()) continue;
    if (only != nullptr) return nullptr;
    only = e;
  }
  if (only == nullptr || (only->op() != OpType::Matmul && only->op() != OpType::Linear))
    return nullptr;
  if (segment.outputs().size() != 1 || segment.outputs()[0] != only->outputs()[0]) return nullptr;
  if (segment.inputs().size() != only->inputs().size()) return nullptr;
  const DataType dtype = only->outputs()[0]->dtype();
  if (dtype != DataType::Float && dtype != DataType::Half && dtype != DataType::BFloat16 &&
      dtype != DataType::Double)
    return nullptr;
  for (size_t i = 0; i < only->inputs().size(); ++i) {
    if (segment.inputs()[i] != only->inputs()[i]) return nullptr;
    const auto* t = std::get_if<TensorArgInfo>(&info.inputs().at(i));
    if (t == nullptr || t->dtype != dtype) return nullptr;
    // The bias of linear is added, not multiplied: any dense 1-D layout.
    if (!(only->op() == OpType::Linear && i == 2) && !cublasLayout(*t)) return nullptr;
    if (only->op() == OpType::Linear && i == 2 && t->sizes.size() != 1) return nullptr;
  }
  return only;
}

class ExprEvalScheduler final : public Scheduler {
 public:
  std::string name() const override { return "expr_eval"; }
  // Accepts anything: only offered what no kernel scheduler accepts.
  bool isFallback() const override { return true; }

  Answer propose(const Fusion& segment, RuntimeInfo& info, CompileTimeCache& cache) override {
    const uint64_t hash =
        cache.get<uint64_t>("expr_eval.structural_hash", [&] { return segment.structuralHash(); });
    const bool on_gpu = info.device().is_gpu;
    const Expr* cublas = on_gpu ? cublasExpr(segment, info) : nullptr;
    return std::make_unique<LazyProposal>(
        [hash] { return std::make_unique<ExprEvalParams>(hash); },
        [&segment, on_gpu, cublas](const HeuristicParams&) -> std::unique_ptr<SegmentPlan> {
          if (cublas != nullptr) return std::make_unique<CublasPlan>(cublas);
          return std::make_unique<EvaluatorPlan>(segment, on_gpu);
        });
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(ExprEvalScheduler, "expr_eval", "1.0",
                                 "Runs any segment with the reference evaluator (matmul and linear "
                                 "through cuBLAS on the GPU; accepts everything: the fallback)")
