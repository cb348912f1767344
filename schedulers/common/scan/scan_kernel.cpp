// The block-scan kernel generator (scan_kernel.h).
#include "scan/scan_kernel.h"

#include <fmt/format.h>

#include "kernelgen/buffer.h"
#include "kernelgen/codegen_ops.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/kernel_source.h"
#include "kernelgen/merged_dims.h"
#include "kernelgen/plan_outputs.h"
#include "kernelgen/size_literals.h"

namespace fusebox::scan {

using namespace fusebox::kernelgen;

namespace {

// Every dim its own merged dim, the row (innermost) last: the chunk walks it
// from mb, the outer dims come from the block's row.
MergedDims scanDims(const ScanParams& p) {
  MergedDims md;
  for (size_t d = 0; d < p.iter_sizes.size(); ++d) {
    md.groups.push_back({static_cast<int>(d)});
    md.extents.push_back(p.iter_sizes[d]);
  }
  md.vector_width = p.vector_width;
  return md;
}

std::string functorOf(const std::string& op) {
  if (op == "sum") return "fusebox::ReduceSum";
  if (op == "prod") return "fusebox::ReduceProd";
  if (op == "max") return "fusebox::ReduceMax";
  return "fusebox::ReduceMin";
}

}  // namespace

std::unique_ptr<KernelPlan> makeScanPlan(const Fusion& segment, const ScanStructure& st,
                                         const ScanFacts& facts, const ScanParams& p,
                                         RuntimeInfo& info) {
  const ParamLayout layout(segment);
  SizeLiterals lits(ShapeMode::Static, layout.intSlots(), p.index32);
  IterSpace iter_space = IterSpace::named(p.iter_sizes);
  iter_space.literals = &lits;
  ElementWriter w(segment, facts.sizes, layout, info, std::move(iter_space));
  const IterSpace& space = w.space();
  const MergedDims md = scanDims(p);
  const size_t last = md.groups.size() - 1;
  const int v = p.vector_width;
  const std::string acc = computeTypeName(p.accumulate);
  const std::string functor = functorOf(p.op);
  const std::string identity = fmt::format("{}::identity<{}>()", functor, acc);
  const DataType out_dtype = st.output->dtype();

  // The scanned value of each element: the ops before the scan.
  VectorPlacement loads(md, space, true);
  const std::string x = w.value(st.input, space.index(), loads);
  Buffer load_body = w.sink.body;
  w.sink.body = Buffer{};
  // Then every output, the scan's value from its register.
  w.provide(st.output, [&](const Index&) { return roundTo(out_dtype, "scanned"); });
  VectorPlacement stores(md, space, true);
  w.storeOutputs(facts.output_strides, stores);
  Buffer store_body = w.sink.body;

  auto perElement = [&](Buffer& out, const Buffer& element) {
    out.line("FUSEBOX_UNROLL");
    out.line(fmt::format("for (int v = 0; v < {}; ++v) {{", v));
    ++out.indent;
    out.line(fmt::format("[[maybe_unused]] const idx_t m{} = mb + v;", last));
    declareIterIndices(out, md, space, last);
    out.append(element);
    --out.indent;
    out.line("}");
  };

  Buffer k;
  k.indent = 1;
  const std::string n = lits.text(p.row_extent, "row");
  k.line(fmt::format("[[maybe_unused]] {}* scan_smem = fusebox::dynamicSharedMemory<{}>();", acc,
                     acc));
  k.line(fmt::format("const {} scan_op;", functor));
  k.line("[[maybe_unused]] const idx_t row = static_cast<idx_t>(blockIdx.x);");
  std::vector<int> row_dims;
  for (size_t g = 0; g < last; ++g) row_dims.push_back(md.groups[g][0]);
  declareDimIndices(k, row_dims, p.iter_sizes, "row", "", &lits);
  for (size_t g = 0; g < last; ++g)
    k.line(fmt::format("[[maybe_unused]] const idx_t m{} = i{};", g, md.groups[g][0]));
  k.line(fmt::format("{} carry = {};", acc, identity));
  k.line(fmt::format("for (idx_t c = 0; c < {}; c += {}) {{", n, lits.text(p.chunk(), "chunk")));
  ++k.indent;
  k.line(fmt::format("const idx_t mb = c + static_cast<idx_t>(threadIdx.x) * {};", v));
  k.line(fmt::format("const bool active = mb < {};", n));
  k.line(fmt::format("{} sc[{}];", acc, v));
  k.line("if (active) {");
  ++k.indent;
  k.append(loads.pre_chunk);
  Buffer element = load_body;
  element.line(fmt::format("sc[v] = fusebox::Cast<{}>::from({});", acc, x));
  perElement(k, element);
  k.line("FUSEBOX_UNROLL");
  k.line(fmt::format("for (int v = 1; v < {}; ++v) sc[v] = scan_op(sc[v - 1], sc[v]);", v));
  --k.indent;
  k.line("} else {");
  ++k.indent;
  k.line(fmt::format("for (int v = 0; v < {}; ++v) sc[v] = {};", v, identity));
  --k.indent;
  k.line("}");
  k.line(fmt::format("{} total;", acc));
  k.line(fmt::format(
      "const {} base = scan_op(carry, fusebox::blockExclusiveScan(sc[{}], scan_op, scan_smem, "
      "total));",
      acc, v - 1));
  k.line("carry = scan_op(carry, total);");
  k.line("if (active) {");
  ++k.indent;
  k.append(stores.pre_chunk);
  Buffer outputs;
  outputs.line(fmt::format("[[maybe_unused]] const {} scanned = scan_op(base, sc[v]);", acc));
  outputs.append(store_body);
  perElement(k, outputs);
  k.append(stores.post_chunk);
  --k.indent;
  k.line("}");
  --k.indent;
  k.line("}");

  Buffer top;
  top.indent = 1;
  top.line(fmt::format("using idx_t = {};", p.index32 ? "int32_t" : "int64_t"));
  layout.declarePointers(top);
  lits.declare(top);
  top.append(w.prologue);

  auto plan = std::make_unique<KernelPlan>();
  plan->kernel = kernelSource("scan", p, top.text + k.text, /*uses_block_sync=*/true);
  plan->bindings = layout.bindings();
  lits.addBindings(plan->bindings);
  plan->index_checks = w.indexChecks();
  plan->launch.grid = {static_cast<uint32_t>(p.rows), 1, 1};
  plan->launch.block = {static_cast<uint32_t>(p.threads), 1, 1};
  // One value per warp, at most 8 bytes each (the accumulator's compute type).
  plan->launch.dynamic_shared_memory = 32 * 8;
  describePlanMemory(*plan, segment, info, facts.sizes, facts.output_strides);
  return plan;
}

}  // namespace fusebox::scan
