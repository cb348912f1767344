// The scheduler interface. A scheduler plugin answers one question for a
// segment (a sub-fusion the segmenter tries) and the inputs of one signature:
//
//   propose(segment, runtime facts, cache)  ->  a Refusal (why not), or a
//                                               Proposal (params and a plan)
//
// A proposal owns what the scheduler derived to answer (its analysis) and
// makes the params and the plan (code generation) when asked, once. The
// segmenter keeps the proposal of the scheduler that took a segment and the
// runtime plans with it, so nothing is analyzed or generated twice for one
// segment and signature. Schedulers are tried in the config's [schedulers]
// order; the first that proposes gets the segment. Every call into a
// scheduler is guarded by the host: a scheduler that throws counts as
// refusing, and the log says so.
#pragma once

#include <fusebox/configurable.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/fusion.h>
#include <fusebox/option_value.h>
#include <fusebox/plugin/plugin_api.h>

#include <any>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeindex>
#include <variant>
#include <vector>

namespace fusebox {

// The outcome of one of a scheduler's checks: accept, or reject with a reason
// (a rejecting Decision becomes the Refusal that propose() returns).
class [[nodiscard]] Decision {
 public:
  static Decision accept() { return Decision(true, {}); }
  static Decision reject(std::string reason) { return Decision(false, std::move(reason)); }
  bool accepted() const { return accepted_; }
  explicit operator bool() const { return accepted_; }
  const std::string& reason() const { return reason_; }

 private:
  Decision(bool a, std::string r) : accepted_(a), reason_(std::move(r)) {}
  bool accepted_;
  std::string reason_;
};

// The machine a segment will run on.
struct DeviceProperties {
  std::string name = "host";
  bool is_gpu = false;
  int compute_major = 0, compute_minor = 0;  // 9.0 for H100/H200
  int multiprocessor_count = 1;
  int max_threads_per_block = 1024;
  int warp_size = 32;
  int64_t shared_memory_per_block = 48 * 1024;
  int64_t registers_per_block = 65536;
  // Most blocks a thread-block cluster may have (LaunchConfig::cluster): the
  // host backend emulates clusters of up to 8; a GPU says 8 from compute 9.0
  // on, 1 below (no clusters).
  int max_cluster_blocks = 8;
  // Bytes of L2 cache (0: unknown, as on the host backend).
  int64_t l2_cache_bytes = 0;
};

// What is known about one segment input at run time.
struct TensorArgInfo {
  DataType dtype;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;  // elements
  int64_t alignment = 0;         // largest power of two (<= 256) dividing the data address, bytes
};
using ArgumentInfo = std::variant<TensorArgInfo, ScalarValue>;

// Whether a kernel may bake the sizes and strides of this call into its source
// (Static), or should read them from KernelParams (Symbolic: ParamBinding::
// Source::Value), so that one compiled kernel serves every size for which the
// scheduler makes the same decisions ([runtime] shapes, docs/runtime.md). A
// scheduler that does not support Symbolic may ignore it: the runtime then
// compiles per size, as for Static.
enum class ShapeMode { Static, Symbolic };

// An output the runtime would like written straight into an input's memory:
// the complete fusion aliases it to a fusion input (`add_output(t,
// alias_input=x)`) that no other segment reads. Segment output `output` may
// be written over segment input `input` (positions in the segment's lists).
struct InPlaceRequest {
  size_t output = 0;
  size_t input = 0;
  bool operator==(const InPlaceRequest&) const = default;
};

// Run-time facts about one segment: its inputs' sizes, strides and alignment,
// an evaluator bound to them (any extent of the segment can be evaluated), and
// the device.
class RuntimeInfo {
 public:
  RuntimeInfo(const Fusion& segment, std::vector<ArgumentInfo> inputs, DeviceProperties device,
              ShapeMode shape_mode = ShapeMode::Static);
  const Fusion& segment() const { return *segment_; }
  const std::vector<ArgumentInfo>& inputs() const { return inputs_; }
  const DeviceProperties& device() const { return device_; }
  ShapeMode shapeMode() const { return shape_mode_; }
  // Extents of any tensor of the segment. Throws UserError on conflicting sizes.
  ExpressionEvaluator& evaluator() { return evaluator_; }
  int64_t extent(const IterDomain* id);
  // Non-reduction sizes of a tensor of the segment.
  std::vector<int64_t> sizes(const TensorView* tv);
  // Outputs the runtime may write in place (InPlaceRequest). A scheduler may
  // ignore them: the runtime then copies the output into the input after the
  // last segment ran. One that honours request r writes output r.output
  // through the memory it is given for it, which the runtime may make input
  // r.input's: its kernel must then read every element of that input (by
  // the thread that writes the same element of the output, before writing
  // it) and no other element, and must not declare the two pointers
  // __restrict__. It says so with KernelPlan::OutputSpec::in_place_of_input.
  const std::vector<InPlaceRequest>& inPlaceRequests() const { return in_place_; }
  void requestInPlace(std::vector<InPlaceRequest> requests) { in_place_ = std::move(requests); }

 private:
  const Fusion* segment_;
  std::vector<ArgumentInfo> inputs_;
  DeviceProperties device_;
  ShapeMode shape_mode_;
  std::vector<InPlaceRequest> in_place_;
  ExpressionEvaluator evaluator_;
};

// Why the segment needs the evaluator to check its indices ("" when it does
// not): an indexing op with a non-empty index (a select: any) of which a plan
// computing only the segment's output elements would not read every element:
// its output is empty at these sizes, every output it reaches is empty, or a
// slice or cropping pad drops part of it on the way. PyTorch checks every
// index whatever is read; a kernel checks an index only where it reads one,
// and a view reads none. Kernel and view schedulers refuse such a segment at
// run time, so it falls to the evaluator (expr_eval).
std::string uncheckedIndicesProblem(const Fusion& segment, RuntimeInfo& info);

// Caches compile-time analyses of one segment across calls (and across input
// signatures): a scheduler stores what it derived from the IR alone.
class CompileTimeCache {
 public:
  template <class T>
  T& get(const std::string& key, const std::function<T()>& make) {
    auto it = entries_.find(key);
    if (it == entries_.end()) it = entries_.emplace(key, std::any(make())).first;
    return std::any_cast<T&>(it->second);
  }
  size_t size() const { return entries_.size(); }

 private:
  std::map<std::string, std::any> entries_;
};

// A scheduler's choices for one segment and input signature.
class __attribute__((visibility("default"))) HeuristicParams {
 public:
  virtual ~HeuristicParams();
  virtual uint64_t hash() const = 0;
  virtual bool sameAs(const HeuristicParams& other) const = 0;
  // One line per choice, for the scheduler_params dump.
  virtual std::string toString() const = 0;
};

// What schedule() returns: something that runs the segment.
class __attribute__((visibility("default"))) SegmentPlan {
 public:
  virtual ~SegmentPlan();
  // For dumps: what will run ("host evaluation of 5 exprs", a kernel's name...).
  virtual std::string describe() const = 0;
};

// A plan that runs on the host: given the segment's inputs, returns its outputs
// (in the segment fusion's output order).
class __attribute__((visibility("default"))) HostPlan : public SegmentPlan {
 public:
  virtual std::vector<Argument> run(const std::vector<Argument>& inputs) const = 0;
};

// Why a scheduler does not take a segment: the one way a scheduler says no.
// The segmenter log shows it as "compile time: <reason>" (the segment's
// structure rules it out, whatever its inputs: the segmenter remembers the
// refusal per scheduler and structure and does not ask again) or "run time:
// <reason>" (these inputs rule it out; other inputs are asked again).
class Refusal {
 public:
  enum class Basis { Structure, Inputs };
  static Refusal ofStructure(std::string reason) { return {Basis::Structure, std::move(reason)}; }
  static Refusal ofInputs(std::string reason) { return {Basis::Inputs, std::move(reason)}; }
  // From a rejecting check.
  static Refusal ofStructure(const Decision& d) { return ofStructure(d.reason()); }
  static Refusal ofInputs(const Decision& d) { return ofInputs(d.reason()); }
  Basis basis() const { return basis_; }
  bool structural() const { return basis_ == Basis::Structure; }
  const std::string& reason() const { return reason_; }
  // "compile time: <reason>" or "run time: <reason>", as the log shows it.
  std::string describe() const {
    return (structural() ? "compile time: " : "run time: ") + reason_;
  }

 private:
  Refusal(Basis basis, std::string reason) : basis_(basis), reason_(std::move(reason)) {}
  Basis basis_;
  std::string reason_;
};

// A scheduler's offer to run one segment for one input signature. It may
// refer to the segment (which outlives it) but keeps its own copy of anything
// else it needs (the RuntimeInfo passed to propose() does not outlive the
// call). The host asks for params() (any number of times: make them once) and
// then for makePlan() at most once; either may throw, which counts as the
// scheduler failing to plan the segment (the next scheduler is tried).
class __attribute__((visibility("default"))) Proposal {
 public:
  virtual ~Proposal();
  virtual std::shared_ptr<const HeuristicParams> params() = 0;
  virtual std::unique_ptr<SegmentPlan> makePlan() = 0;
};

// The usual Proposal: two steps over what propose() derived (captured by the
// functions). The params are made on the first params() call and kept; the
// plan is made from them.
class LazyProposal final : public Proposal {
 public:
  using MakeParams = std::function<std::unique_ptr<HeuristicParams>()>;
  using MakePlan = std::function<std::unique_ptr<SegmentPlan>(const HeuristicParams&)>;
  LazyProposal(MakeParams make_params, MakePlan make_plan)
      : make_params_(std::move(make_params)), make_plan_(std::move(make_plan)) {}
  std::shared_ptr<const HeuristicParams> params() override {
    if (params_ == nullptr) {
      params_ = make_params_();
      if (params_ == nullptr) throw std::logic_error("the proposal made no params");
    }
    return params_;
  }
  std::unique_ptr<SegmentPlan> makePlan() override { return make_plan_(*params()); }

 private:
  MakeParams make_params_;
  MakePlan make_plan_;
  std::shared_ptr<const HeuristicParams> params_;
};

// What propose() returns: a refusal or a proposal.
class [[nodiscard]] Answer {
 public:
  Answer(Refusal refusal) : refusal_(std::move(refusal)) {}  // NOLINT: implicit by design
  template <class P, class = std::enable_if_t<std::is_base_of_v<Proposal, P>>>
  Answer(std::unique_ptr<P> proposal) : proposal_(std::move(proposal)) {  // NOLINT
    if (proposal_ == nullptr) refusal_ = Refusal::ofInputs("the scheduler proposed nothing");
  }
  bool proposed() const { return proposal_ != nullptr; }
  // Why not; only an answer that refused has one.
  const Refusal& refusal() const {
    if (!refusal_) throw std::logic_error("an answer with a proposal has no refusal");
    return *refusal_;
  }
  std::unique_ptr<Proposal> takeProposal() { return std::move(proposal_); }

 private:
  std::optional<Refusal> refusal_;
  std::unique_ptr<Proposal> proposal_;
};

class __attribute__((visibility("default"))) Scheduler : public Configurable {
 public:
  ~Scheduler() override;

  // The name configs use; equal to the name in the plugin's record. Options
  // (options(), configure(), option<T>()) come from Configurable; the
  // scheduler's table is [schedulers.<name>].
  virtual std::string name() const = 0;
  // A fallback scheduler (expr_eval) accepts anything. The segmenter never
  // offers it the whole fusion or a merge with a group another scheduler took:
  // it only gets expressions no other scheduler accepts (and merges of such
  // groups), so one unsupported op does not pull the whole fusion off the GPU.
  virtual bool isFallback() const { return false; }

  // Whether this scheduler takes `segment` for the inputs `info` describes,
  // and if so the proposal. `cache` keeps what the scheduler derives from the
  // segment's IR alone, across calls and signatures (one cache per scheduler
  // and segment structure).
  virtual Answer propose(const Fusion& segment, RuntimeInfo& info, CompileTimeCache& cache) = 0;

 protected:
  std::string describeSelf() const override;
};

}  // namespace fusebox

#define FUSEBOX_DECLARE_SCHEDULER_PLUGIN(CLASS, NAME, VERSION, DESCRIPTION)                    \
  FUSEBOX_DECLARE_PLUGIN_(::fusebox::PluginKind::Scheduler, ::fusebox::Scheduler, CLASS, NAME, \
                          VERSION, DESCRIPTION)
