// Running a segmented fusion: each group's plan in dependency order (kernels
// launched on the backend, host plans run on host copies where the backend is
// cuda), values passed from producers to consumers through a table of slots,
// each slot dropped after its last reader ran; outputs put into their required
// layout and where the caller wants them.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <unordered_map>

#include <fusebox/backend/cuda_backend.h>
#include <fusebox/kernel_launch.h>

#include "runtime/runtime_internal.h"

namespace fusebox::runtime_detail {

namespace {

// Which aliased outputs may be written over their input by the group that
// produces them (GroupSteps::in_place): the input is read by that group
// only, so no other group can see it change, and it is not a fusion output
// (which must keep the value from before the call).
void planInPlaceWrites(CacheEntry& entry, const std::vector<bool>& is_output) {
  const Fusion& fusion = *entry.fusion;
  const auto& groups = entry.segmented->groups();
  for (size_t i = 0; i < fusion.inputs().size(); ++i) {
    const Val* in = fusion.inputs()[i];
    const auto slot = static_cast<int64_t>(i);
    const Val* out = nullptr;
    for (const Val* o : fusion.outputs())
      if (fusion.aliasedInput(o) == in) out = o;
    if (out == nullptr || is_output[slot]) continue;
    std::vector<size_t> readers;
    for (size_t g = 0; g < entry.steps.size(); ++g)
      for (const ValueSource& s : entry.steps[g].inputs)
        if (s.slot == slot) readers.push_back(g);
    if (readers.size() != 1) continue;
    const size_t g = readers[0];
    const auto& produced = groups[g].outputs;
    const auto k = std::find(produced.begin(), produced.end(), out) - produced.begin();
    if (static_cast<size_t>(k) == produced.size()) continue;
    const auto& reads = entry.steps[g].inputs;
    const auto j = std::find_if(reads.begin(), reads.end(),
                                [&](const ValueSource& s) { return s.slot == slot; }) -
                   reads.begin();
    entry.steps[g].in_place.push_back({static_cast<size_t>(k), static_cast<size_t>(j)});
  }
  for (GroupSteps& steps : entry.steps)
    std::sort(steps.in_place.begin(), steps.in_place.end(),
              [](const InPlaceRequest& a, const InPlaceRequest& b) { return a.output < b.output; });
}

}  // namespace

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
  planInPlaceWrites(entry, is_output);
}

bool hasStrideOrder(const Tensor& t, const std::vector<int64_t>& stride_order) {
  if (t.numel() == 0) return true;
  const auto dense = stridesForOrder(t.sizes(), stride_order);
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] != 1 && t.strides()[d] != dense[d]) return false;
  return true;
}

std::optional<ExpressionEvaluator> bindFusionInputs(const CacheEntry& entry,
                                                    const std::vector<Argument>& inputs,
                                                    const std::vector<std::string>& names) {
  std::optional<ExpressionEvaluator> ee;
  if (!entry.needs_evaluator) return ee;
  const Fusion& fusion = *entry.fusion;
  ee.emplace();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Val* in = fusion.inputs()[i];
    std::string name = i < names.size() ? names[i] : in->toString();
    if (const auto* t = std::get_if<Tensor>(&inputs[i]))
      ee->bindTensor(in->as<TensorView>(), *t, name);
    else
      ee->bind(in, std::get<ScalarValue>(inputs[i]), name);
  }
  return ee;
}

namespace {

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// Whether `value` already is `target` (an output its kernel wrote in place).
bool writtenInPlace(const Tensor& value, const Tensor& target) {
  return value.device() == target.device() && value.data() == target.data() &&
         value.strides() == target.strides();
}

// A copy of `t` in memory of its own (on the same device), for an output that
// shares memory with an input about to be overwritten.
Tensor copyOut(const Tensor& t, Backend& backend) {
  if (t.device() == Device::Host) return t.contiguous(/*force_copy=*/true);
  Tensor own = backend.allocate(t.dtype(), t.sizes(), contiguousStrides(t.sizes()));
  backend.copy(t, own);
  return own;
}

bool onDevice(const Argument& a) {
  const auto* t = std::get_if<Tensor>(&a);
  return t != nullptr && t->defined() && t->device() == Device::Cuda;
}

// A host plan on cuda: device inputs copied to the host, host outputs back.
std::vector<Argument> runHostPlan(const ScheduledSegment& s, const std::vector<Argument>& args,
                                  Backend& backend) {
  const bool cuda = backend.kind() == BackendKind::Cuda;
  std::vector<Argument> host_args;
  if (cuda) {
    host_args.reserve(args.size());
    for (const Argument& a : args)
      host_args.push_back(onDevice(a) ? Argument(backend.toHost(std::get<Tensor>(a))) : a);
  }
  std::vector<Argument> results = callPlugin(
      s.plugin, "running its plan", [&] { return s.host_plan->run(cuda ? host_args : args); },
      /*pass_user_errors=*/true);
  if (cuda)
    for (Argument& r : results)
      if (auto* t = std::get_if<Tensor>(&r);
          t != nullptr && t->defined() && t->device() == Device::Host)
        r = backend.toBackend(*t);
  return results;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Times a kernel that just ran, relaunching it with the same parameters.
void benchmarkKernel(const SegmentGroup& group, const ScheduledSegment& s,
                     const KernelParams& params, ExecutionContext& ctx) {
  const KernelPlan& plan = *s.kernel_plan;
  KernelBenchmark b{group.id, plan.kernel.name, 0, plan.bytes_moved};
  if (ctx.backend.kind() == BackendKind::Cuda) {
    b.median_ms = timeKernelMs(ctx.backend, *s.kernel, plan.launch, params, ctx.bench_iterations,
                               ctx.bench_l2);
  } else {
    s.kernel->launch(plan.launch, params);  // warm-up
    std::vector<double> times;
    for (int i = 0; i < ctx.bench_iterations; ++i) {
      const auto start = std::chrono::steady_clock::now();
      s.kernel->launch(plan.launch, params);
      times.push_back(msSince(start));
    }
    b.median_ms = median(std::move(times));
  }
  ctx.bench->push_back(b);
}

// Per output of `plan`, the caller's input tensor it writes in place, or an
// undefined tensor (allocate one). Only where the plan honoured the request
// (OutputSpec::in_place_of_input), the input is the caller's own memory on
// the backend (not a copy made for the call), no other input of the call
// shares its memory, its layout is the one the kernel writes, and no
// benchmark relaunches the kernel (each launch would update it again), and
// the kernel has no index checks (an index error found after the launch
// fails the call, which must then leave its inputs as they were).
std::vector<Tensor> inPlaceOutputs(const KernelPlan& plan, const GroupSteps& steps,
                                   const std::vector<Argument>& args,
                                   const std::vector<Argument>& caller_inputs,
                                   const ExecutionContext& ctx) {
  std::vector<Tensor> given;
  if (steps.in_place.empty() || ctx.bench != nullptr || !plan.index_checks.empty()) return given;
  for (const InPlaceRequest& r : steps.in_place) {
    if (r.output >= plan.outputs.size() || r.input >= args.size()) continue;
    const KernelPlan::OutputSpec& spec = plan.outputs[r.output];
    if (spec.in_place_of_input != static_cast<int>(r.input)) continue;
    const auto slot = static_cast<size_t>(steps.inputs[r.input].slot);
    const auto* arg = std::get_if<Tensor>(&args[r.input]);
    const auto* mine =
        slot < caller_inputs.size() ? std::get_if<Tensor>(&caller_inputs[slot]) : nullptr;
    if (arg == nullptr || mine == nullptr || arg->storage() != mine->storage() ||
        arg->data() != mine->data() || arg->sizes() != spec.sizes || arg->mayOverlap())
      continue;
    bool same_layout = arg->dtype() == spec.dtype;
    for (size_t d = 0; d < spec.sizes.size(); ++d)
      same_layout = same_layout && (spec.sizes[d] == 1 || arg->strides()[d] == spec.strides[d]);
    bool shared = false;
    for (size_t i = 0; i < caller_inputs.size(); ++i)
      if (const auto* t = std::get_if<Tensor>(&caller_inputs[i]); i != slot && t != nullptr)
        shared = shared || (t->defined() && t->storage() == mine->storage());
    if (!same_layout || shared) continue;
    given.resize(plan.outputs.size());
    given[r.output] = *arg;
  }
  return given;
}

}  // namespace

std::vector<Argument> executeEntry(CacheEntry& entry, const std::vector<Argument>& inputs,
                                   const std::vector<Argument>& caller_inputs,
                                   ExecutionContext& ctx) {
  const Fusion& fusion = *entry.fusion;
  const auto& groups = entry.segmented->groups();
  Backend& backend = ctx.backend;
  std::vector<std::optional<Argument>> slots(entry.slot_count);
  for (size_t i = 0; i < inputs.size(); ++i) slots[i] = inputs[i];

  std::optional<ExpressionEvaluator> ee = bindFusionInputs(entry, inputs, ctx.input_names);
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
    // A plan made ahead for predicted inputs (an earlier group's output) is
    // made again when the inputs turn out otherwise: a kernel compiled for
    // other strides would read the wrong elements. (Compared with the
    // arguments themselves: a cache hit makes no ArgumentInfo.)
    if ((scheduled.ready() || scheduled.kernel_plan != nullptr) &&
        !argumentsFitPlan(scheduled.made_for, args)) {
      entry.log.push_back({"scheduling",
                           {groups[g].id},
                           {},
                           scheduled.plugin.name,
                           "made again: its inputs differ from those it was planned for"});
      scheduled = ScheduledSegment();
    }
    if (!scheduled.ready()) {
      std::vector<ArgumentInfo> infos;
      infos.reserve(args.size());
      for (const auto& a : args) infos.push_back(argumentInfo(a));
      if (scheduled.kernel_plan == nullptr) scheduled = scheduleGroup(entry, g, infos, ctx);
      if (scheduled.kernel_plan != nullptr && scheduled.kernel == nullptr)
        compileKernel(entry, scheduled, ctx);
    }
    const auto start = std::chrono::steady_clock::now();
    std::vector<Argument> results;
    if (const KernelPlan* plan = scheduled.kernel_plan) {
      const std::vector<Tensor> in_place = inPlaceOutputs(*plan, steps, args, caller_inputs, ctx);
      for (const Tensor& t : in_place) ctx.counters.in_place_writes += t.defined();
      std::vector<Tensor> outs = allocateKernelOutputs(backend, *plan, in_place);
      SharedScratch& shared = scheduled.shared_scratch;
      if (shared.makeIndexErrors(backend, *plan))
        ctx.index_error_records->push_back(shared.index_errors);
      std::vector<Tensor> scratch = allocateKernelScratch(backend, *plan, shared);
      const KernelParams params = bindKernelParams(*plan, args, outs, scratch);
      scheduled.kernel->launch(plan->launch, params);
      if (!ctx.defer_index_errors) checkIndexErrors(shared.index_errors.get());
      if (ctx.bench != nullptr) benchmarkKernel(groups[g], scheduled, params, ctx);
      results.assign(outs.begin(), outs.end());
    } else if (scheduled.backend_plan != nullptr) {
      results = callPlugin(
          scheduled.plugin, "running its plan",
          [&] { return scheduled.backend_plan->runOn(backend, args); }, /*pass_user_errors=*/true);
    } else {
      results = runHostPlan(scheduled, args, backend);
    }
    args.clear();
    ++ctx.counters.segments_run;
    ctx.report.segments.push_back(
        {groups[g].id, scheduled.plugin.name, msSince(start),
         scheduled.kernel_plan != nullptr ? scheduled.kernel_plan->kernel.name : std::string(),
         scheduled.params_hash});
    if (results.size() != steps.output_slots.size())
      throw PluginError(scheduled.plugin.name, scheduled.plugin.file,
                        fmt::format("the plan of scheduler '{}' for group {} returned {} values "
                                    "for {} segment outputs",
                                    scheduled.plugin.name, groups[g].id, results.size(),
                                    steps.output_slots.size()));
    // An expanded broadcast crosses the boundary as a stride-0 view: the next
    // segment declares it that way, whatever layout this plan wrote it in.
    for (size_t k = 0; k < results.size(); ++k) {
      const Val* produced = groups[g].outputs[k];
      if (auto* t = std::get_if<Tensor>(&results[k]); t != nullptr && produced->isTensor())
        results[k] = boundaryView(produced->as<TensorView>(), *t);
      slots[steps.output_slots[k]] = std::move(results[k]);
    }
    for (int64_t slot : steps.release) {
      slots[slot].reset();
      if (entry.slot_is_intermediate[slot]) ++ctx.counters.intermediates_freed;
    }
  }

  // Aliased outputs are written into their inputs only now, after every
  // group has read them (nvFuser's in-place semantics). An output that shares
  // memory with an input about to be overwritten (a view, the input passed
  // through, or an aliased output that is a view of another aliased input)
  // is copied out first, so it keeps the value from before the call.
  const auto& fusion_inputs = fusion.inputs();
  std::vector<Argument> values;
  values.reserve(entry.outputs.size());
  for (const ValueSource& source : entry.outputs) values.push_back(fetch(source));
  // Every aliased output is checked before any is written: a failed call
  // leaves its inputs as they were.
  std::vector<const Storage*> overwritten;
  for (size_t k = 0; k < values.size(); ++k) {
    const Val* out = fusion.outputs()[k];
    const Val* aliased = fusion.aliasedInput(out);
    if (aliased == nullptr) continue;
    const size_t i =
        std::find(fusion_inputs.begin(), fusion_inputs.end(), aliased) - fusion_inputs.begin();
    FUSEBOX_CHECK(i < caller_inputs.size(), "output {} aliases {}, not a fusion input",
                  out->toString(), aliased->toString());
    const std::string name = i < ctx.input_names.size() ? ctx.input_names[i] : aliased->toString();
    const Tensor& target = std::get<Tensor>(caller_inputs[i]);
    const Tensor& value = std::get<Tensor>(values[k]);
    FUSEBOX_USER_CHECK(value.sizes() == target.sizes(),
                       "output {} aliases input {}, but it has shape {} and the input {}",
                       out->toString(), name, value.describe(), target.describe());
    // Written in place by its kernel: there is nothing left to copy.
    if (!writtenInPlace(value, target)) overwritten.push_back(target.storage().get());
  }
  if (!overwritten.empty())
    for (Argument& value : values)
      if (auto* t = std::get_if<Tensor>(&value); t != nullptr && t->defined() &&
                                                 std::find(overwritten.begin(), overwritten.end(),
                                                           t->storage().get()) != overwritten.end())
        *t = copyOut(*t, backend);

  std::vector<Argument> outputs;
  for (size_t k = 0; k < entry.outputs.size(); ++k) {
    Argument value = std::move(values[k]);
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
      Tensor target = std::get<Tensor>(caller_inputs[i]);
      if (writtenInPlace(*tensor, target)) {
        // Its kernel wrote it there.
      } else if (target.device() == Device::Cuda) {
        backend.copy(*tensor, target);
        ++ctx.counters.alias_copies;
      } else {
        ++ctx.counters.alias_copies;
        const Tensor source = tensor->device() == Device::Cuda ? backend.toHost(*tensor) : *tensor;
        copyInto(source, target);
      }
      outputs.emplace_back(target);
      continue;
    }
    if (const auto* order = fusion.requiredStrideOrder(out->as<TensorView>());
        order != nullptr && !hasStrideOrder(*tensor, *order)) {
      // Laid out on the host (the backends have no strided copy).
      Tensor host = tensor->device() == Device::Cuda ? backend.toHost(*tensor) : *tensor;
      Tensor laid_out = Tensor::emptyWithStrideOrder(host.dtype(), host.sizes(), *order);
      copyInto(host, laid_out);
      ++ctx.counters.layout_copies;
      value = tensor->device() == Device::Cuda && !ctx.outputs_on_host
                  ? Argument(backend.toBackend(laid_out))
                  : Argument(std::move(laid_out));
    } else if (ctx.outputs_on_host && onDevice(value)) {
      value = backend.toHost(*tensor);
    }
    outputs.push_back(std::move(value));
  }
  return outputs;
}

}  // namespace fusebox::runtime_detail
