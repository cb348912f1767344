// Scheduling a segment (its scheduler, then fallbacks), scheduling ahead on a
// miss so that independent kernels compile in parallel, and compiling kernels.
#include <fusebox/backend/cuda_backend.h>
#include <fusebox/backend/kernel_cache.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "runtime/runtime_internal.h"

namespace fusebox::runtime_detail {

namespace {

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

std::string groupLabel(const SegmentGroup& group) {
  std::vector<std::string> produced;
  for (const Expr* e : group.exprs)
    for (const Val* v : e->outputs())
      if (v->isTensor()) produced.push_back(v->toString());
  return fmt::format("{}", fmt::join(produced, ", "));
}

constexpr const char* kEvalRefusal =
    "the eval backend runs no kernels (--backend eval): only host plans";

// The params and plan of `proposal`, into `out`; a failure is returned as a
// message.
std::optional<std::string> planWith(const SchedulerEntry& entry, Proposal& proposal,
                                    ExecutionContext& ctx, ScheduledSegment& out) {
  try {
    auto params = callPlugin(entry.plugin, "Proposal::params()", [&] { return proposal.params(); });
    if (!params) return std::string("the proposal has no params");
    out.params_hash =
        callPlugin(entry.plugin, "HeuristicParams::hash()", [&] { return params->hash(); });
    ++ctx.counters.plans_made;
    auto plan =
        callPlugin(entry.plugin, "Proposal::makePlan()", [&] { return proposal.makePlan(); });
    if (!plan) return std::string("the proposal made no plan");
    out.backend_plan = dynamic_cast<const BackendPlan*>(plan.get());
    out.host_plan = out.backend_plan ? nullptr : dynamic_cast<const HostPlan*>(plan.get());
    out.kernel_plan = dynamic_cast<const KernelPlan*>(plan.get());
    if (out.kernel_plan != nullptr && !ctx.kernels_allowed) return std::string(kEvalRefusal);
    if (out.host_plan == nullptr && out.backend_plan == nullptr && out.kernel_plan == nullptr)
      return fmt::format(
          "the proposal made a plan this runtime cannot run ({}); it runs HostPlan, "
          "BackendPlan and KernelPlan",
          plan->describe());
    out.scheduler = entry.scheduler;
    out.plugin = entry.plugin;
    out.params = std::move(params);
    out.plan = std::move(plan);
    return std::nullopt;
  } catch (const PluginError& e) {
    return std::string(e.what());
  }
}

// Whether the segmenter's proposal for `group` was made for these inputs.
bool keptProposalFits(const SegmentGroup& group, const std::vector<ArgumentInfo>& inputs,
                      ShapeMode mode) {
  if (group.proposal == nullptr || group.proposed_mode != mode) return false;
  return fitsPlan(group.proposed_for, inputs) && fitsPlan(inputs, group.proposed_for);
}

void dumpParams(const SegmentGroup& group, const ScheduledSegment& s, std::ostream& out) {
  out << fmt::format("=== scheduler params: group {} ({}) ===\n", group.id, s.plugin.name);
  std::string params =
      callPlugin(s.plugin, "HeuristicParams::toString()", [&] { return s.params->toString(); });
  std::string line;
  for (char c : params + "\n") {
    if (c != '\n') {
      line += c;
      continue;
    }
    if (!line.empty()) out << "  " << line << "\n";
    line.clear();
  }
  out << "  plan: " << callPlugin(s.plugin, "SegmentPlan::describe()", [&] {
    return s.plan->describe();
  }) << "\n";
}

void dumpKernelIr(const SegmentGroup& group, const KernelPlan& plan, const std::string& scheduler,
                  std::ostream& out) {
  if (plan.kernel_ir.empty()) {
    out << fmt::format(
        "=== kernel IR: group {} ({}): none; the {} scheduler writes this kernel without the "
        "kernel IR ===\n",
        group.id, plan.kernel.name, scheduler);
    return;
  }
  out << fmt::format("=== kernel IR: group {} ({}) ===\n", group.id, plan.kernel.name);
  out << plan.kernel_ir;
  if (plan.kernel_ir.back() != '\n') out << "\n";
}

void dumpKernelSource(const SegmentGroup& group, const KernelPlan& plan, std::ostream& out) {
  out << fmt::format("=== kernel source: group {} ({}) ===\n", group.id, plan.kernel.name);
  out << plan.kernel.source;
  if (!plan.kernel.source.empty() && plan.kernel.source.back() != '\n') out << "\n";
}

}  // namespace

ScheduledSegment scheduleGroup(CacheEntry& entry, size_t g, std::vector<ArgumentInfo> inputs,
                               ExecutionContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  const SegmentGroup& group = entry.segmented->groups()[g];
  const Fusion& segment = *group.fusion;
  const std::vector<ArgumentInfo> made_for = inputs;
  RuntimeInfo info(segment, std::move(inputs), ctx.device, entry.shape_mode);
  info.requestInPlace(entry.steps[g].in_place);

  const auto& all = ctx.segmenter.schedulers();
  auto first = std::find_if(all.begin(), all.end(), [&](const SchedulerEntry& e) {
    return e.plugin.name == group.scheduler;
  });
  FUSEBOX_CHECK(first != all.end(),
                "group {} was given to scheduler '{}', which the runtime does not have", group.id,
                group.scheduler);
  std::vector<std::string> failures;
  // A warning when a scheduler that took the segment failed to plan it. Not
  // for refusals of kernels under --backend eval (what the user asked for),
  // nor for the plain refusals of the schedulers tried after it (the
  // reduction scheduler refusing a segment without reductions is no news).
  bool warn = false;
  // Logged in the entry (for later dumps) and, with segmenter_log on, printed
  // now: the segmenter's part of the log was printed before the first run.
  auto note = [&](const SchedulerEntry& e, const std::string& reason, bool failed) {
    entry.log.push_back({"scheduling", {group.id}, {groupLabel(group)}, e.plugin.name, reason});
    failures.push_back(fmt::format("'{}': {}", e.plugin.name, reason));
    if (failed && reason != kEvalRefusal) warn = true;
    if (ctx.options.dumpSegmenterLog())
      ctx.streams.dump << fmt::format("segmenter log: scheduling group {} ({}): {}: {}\n", group.id,
                                      groupLabel(group), e.plugin.name, reason);
  };
  // The segmenter's proposal serves once, when made for these inputs; for
  // other inputs it is dropped (with what it keeps: a kernel, run-time facts).
  // (The segmenter proposed without in-place requests.)
  const bool fits =
      keptProposalFits(group, made_for, entry.shape_mode) && entry.steps[g].in_place.empty();
  std::unique_ptr<Proposal> kept = entry.segmented->takeProposal(g);
  if (!fits) kept.reset();
  const bool reused = kept != nullptr;
  ctx.counters.proposals_reused += reused;
  ScheduledSegment scheduled;
  auto take = [&](const SchedulerEntry& e, Proposal& proposal) {
    if (&e != &*first || !reused) ++ctx.counters.proposals_made;
    scheduled = ScheduledSegment();
    return planWith(e, proposal, ctx, scheduled);
  };
  // The scheduler that took the segment refusing it now fails as a plan does.
  auto refused = [&](const SchedulerEntry& e, const std::string& reason, bool failed) {
    note(e, failed ? reason : "rejected at " + reason, failed || &e == &*first);
  };
  SchedulerChoice choice = ctx.segmenter.choose(segment, info, SchedulerTier::Any, refused, &*first,
                                                std::move(kept), take);
  if (choice) {
    if (choice.entry != &*first) {
      ++ctx.counters.fallbacks;
      if (warn)
        ctx.streams.diagnostics << fmt::format(
            "warning: group {} falls back to scheduler '{}': {}\n", group.id,
            choice.entry->plugin.name, fmt::join(failures, "; "));
    }
    // The proposal made the plan; what it keeps is no longer needed.
    choice.proposal.reset();
    if (ctx.options.dumpSchedulerParams()) dumpParams(group, scheduled, ctx.streams.dump);
    if (scheduled.kernel_plan != nullptr && ctx.options.dumpKernelIr())
      dumpKernelIr(group, *scheduled.kernel_plan, choice.entry->plugin.name, ctx.streams.dump);
    if (scheduled.kernel_plan != nullptr && ctx.options.dumpKernelSource())
      dumpKernelSource(group, *scheduled.kernel_plan, ctx.streams.dump);
    if (scheduled.kernel_plan != nullptr && ctx.options.dumpPtxasInfo())
      ctx.streams.dump << fmt::format("=== ptxas info: group {} ({}, sm_{}{}) ===\n{}", group.id,
                                      scheduled.kernel_plan->kernel.name, ctx.device.compute_major,
                                      ctx.device.compute_minor,
                                      ptxasReport(scheduled.kernel_plan->kernel, ctx.device));
    ctx.report.compile.heuristics_ms += msSince(start);
    scheduled.made_for = made_for;
    return scheduled;
  }
  throw UserError(fmt::format("group {} ({}) could not be scheduled: {}", group.id,
                              groupLabel(group), fmt::join(failures, "; ")));
}

namespace {

void addTimings(CompileReport& report, const CompileTimings& t) {
  report.compile_ms += t.compile_ms;
  report.load_ms += t.load_ms;
  ++report.kernels;
  if (t.memory_cache_hit || t.disk_cache_hit) ++report.kernels_from_cache;
}

}  // namespace

namespace {

// The rule, once: same dtype, sizes and strides, at least the alignment.
bool tensorFits(const TensorArgInfo& want, DataType dtype, const std::vector<int64_t>& sizes,
                const std::vector<int64_t>& strides, int64_t alignment) {
  return want.dtype == dtype && want.sizes == sizes && want.strides == strides &&
         alignment >= want.alignment;
}
bool tensorFits(const TensorArgInfo& want, const TensorArgInfo& have) {
  return tensorFits(want, have.dtype, have.sizes, have.strides, have.alignment);
}
bool tensorFits(const TensorArgInfo& want, const Tensor& have) {
  return tensorFits(want, have.dtype(), have.sizes(), have.strides(),
                    have.defined() ? recordedAlignment(have.data()) : kMaxRecordedAlignment);
}

// Every tensor of `actual` (TensorArgInfo or Tensor, what argumentInfo makes
// of it) fits its plan; scalars are not compared.
template <typename TensorKind, typename Actual>
bool allFit(const std::vector<ArgumentInfo>& made_for, const std::vector<Actual>& actual) {
  if (made_for.size() != actual.size()) return false;
  for (size_t i = 0; i < actual.size(); ++i) {
    const auto* want = std::get_if<TensorArgInfo>(&made_for[i]);
    const auto* have = std::get_if<TensorKind>(&actual[i]);
    if ((want == nullptr) != (have == nullptr)) return false;
    if (want != nullptr && !tensorFits(*want, *have)) return false;
  }
  return true;
}

}  // namespace

bool fitsPlan(const std::vector<ArgumentInfo>& made_for, const std::vector<ArgumentInfo>& actual) {
  return allFit<TensorArgInfo>(made_for, actual);
}

bool argumentsFitPlan(const std::vector<ArgumentInfo>& made_for,
                      const std::vector<Argument>& actual) {
  return allFit<Tensor>(made_for, actual);
}

namespace {

bool sameSource(const KernelSource& a, const KernelSource& b) {
  return a.name == b.name && a.source == b.source && a.options == b.options &&
         a.uses_block_sync == b.uses_block_sync;
}

// The concretization's kernel for `scheduled`, when one was built with the
// same heuristics and source.
bool reuseKernel(CacheEntry& entry, ScheduledSegment& scheduled, ExecutionContext& ctx) {
  bool same_params = false;
  for (KernelVariant& v : entry.concretized->kernels) {
    if (v.scheduler_name != scheduled.plugin.name || v.params_hash != scheduled.params_hash)
      continue;
    const bool same = callPlugin(scheduled.plugin, "HeuristicParams::sameAs()",
                                 [&] { return scheduled.params->sameAs(*v.params); });
    if (!same) continue;
    same_params = true;
    if (!sameSource(v.source, scheduled.kernel_plan->kernel)) continue;
    scheduled.kernel = v.kernel;
    scheduled.kernel_origin = ScheduledSegment::KernelOrigin::Reused;
    ++v.uses;
    ++ctx.counters.kernels_reused;
    ++ctx.report.kernels_reused;
    return true;
  }
  if (same_params) ++ctx.counters.same_params_other_source;
  return false;
}

void keepKernel(CacheEntry& entry, ScheduledSegment& scheduled, ExecutionContext& ctx) {
  scheduled.kernel_origin = ScheduledSegment::KernelOrigin::Compiled;
  ++ctx.counters.kernels_compiled;
  ++ctx.report.kernels_new;
  entry.concretized->kernels.push_back({scheduled.scheduler, scheduled.plugin.name,
                                        scheduled.params, scheduled.params_hash,
                                        scheduled.kernel_plan->kernel, scheduled.kernel, 1});
}

}  // namespace

void compileKernel(CacheEntry& entry, ScheduledSegment& scheduled, ExecutionContext& ctx) {
  if (reuseKernel(entry, scheduled, ctx)) return;
  const auto start = std::chrono::steady_clock::now();
  CompileTimings timings;
  scheduled.kernel = ctx.backend.compile(scheduled.kernel_plan->kernel, &timings);
  addTimings(ctx.report.compile, timings);
  ctx.report.compile.compile_wall_ms += msSince(start);
  keepKernel(entry, scheduled, ctx);
}

void scheduleAhead(CacheEntry& entry, const std::vector<Argument>& inputs, ExecutionContext& ctx) {
  std::optional<ExpressionEvaluator> ee = bindFusionInputs(entry, inputs, ctx.input_names);
  std::vector<std::optional<ArgumentInfo>> known(entry.slot_count);
  for (size_t i = 0; i < inputs.size(); ++i) known[i] = argumentInfo(inputs[i]);

  std::vector<size_t> to_compile;
  for (size_t g = 0; g < entry.steps.size(); ++g) {
    if (entry.scheduled[g].ready() || entry.scheduled[g].kernel_plan != nullptr) continue;
    std::vector<ArgumentInfo> infos;
    bool all_known = true;
    for (const ValueSource& s : entry.steps[g].inputs) {
      if (s.slot >= 0 && known[s.slot]) {
        infos.push_back(*known[s.slot]);
      } else if (s.slot < 0) {
        Argument value = ee->evaluateOrThrow(s.scalar);
        infos.push_back(argumentInfo(value));
      } else {
        all_known = false;
        break;
      }
    }
    if (!all_known) continue;
    entry.scheduled[g] = scheduleGroup(entry, g, std::move(infos), ctx);
    const KernelPlan* plan = entry.scheduled[g].kernel_plan;
    if (plan == nullptr) continue;
    if (!reuseKernel(entry, entry.scheduled[g], ctx)) to_compile.push_back(g);
    // The runtime allocates a kernel's outputs as the plan says (backends
    // align allocations to at least kMaxRecordedAlignment bytes) and hands
    // them on as boundaryView does: the next group sees exactly that.
    const SegmentGroup& group = entry.segmented->groups()[g];
    for (size_t k = 0; k < plan->outputs.size() && k < entry.steps[g].output_slots.size(); ++k) {
      const auto& spec = plan->outputs[k];
      TensorArgInfo info{spec.dtype, spec.sizes, spec.strides, kMaxRecordedAlignment};
      if (const Val* produced = group.outputs[k]; produced->isTensor())
        info = boundaryInfo(produced->as<TensorView>(), std::move(info));
      known[entry.steps[g].output_slots[k]] = std::move(info);
    }
  }
  if (to_compile.empty() || ctx.plan_only) return;
  std::vector<KernelSource> sources;
  for (size_t g : to_compile) sources.push_back(entry.scheduled[g].kernel_plan->kernel);
  const auto start = std::chrono::steady_clock::now();
  std::vector<CompileTimings> timings;
  std::vector<std::shared_ptr<CompiledKernel>> kernels = compileAll(ctx.backend, sources, &timings);
  ctx.report.compile.compile_wall_ms += msSince(start);
  for (size_t i = 0; i < to_compile.size(); ++i) {
    entry.scheduled[to_compile[i]].kernel = std::move(kernels[i]);
    if (i < timings.size()) addTimings(ctx.report.compile, timings[i]);
    keepKernel(entry, entry.scheduled[to_compile[i]], ctx);
  }
}

}  // namespace fusebox::runtime_detail
