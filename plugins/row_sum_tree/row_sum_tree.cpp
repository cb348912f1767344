// row_sum_tree: a third-party scheduler that writes its own kernel through
// the kernel IR, built only against the installed SDK. It takes segments
// that sum the innermost dim of one row-major float, half or bfloat16
// tensor (after a cast, as nvFuser definitions often write it) and runs one
// block a row: each thread sums a strided slice of the row in float, the
// block combines the partial sums in shared memory by a pairwise tree of
// halving strides (its own combine order), and thread 0 writes the sum.
#include <fusebox/kernel_plan.h>
#include <fusebox/scheduler.h>
#include <fusebox/tensor.h>

#include <fmt/format.h>

#include <bit>

#include "kernel_ir/kernel_ir.h"
#include "kernel_ir/kernel_source.h"
#include "kernel_ir/print_ir.h"

namespace {

using namespace fusebox;

// How fusebox_runtime.cuh names a dtype's storage; null for the others.
const char* storageType(DataType t) {
  switch (t) {
    case DataType::Float:
      return "float";
    case DataType::Half:
      return "fusebox::Half";
    case DataType::BFloat16:
      return "fusebox::BFloat16";
    default:
      return nullptr;
  }
}

struct RowSumParams final : HeuristicParams {
  DataType in_type = DataType::Float, out_type = DataType::Float;
  int64_t rows = 0, cols = 0;
  int threads = 32;
  uint64_t hash() const override { return std::hash<std::string>()(toString()); }
  bool sameAs(const HeuristicParams& other) const override {
    const auto* o = dynamic_cast<const RowSumParams*>(&other);
    return o != nullptr && o->toString() == toString();
  }
  std::string toString() const override {
    return fmt::format(
        "rows = {} (a block each)\ncols = {}\nthreads = {} ({} to {}, tree in "
        "shared memory)",
        rows, cols, threads, pythonName(in_type), pythonName(out_type));
  }
};

// Why the segment is not one sum over the innermost dim of one input ("" when it is).
std::string structureProblem(const Fusion& segment) {
  const std::vector<Expr*> exprs = segment.tensorExprs();
  if (segment.inputs().size() != 1 || !segment.inputs()[0]->isTensor() ||
      segment.outputs().size() != 1 || exprs.empty() || exprs.size() > 2)
    return "row_sum_tree takes one tensor input, an optional cast and one sum";
  // A cast to float only: Cast<float> of each element is then exact (a
  // narrowing cast would round elements the kernel reads unrounded).
  if (exprs.size() == 2 &&
      (exprs[0]->op() != OpType::Cast || exprs[0]->output(0)->dtype() != DataType::Float))
    return fmt::format("{} is not a cast to float", exprs[0]->opName());
  const Expr* sum = exprs.back();
  const auto* in = sum->input(0)->as<TensorView>();
  if (sum->op() != OpType::Reduction || sum->attr<ReductionAttr>().op != ReductionOpType::Sum)
    return fmt::format("{} is not a sum", sum->opName());
  const int64_t rank = static_cast<int64_t>(in->logicalNoReductions().size());
  if (sum->attr<ReductionAttr>().axes != std::vector<int64_t>{rank - 1})
    return "the sum does not reduce the innermost dim alone";
  for (const Val* v : {segment.inputs()[0], sum->output(0)})
    if (storageType(v->dtype()) == nullptr)
      return fmt::format("{} is {}: float, half or bfloat16 only", v->toString(),
                         pythonName(v->dtype()));
  return "";
}

kir::Block kernelBody(const RowSumParams& p) {
  using namespace kir;
  const Type i64 = named("int64_t"), f32 = named("float");
  const std::string in_t = storageType(p.in_type), out_t = storageType(p.out_type);
  const Value ptr = member(var("p"), "ptr");
  Block k;
  const Type in_ptr = named("const " + in_t + "*"), out_ptr = named(out_t + "*");
  const Value in = k.declare("in0", in_ptr, cast(in_ptr, subscript(ptr, lit(0))));
  const Value out = k.declare("out0", out_ptr, cast(out_ptr, subscript(ptr, lit(1))));
  const Value row = k.declare("row", i64, cast(i64, blockIdx('x')), {.is_const = true});
  const Value tid =
      k.declare("tid", intType(), cast(intType(), threadIdx('x')), {.is_const = true});
  const Value acc = k.declare("acc", f32, text("0.0f"));
  const Value c = var("c", i64);
  k.forLoop("c", i64, cast(i64, tid), lit(p.cols), lit(p.threads))
      .assign(acc, call("fusebox::Cast<float>::from", {subscript(in, row * lit(p.cols) + c)}),
              "+=");
  const Value partial = k.declareArray("partial", f32, p.threads, {.shared = true});
  k.assign(subscript(partial, tid), acc);
  k.syncThreads();
  for (int stride = p.threads / 2; stride > 0; stride /= 2) {
    k.ifThen(tid < lit(stride), BodyStyle::SameLine)
        .assign(subscript(partial, tid), subscript(partial, tid + lit(stride)), "+=");
    if (stride > 1) k.syncThreads();
  }
  k.ifThen(binary(BinaryOp::Eq, tid, lit(0)), BodyStyle::SameLine)
      .assign(subscript(out, row),
              call("fusebox::Cast<" + out_t + ">::from", {subscript(partial, lit(0))}));
  return k;
}

std::unique_ptr<KernelPlan> makePlan(const RowSumParams& p, const std::vector<int64_t>& out_sizes) {
  auto plan = std::make_unique<KernelPlan>();
  const kir::Block body = kernelBody(p);
  plan->kernel = kir::kernelSource("row_sum_tree", p.toString(), body, /*uses_block_sync=*/true);
  plan->kernel_ir = kir::printIr(body);
  plan->launch.grid = {static_cast<uint32_t>(p.rows), 1, 1};
  plan->launch.block = {static_cast<uint32_t>(p.threads), 1, 1};
  plan->bindings = {{ParamBinding::Source::InputData, 0, 0},
                    {ParamBinding::Source::OutputData, 0, 1}};
  plan->outputs = {{p.out_type, out_sizes, contiguousStrides(out_sizes)}};
  plan->bytes_moved = p.rows * (p.cols * dataTypeSize(p.in_type) + dataTypeSize(p.out_type));
  return plan;
}

class RowSumTree final : public Scheduler {
 public:
  std::string name() const override { return "row_sum_tree"; }
  std::vector<OptionSpec> options() const override {
    return {{"max_threads", OptionType::Int, int64_t{256},
             "Most threads a block (a power of two, 32 to 1024)"}};
  }
  void configure(const OptionSettings& settings) override {
    Configurable::configure(settings);
    requireIntInRange(settings, "max_threads", 32, 1024);
    if (!std::has_single_bit(static_cast<uint64_t>(option<int64_t>("max_threads"))))
      throw UserError(whereSet(settings, "max_threads"),
                      "scheduler 'row_sum_tree': option 'max_threads' must be a power of two");
  }

  Answer propose(const Fusion& segment, RuntimeInfo& info, CompileTimeCache& cache) override {
    const std::string& problem =
        cache.get<std::string>("row_sum_tree.structure", [&] { return structureProblem(segment); });
    if (!problem.empty()) return Refusal::ofStructure(problem);
    const auto& in = std::get<TensorArgInfo>(info.inputs().at(0));
    if (in.strides != contiguousStrides(in.sizes))
      return Refusal::ofInputs("the input is not row-major");
    RowSumParams p;
    p.in_type = in.dtype;
    p.out_type = segment.outputs()[0]->dtype();
    p.cols = in.sizes.back();
    const std::vector<int64_t> out_sizes = info.sizes(segment.outputs()[0]->as<TensorView>());
    p.rows = 1;
    for (int64_t s : out_sizes) p.rows *= s;  // at most the input's element count
    if (p.rows == 0 || p.rows >= (int64_t{1} << 31))
      return Refusal::ofInputs(fmt::format("{} rows: one block a row needs 1 to 2^31 - 1", p.rows));
    const int64_t wanted = std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(p.cols / 4, 32)));
    p.threads = static_cast<int>(std::min(wanted, option<int64_t>("max_threads")));
    return std::make_unique<LazyProposal>(
        [p] { return std::make_unique<RowSumParams>(p); },
        [out_sizes](const HeuristicParams& params) {
          return makePlan(dynamic_cast<const RowSumParams&>(params), out_sizes);
        });
  }
};

}  // namespace

FUSEBOX_DECLARE_SCHEDULER_PLUGIN(
    RowSumTree, "row_sum_tree", "1.0",
    "sums over the innermost dim, one block a row with a pairwise "
    "tree in shared memory (a third-party kernel through the kernel IR)")
