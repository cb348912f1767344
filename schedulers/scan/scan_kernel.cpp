// The block-scan kernel generator (scan_kernel.h).
#include "scan_kernel.h"

#include <fmt/format.h>

#include "kernel_ir/combine.h"
#include "kernel_ir/element_math.h"
#include "kernel_ir/kernel_ir.h"
#include "kernel_ir/print_cuda.h"
#include "kernel_ir/print_ir.h"
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

// What the element writer wrote for the scan kernel: the code before the
// scan (`x` is the value scanned) and after it, and the per-chunk loads and
// stores around them.
struct ScanElementCode {
  kir::Value x;
  kir::Block load_body, store_body;
  kir::Block load_pre_chunk, store_pre_chunk, store_post_chunk;
};

// The scan's combine and its types.
struct ScanOp {
  kir::Type acc;
  std::string acc_name, functor;
  kir::Value identity;
  kir::Value combine(kir::Value a, kir::Value b) const { return kir::call("scan_op", {a, b}); }
};

// Loops over a thread's `v` elements of a chunk (unrolled), each with its
// indices and then `element`.
void addChunkElements(kir::Block& out, const kir::Block& element, const MergedDims& md,
                      const IterSpace& space, int v) {
  kir::Block body =
      out.forLoop("v", kir::intType(), kir::lit(0), kir::lit(v), {}, kir::Unroll::Full);
  declareChunkElementIndices(body, md, space);
  body.append(element);
}

// One chunk of the row: each thread's v values in registers, scanned in
// order; the block scan of the threads' totals gives each thread's base,
// on top of the chunks before (`carry`); then every output is written.
void buildChunk(kir::Block& chunk, const kir::Value& n, const kir::Value& carry, const ScanOp& op,
                const ScanElementCode& code, const MergedDims& md, const IterSpace& space, int v) {
  const kir::Type idx = kir::indexType();
  const kir::Value vv = kir::var("v", kir::intType());
  const kir::Value mb =
      chunk.declare("mb", idx, kir::var("c") + kir::cast(idx, kir::threadIdx('x')) * kir::lit(v),
                    {.is_const = true});
  const kir::Value active = chunk.declare("active", kir::boolType(), mb < n, {.is_const = true});
  const kir::Value sc = chunk.declareArray("sc", op.acc, v);
  auto [load, fill] = chunk.ifElse(active);
  load.append(code.load_pre_chunk);
  kir::Block element;
  element.append(code.load_body);
  element.assign(kir::subscript(sc, vv), kir::castFrom(op.acc, code.x));
  addChunkElements(load, element, md, space, v);
  load.forLoop("v", kir::intType(), kir::lit(1), kir::lit(v), {}, kir::Unroll::Full,
               kir::BodyStyle::SameLine)
      .assign(kir::subscript(sc, vv),
              op.combine(kir::subscript(sc, vv - kir::lit(1)), kir::subscript(sc, vv)));
  fill.forLoop("v", kir::intType(), kir::lit(0), kir::lit(v), {}, kir::Unroll::None,
               kir::BodyStyle::SameLine)
      .assign(kir::subscript(sc, vv), op.identity);
  // The threads' chunk totals, scanned across the block.
  const kir::Value total = chunk.declare("total", op.acc, {});
  const kir::Value before = chunk.declare("before", op.acc, {});
  kir::scanBlock(chunk,
                 {.s = {kir::subscript(sc, kir::lit(v - 1)), op.acc, op.functor, op.identity},
                  .smem = kir::var("scan_smem"),
                  .prefix = before,
                  .total = total});
  const kir::Value base =
      chunk.declare("base", op.acc, op.combine(carry, before), {.is_const = true});
  chunk.assign(carry, op.combine(carry, total));
  kir::Block store = chunk.ifThen(active);
  store.append(code.store_pre_chunk);
  kir::Block outputs;
  outputs.declare("scanned", op.acc, op.combine(base, kir::subscript(sc, vv)), kir::kConstUnused);
  outputs.append(code.store_body);
  addChunkElements(store, outputs, md, space, v);
  store.append(code.store_post_chunk);
}

// The kernel body after the declarations: block b scans row b chunk by chunk.
kir::Block buildRowScan(const ScanParams& p, const MergedDims& md, const IterSpace& space,
                        SizeLiterals& lits, const ScanOp& op, const ScanElementCode& code) {
  const kir::Type idx = kir::indexType();
  const size_t last = md.groups.size() - 1;
  kir::Block k;
  // Literals are named in the order the kernel text meets them.
  const kir::Value n = lits.value(p.row_extent, "row");
  k.declare("scan_smem", kir::pointerTo(op.acc),
            kir::call("fusebox::dynamicSharedMemory", {}, {op.acc}), {.maybe_unused = true});
  k.declare("scan_op", kir::named(op.functor), {}, {.is_const = true});
  k.declare("row", idx, kir::cast(idx, kir::blockIdx('x')), kir::kConstUnused);
  std::vector<int> row_dims;
  for (size_t g = 0; g < last; ++g) row_dims.push_back(md.groups[g][0]);
  declareDimIndices(k, row_dims, p.iter_sizes, "row", "", &lits);
  for (size_t g = 0; g < last; ++g)
    k.declare(fmt::format("m{}", g), idx, kir::var(fmt::format("i{}", md.groups[g][0])),
              kir::kConstUnused);
  const kir::Value carry = k.declare("carry", op.acc, op.identity);
  kir::Block chunk = k.forLoop("c", idx, kir::lit(0), n, lits.value(p.chunk(), "chunk"));
  buildChunk(chunk, n, carry, op, code, md, space, p.vector_width);
  return k;
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
  ScanOp op;
  op.acc_name = computeTypeName(p.accumulate);
  op.acc = kir::named(op.acc_name);
  op.functor = functorOf(p.op);
  op.identity = kir::call(op.functor + "::identity", {}, {op.acc});

  // The scanned value of each element: the ops before the scan.
  ScanElementCode code;
  VectorPlacement loads(md, space, true);
  code.x = w.value(st.input, space.index(), loads);
  code.load_body = w.sink.body;
  w.sink.reset();
  // Then every output, the scan's value from its register.
  const DataType out_dtype = st.output->dtype();
  w.provide(st.output,
            [&](const Index&) { return kir::roundTo(out_dtype, kir::var("scanned", op.acc)); });
  VectorPlacement stores(md, space, true);
  w.storeOutputs(facts.output_strides, stores);
  code.store_body = w.sink.body;
  code.load_pre_chunk = loads.pre_chunk;
  code.store_pre_chunk = stores.pre_chunk;
  code.store_post_chunk = stores.post_chunk;
  const kir::Block k = buildRowScan(p, md, space, lits, op, code);

  kir::Block top;
  layout.declareKernelTop(top, p.index32, lits);
  top.append(w.prologue);
  top.append(k);

  auto plan = std::make_unique<KernelPlan>();
  plan->kernel = kernelSource("scan", p, kir::printCuda(top), /*uses_block_sync=*/true);
  plan->kernel_ir = kir::printIr(top);
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
