// Running a segmented fusion: each group's plan in dependency order, values
// passed from producers to consumers through a table of slots, each slot
// dropped after its last reader ran; outputs put into their required layout.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "runtime/runtime_internal.h"

namespace fusebox::runtime_detail {

void planExecution(CacheEntry& entry) {
  const Fusion& fusion = *entry.fusion;
  const auto& groups = entry.segmented->groups();
  std::unordered_map<const Val*, int64_t> slot_of;
  int64_t slots = 0;
  for (const Val* in : fusion.inputs()) slot_of.emplace(in, slots++);
  entry.slot_is_intermediate.assign(slots, false);

  auto source = [&](const Val* v, const std::string& reader) {
    ValueSource s;
    if (auto it = slot_of.find(v); it != slot_of.end()) {
      s.slot = it->second;
    } else {
      FUSEBOX_CHECK(v->isScalar(), "{} reads {}, which no earlier group produces", reader,
                    v->toString());
      s.scalar = v;
      entry.needs_evaluator = true;
    }
    return s;
  };

  std::vector<int64_t> last_reader;  // per slot: the last group reading it, or -1
  entry.steps.clear();
  for (size_t g = 0; g < groups.size(); ++g) {
    GroupSteps steps;
    for (const Val* v : groups[g].inputs) {
      steps.inputs.push_back(source(v, fmt::format("group {}", groups[g].id)));
      if (steps.inputs.back().slot >= 0) {
        last_reader.resize(slots, -1);
        last_reader[steps.inputs.back().slot] = static_cast<int64_t>(g);
      }
    }
    for (const Val* v : groups[g].outputs) {
      slot_of[v] = slots;
      steps.output_slots.push_back(slots++);
      entry.slot_is_intermediate.push_back(true);
    }
    entry.steps.push_back(std::move(steps));
  }
  last_reader.resize(slots, -1);

  entry.outputs.clear();
  std::vector<bool> is_output(slots, false);
  for (const Val* out : fusion.outputs()) {
    entry.outputs.push_back(source(out, "fusion output " + out->toString()));
    if (entry.outputs.back().slot >= 0) is_output[entry.outputs.back().slot] = true;
  }
  // A slot nobody reads later is dropped right after the group that made it.
  for (size_t g = 0; g < entry.steps.size(); ++g)
    for (int64_t slot : entry.steps[g].output_slots)
      if (last_reader[slot] < 0) last_reader[slot] = static_cast<int64_t>(g);
  for (int64_t slot = 0; slot < slots; ++slot)
    if (last_reader[slot] >= 0 && !is_output[slot])
      entry.steps[last_reader[slot]].release.push_back(slot);
  entry.slot_count = slots;
  entry.scheduled.resize(groups.size());
}

bool hasStrideOrder(const Tensor& t, const std::vector<int64_t>& stride_order) {
  if (t.numel() == 0) return true;
  const auto dense = stridesForOrder(t.sizes(), stride_order);
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] != 1 && t.strides()[d] != dense[d]) return false;
  return true;
}

namespace {

std::string groupLabel(const SegmentGroup& group) {
  std::vector<std::string> produced;
  for (const Expr* e : group.exprs)
    for (const Val* v : e->outputs())
      if (v->isTensor()) produced.push_back(v->toString());
  return fmt::format("{}", fmt::join(produced, ", "));
}

// Heuristics and a plan from one scheduler; a failure is returned as a message.
std::optional<std::string> tryScheduler(const SchedulerEntry& entry, const Fusion& segment,
                                        RuntimeInfo& info, CompileTimeCache& cache,
                                        RuntimeCounters& counters, ScheduledSegment& out) {
  try {
    ++counters.heuristics_computed;
    auto params = callPlugin(entry.plugin, "computeHeuristics()", [&] {
      return entry.scheduler->computeHeuristics(segment, info, cache);
    });
    if (!params) return std::string("computeHeuristics() returned no params");
    ++counters.schedules;
    auto plan = callPlugin(entry.plugin, "schedule()",
                           [&] { return entry.scheduler->schedule(segment, *params, info); });
    if (!plan) return std::string("schedule() returned no plan");
    const auto* host = dynamic_cast<const HostPlan*>(plan.get());
    if (host == nullptr)
      return fmt::format(
          "schedule() returned a plan this runtime cannot run ({}); only host "
          "plans run today",
          plan->describe());
    out.scheduler = entry.scheduler;
    out.plugin = entry.plugin;
    out.params = std::move(params);
    out.plan = std::move(plan);
    out.host_plan = host;
    return std::nullopt;
  } catch (const PluginError& e) {
    return std::string(e.what());
  }
}

// The scheduler's own check of a segment it did not pick first; refusals are
// returned as messages.
std::optional<std::string> checkAccepts(const SchedulerEntry& entry, const Fusion& segment,
                                        RuntimeInfo& info, CompileTimeCache& cache) {
  try {
    Decision d = callPlugin(entry.plugin, "canScheduleCompileTime()", [&] {
      return entry.scheduler->canScheduleCompileTime(segment, cache);
    });
    if (!d) return "rejected at compile time: " + d.reason();
    d = callPlugin(entry.plugin, "canScheduleRunTime()",
                   [&] { return entry.scheduler->canScheduleRunTime(segment, info, cache); });
    if (!d) return "rejected at run time: " + d.reason();
    return std::nullopt;
  } catch (const PluginError& e) {
    return std::string(e.what());
  }
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

}  // namespace

ScheduledSegment scheduleGroup(CacheEntry& entry, size_t g, const std::vector<Argument>& inputs,
                               Segmenter& segmenter, const DeviceProperties& device,
                               const Options& options, RuntimeStreams streams,
                               RuntimeCounters& counters) {
  const SegmentGroup& group = entry.segmented->groups()[g];
  const Fusion& segment = *group.fusion;
  std::vector<ArgumentInfo> infos;
  for (const auto& a : inputs) infos.push_back(argumentInfo(a));
  RuntimeInfo info(segment, std::move(infos), device);

  const auto& all = segmenter.schedulers();
  auto first = std::find_if(all.begin(), all.end(), [&](const SchedulerEntry& e) {
    return e.plugin.name == group.scheduler;
  });
  FUSEBOX_CHECK(first != all.end(),
                "group {} was given to scheduler '{}', which the runtime does not have", group.id,
                group.scheduler);
  std::vector<std::string> failures;
  // Logged in the entry (for later dumps) and, with segmenter_log on, printed
  // now: the segmenter's part of the log was printed before the first run.
  auto note = [&](const SchedulerEntry& e, const std::string& reason) {
    entry.log.push_back({"scheduling", {group.id}, {groupLabel(group)}, e.plugin.name, reason});
    failures.push_back(fmt::format("'{}': {}", e.plugin.name, reason));
    if (options.dumpSegmenterLog())
      streams.dump << fmt::format("segmenter log: scheduling group {} ({}): {}: {}\n", group.id,
                                  groupLabel(group), e.plugin.name, reason);
  };
  for (auto it = first; it != all.end(); ++it) {
    CompileTimeCache& cache = segmenter.compileTimeCache(it->plugin.name, segment);
    if (it != first) {
      if (auto refusal = checkAccepts(*it, segment, info, cache)) {
        note(*it, *refusal);
        continue;
      }
    }
    ScheduledSegment scheduled;
    auto failure = tryScheduler(*it, segment, info, cache, counters, scheduled);
    if (!failure) {
      if (it != first) {
        ++counters.fallbacks;
        streams.diagnostics << fmt::format("warning: group {} falls back to scheduler '{}': {}\n",
                                           group.id, it->plugin.name, fmt::join(failures, "; "));
      }
      if (options.dumpSchedulerParams()) dumpParams(group, scheduled, streams.dump);
      return scheduled;
    }
    note(*it, *failure);
  }
  throw UserError(fmt::format("group {} ({}) could not be scheduled: {}", group.id,
                              groupLabel(group), fmt::join(failures, "; ")));
}

std::vector<Argument> executeEntry(CacheEntry& entry, const std::vector<Argument>& inputs,
                                   const std::vector<std::string>& input_names,
                                   Segmenter& segmenter, const DeviceProperties& device,
                                   const Options& options, RuntimeStreams streams,
                                   RuntimeCounters& counters, RunReport& report) {
  const Fusion& fusion = *entry.fusion;
  const auto& groups = entry.segmented->groups();
  std::vector<std::optional<Argument>> slots(entry.slot_count);
  for (size_t i = 0; i < inputs.size(); ++i) slots[i] = inputs[i];

  std::optional<ExpressionEvaluator> ee;
  if (entry.needs_evaluator) {
    ee.emplace();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Val* in = fusion.inputs()[i];
      std::string name = i < input_names.size() ? input_names[i] : in->toString();
      if (const auto* t = std::get_if<Tensor>(&inputs[i]))
        ee->bindTensor(in->as<TensorView>(), *t, name);
      else
        ee->bind(in, std::get<ScalarValue>(inputs[i]), name);
    }
  }
  auto fetch = [&](const ValueSource& s) -> Argument {
    if (s.slot >= 0) {
      FUSEBOX_CHECK(slots[s.slot].has_value(), "slot {} was read after it was dropped", s.slot);
      return *slots[s.slot];
    }
    return ee->evaluateOrThrow(s.scalar);
  };

  for (size_t g = 0; g < groups.size(); ++g) {
    const GroupSteps& steps = entry.steps[g];
    std::vector<Argument> args;
    args.reserve(steps.inputs.size());
    for (const auto& s : steps.inputs) args.push_back(fetch(s));

    ScheduledSegment& scheduled = entry.scheduled[g];
    if (scheduled.host_plan == nullptr)
      scheduled = scheduleGroup(entry, g, args, segmenter, device, options, streams, counters);
    const auto start = std::chrono::steady_clock::now();
    std::vector<Argument> results = callPlugin(
        scheduled.plugin, "running its plan", [&] { return scheduled.host_plan->run(args); },
        /*pass_user_errors=*/true);
    args.clear();
    ++counters.segments_run;
    report.segments.push_back(
        {groups[g].id, scheduled.plugin.name,
         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
             .count()});
    if (results.size() != steps.output_slots.size())
      throw PluginError(scheduled.plugin.name, scheduled.plugin.file,
                        fmt::format("the plan of scheduler '{}' for group {} returned {} values "
                                    "for {} segment outputs",
                                    scheduled.plugin.name, groups[g].id, results.size(),
                                    steps.output_slots.size()));
    for (size_t k = 0; k < results.size(); ++k)
      slots[steps.output_slots[k]] = std::move(results[k]);
    for (int64_t slot : steps.release) {
      slots[slot].reset();
      if (entry.slot_is_intermediate[slot]) ++counters.intermediates_freed;
    }
  }

  std::vector<Argument> outputs;
  const auto& fusion_inputs = fusion.inputs();
  for (size_t k = 0; k < entry.outputs.size(); ++k) {
    Argument value = fetch(entry.outputs[k]);
    const Val* out = fusion.outputs()[k];
    auto* tensor = std::get_if<Tensor>(&value);
    if (tensor == nullptr) {
      outputs.push_back(std::move(value));
      continue;
    }
    if (const Val* aliased = fusion.aliasedInput(out)) {
      // Written into the input it aliases, which is what the caller gets back.
      size_t i =
          std::find(fusion_inputs.begin(), fusion_inputs.end(), aliased) - fusion_inputs.begin();
      FUSEBOX_CHECK(i < inputs.size(), "output {} aliases {}, not a fusion input", out->toString(),
                    aliased->toString());
      Tensor target = std::get<Tensor>(inputs[i]);
      FUSEBOX_USER_CHECK(tensor->sizes() == target.sizes(),
                         "output {} aliases input {}, but it has shape {} and the input {}",
                         out->toString(),
                         i < input_names.size() ? input_names[i] : aliased->toString(),
                         tensor->describe(), target.describe());
      // A view of the target itself is copied out first: the copy must not
      // read what it already overwrote.
      Tensor source = tensor->storage() == target.storage() ? tensor->contiguous(true) : *tensor;
      copyInto(source, target);
      outputs.emplace_back(target);
      continue;
    }
    if (const auto* order = fusion.requiredStrideOrder(out->as<TensorView>());
        order != nullptr && !hasStrideOrder(*tensor, *order)) {
      Tensor laid_out = Tensor::emptyWithStrideOrder(tensor->dtype(), tensor->sizes(), *order);
      copyInto(*tensor, laid_out);
      ++counters.layout_copies;
      value = std::move(laid_out);
    }
    outputs.push_back(std::move(value));
  }
  return outputs;
}

}  // namespace fusebox::runtime_detail
