// Test scheduler: a kernel written as C++ text, as a third party may still
// write one (no kernel IR): the negation of one contiguous float tensor.
// Anything else is refused.
#include <fusebox/kernel_plan.h>
#include <fusebox/scheduler.h>

#include <fmt/format.h>

#include <memory>

#include "fixture_schedulers.h"
#include "kernel_ir/kernel_source.h"

namespace fusebox_test_schedulers {
namespace {

class TextKernel final : public Scheduler {
 public:
  std::string name() const override { return "text_kernel"; }

  Answer propose(const Fusion& segment, RuntimeInfo& info, CompileTimeCache&) override {
    const auto exprs = segment.tensorExprs();
    if (exprs.size() != 1 || exprs[0]->op() != OpType::Unary ||
        exprs[0]->attr<UnaryOpType>() != UnaryOpType::Neg || segment.inputs().size() != 1 ||
        segment.outputs().size() != 1 || segment.outputs()[0]->dtype() != DataType::Float)
      return Refusal::ofStructure("only the negation of one float tensor");
    const auto* in = std::get_if<TensorArgInfo>(&info.inputs().at(0));
    if (in == nullptr || in->dtype != DataType::Float ||
        in->strides != contiguousStrides(in->sizes))
      return Refusal::ofInputs("the input is not a contiguous float tensor");
    const std::vector<int64_t> sizes = in->sizes;
    return std::make_unique<LazyProposal>(
        [this] { return std::make_unique<NoParams>(name()); },
        [sizes](const HeuristicParams&) {
          int64_t n = 1;
          for (int64_t s : sizes) n *= s;
          auto plan = std::make_unique<KernelPlan>();
          plan->kernel = kir::kernelSource(
              "text_kernel", "text_kernel: no choices\n",
              fmt::format("  const float* in0 = static_cast<const float*>(p.ptr[0]);\n"
                          "  float* out0 = static_cast<float*>(p.ptr[1]);\n"
                          "  for (int64_t i = threadIdx.x; i < {}; i += blockDim.x) "
                          "out0[i] = -in0[i];\n",
                          n),
              false);
          plan->launch.grid = {1, 1, 1};
          plan->launch.block = {128, 1, 1};
          plan->bindings = {{ParamBinding::Source::InputData, 0, 0},
                            {ParamBinding::Source::OutputData, 0, 1}};
          plan->outputs = {{DataType::Float, sizes, contiguousStrides(sizes)}};
          plan->bytes_moved = 8 * n;
          return plan;
        });
  }
};

}  // namespace
}  // namespace fusebox_test_schedulers

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(fusebox_test_schedulers::TextKernel, "text_kernel", "1.0",
                                 "test: a text kernel (no kernel IR) negating one float tensor")
