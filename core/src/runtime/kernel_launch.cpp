// Allocating a KernelPlan's outputs and filling its parameter block from its
// bindings.
#include <fusebox/error.h>
#include <fusebox/kernel_launch.h>

#include <fmt/format.h>

namespace fusebox {

namespace {

std::string describeBinding(const ParamBinding& b) {
  static constexpr const char* kSources[] = {"InputData",   "OutputData", "ScratchData",
                                             "InputScalar", "Value",      "IndexErrors"};
  return fmt::format("binding {{{}, index {}, slot {}}}", kSources[static_cast<int>(b.source)],
                     b.index, b.slot);
}

}  // namespace

std::vector<Tensor> allocateKernelOutputs(Backend& backend, const KernelPlan& plan,
                                          const std::vector<Tensor>& given) {
  std::vector<Tensor> outputs;
  outputs.reserve(plan.outputs.size());
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    const auto& spec = plan.outputs[k];
    if (k < given.size() && given[k].defined()) {
      outputs.push_back(given[k]);
      continue;
    }
    outputs.push_back(backend.allocate(spec.dtype, spec.sizes, spec.strides));
    if (spec.zero_init) backend.memsetZero(outputs.back());
  }
  return outputs;
}

bool SharedScratch::makeIndexErrors(Backend& backend, const KernelPlan& plan) {
  if (index_errors != nullptr) return false;
  for (const ParamBinding& b : plan.bindings)
    if (b.source == ParamBinding::Source::IndexErrors) {
      index_errors =
          std::make_shared<IndexErrorRecord>(backend, plan.index_checks, plan.kernel.name);
      return true;
    }
  return false;
}

std::vector<Tensor> allocateKernelScratch(Backend& backend, const KernelPlan& plan,
                                          SharedScratch& shared) {
  std::vector<Tensor> scratch;
  size_t next_kept = 0;
  for (const ParamBinding& b : plan.bindings) {
    if (b.source == ParamBinding::Source::IndexErrors) {
      shared.makeIndexErrors(backend, plan);
      scratch.push_back(shared.index_errors->words());
      continue;
    }
    if (b.source != ParamBinding::Source::ScratchData) continue;
    FUSEBOX_CHECK(b.bytes >= 0, "kernel {}: {} asks for {} bytes", plan.kernel.name,
                  describeBinding(b), b.bytes);
    if (b.kept && next_kept < shared.kept.size()) {
      FUSEBOX_CHECK(shared.kept[next_kept].numel() == (b.bytes + 7) / 8,
                    "kernel {}: {} is kept at another size", plan.kernel.name, describeBinding(b));
      scratch.push_back(shared.kept[next_kept++]);
      continue;
    }
    scratch.push_back(backend.allocate(DataType::Int64, {(b.bytes + 7) / 8}, {1}));
    backend.memsetZero(scratch.back());
    if (b.kept) {
      shared.kept.push_back(scratch.back());
      ++next_kept;
    }
  }
  return scratch;
}

KernelParams bindKernelParams(const KernelPlan& plan, const std::vector<Argument>& inputs,
                              const std::vector<Tensor>& outputs,
                              const std::vector<Tensor>& scratch) {
  KernelParams params{};
  size_t next_scratch = 0;
  for (const ParamBinding& b : plan.bindings) {
    const bool is_pointer =
        b.source != ParamBinding::Source::InputScalar && b.source != ParamBinding::Source::Value;
    const int slots = is_pointer ? KernelParams::kMaxPointers
                      : b.as_double && b.source == ParamBinding::Source::InputScalar
                          ? KernelParams::kMaxDoubles
                          : KernelParams::kMaxInts;
    FUSEBOX_CHECK(b.slot >= 0 && b.slot < slots, "kernel {}: {} is out of range", plan.kernel.name,
                  describeBinding(b));
    switch (b.source) {
      case ParamBinding::Source::InputData: {
        FUSEBOX_CHECK(b.index >= 0 && static_cast<size_t>(b.index) < inputs.size() &&
                          std::holds_alternative<Tensor>(inputs[b.index]),
                      "kernel {}: {} names no tensor input", plan.kernel.name, describeBinding(b));
        params.ptr[b.slot] = std::get<Tensor>(inputs[b.index]).data();
        break;
      }
      case ParamBinding::Source::OutputData:
        FUSEBOX_CHECK(b.index >= 0 && static_cast<size_t>(b.index) < outputs.size(),
                      "kernel {}: {} names no output", plan.kernel.name, describeBinding(b));
        params.ptr[b.slot] = outputs[b.index].data();
        break;
      case ParamBinding::Source::ScratchData:
      case ParamBinding::Source::IndexErrors:
        FUSEBOX_CHECK(next_scratch < scratch.size(), "kernel {}: {} has no scratch buffer",
                      plan.kernel.name, describeBinding(b));
        params.ptr[b.slot] = scratch[next_scratch++].data();
        break;
      case ParamBinding::Source::Value:
        params.i64[b.slot] = b.value;
        break;
      case ParamBinding::Source::InputScalar: {
        FUSEBOX_CHECK(b.index >= 0 && static_cast<size_t>(b.index) < inputs.size() &&
                          std::holds_alternative<ScalarValue>(inputs[b.index]),
                      "kernel {}: {} names no scalar input", plan.kernel.name, describeBinding(b));
        const ScalarValue& v = std::get<ScalarValue>(inputs[b.index]);
        if (b.as_double)
          params.f64[b.slot] = toDouble(v);
        else
          params.i64[b.slot] = toInt(v);
        break;
      }
    }
  }
  return params;
}

void checkIndexErrors(IndexErrorRecord* index_errors) {
  if (index_errors == nullptr) return;
  if (std::string message = index_errors->take(); !message.empty())
    throw UserError(message + ", so its outputs are discarded");
}

std::vector<Tensor> launchKernelPlan(Backend& backend, const KernelPlan& plan,
                                     CompiledKernel& kernel, const std::vector<Argument>& inputs) {
  std::vector<Tensor> outputs = allocateKernelOutputs(backend, plan);
  SharedScratch shared;
  std::vector<Tensor> scratch = allocateKernelScratch(backend, plan, shared);
  const KernelParams params = bindKernelParams(plan, inputs, outputs, scratch);
  kernel.launch(plan.launch, params);
  checkIndexErrors(shared.index_errors.get());
  return outputs;
}

}  // namespace fusebox
