// The block-scan kernel generator (scan_kernel.h).
#include "scan_kernel.h"

#include <fmt/format.h>

#include "kernel_ir/kernel_ir.h"
#include "kernel_ir/print_cuda.h"
#include "kernel_ir/print_ir.h"
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

constexpr kir::DeclareFlags kConstUnused{.is_const = true, .maybe_unused = true};

// The iteration indices of merged dim g (declareIterIndices' lines).
std::string iterIndices(const MergedDims& md, const IterSpace& space, size_t g) {
  Buffer b;
  declareIterIndices(b, md, space, g);
  return b.text;
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

  const kir::Type idx = kir::indexType();
  const kir::Type acc_type = kir::named(acc);
  const kir::Value vv = kir::var("v", kir::intType());
  // Each element of a thread's chunk: its iteration indices, then `element`.
  auto perElement = [&](kir::Block& out, const kir::Block& element) {
    kir::Block body =
        out.forLoop("v", kir::intType(), kir::lit(0), kir::lit(v), {}, kir::Unroll::Full);
    body.declare(fmt::format("m{}", last), idx, kir::var("mb") + vv, kConstUnused);
    body.code(iterIndices(md, space, last));
    body.append(element);
  };

  kir::Block k;
  const kir::Value n = kir::text(lits.text(p.row_extent, "row"));
  const kir::Value smem =
      k.declare("scan_smem", kir::pointerTo(acc_type),
                kir::call("fusebox::dynamicSharedMemory", {}, {acc_type}), {.maybe_unused = true});
  const kir::Value scan_op = k.declare("scan_op", kir::named(functor), {}, {.is_const = true});
  k.declare("row", idx, kir::cast(idx, kir::blockIdx('x')), kConstUnused);
  std::vector<int> row_dims;
  for (size_t g = 0; g < last; ++g) row_dims.push_back(md.groups[g][0]);
  Buffer dims;
  declareDimIndices(dims, row_dims, p.iter_sizes, "row", "", &lits);
  k.code(dims.text);
  for (size_t g = 0; g < last; ++g)
    k.declare(fmt::format("m{}", g), idx, kir::var(fmt::format("i{}", md.groups[g][0])),
              kConstUnused);
  const kir::Value carry = k.declare("carry", acc_type, kir::text(identity));
  auto combine = [&](kir::Value a, kir::Value b) { return kir::call("scan_op", {a, b}); };

  kir::Block chunk = k.forLoop("c", idx, kir::lit(0), n, kir::text(lits.text(p.chunk(), "chunk")));
  const kir::Value mb =
      chunk.declare("mb", idx, kir::var("c") + kir::cast(idx, kir::threadIdx('x')) * kir::lit(v),
                    {.is_const = true});
  const kir::Value active = chunk.declare("active", kir::boolType(), mb < n, {.is_const = true});
  const kir::Value sc = chunk.declareArray("sc", acc_type, v);
  auto [load, fill] = chunk.ifElse(active);
  load.code(loads.pre_chunk.text);
  kir::Block element;
  element.code(load_body.text);
  element.assign(kir::subscript(sc, vv),
                 kir::call(fmt::format("fusebox::Cast<{}>::from", acc), {kir::text(x)}));
  perElement(load, element);
  load.forLoop("v", kir::intType(), kir::lit(1), kir::lit(v), {}, kir::Unroll::Full,
               kir::BodyStyle::SameLine)
      .assign(kir::subscript(sc, vv),
              combine(kir::subscript(sc, vv - kir::lit(1)), kir::subscript(sc, vv)));
  fill.forLoop("v", kir::intType(), kir::lit(0), kir::lit(v), {}, kir::Unroll::None,
               kir::BodyStyle::SameLine)
      .assign(kir::subscript(sc, vv), kir::text(identity));
  const kir::Value total = chunk.declare("total", acc_type, {});
  const kir::Value base = chunk.declare(
      "base", acc_type,
      combine(carry, kir::call("fusebox::blockExclusiveScan",
                               {kir::subscript(sc, kir::lit(v - 1)), scan_op, smem, total})),
      {.is_const = true});
  chunk.assign(carry, combine(carry, total));
  kir::Block store = chunk.ifThen(active);
  store.code(stores.pre_chunk.text);
  kir::Block outputs;
  outputs.declare("scanned", acc_type, combine(base, kir::subscript(sc, vv)), kConstUnused);
  outputs.code(store_body.text);
  perElement(store, outputs);
  store.code(stores.post_chunk.text);

  kir::Block top;
  top.code(fmt::format("using idx_t = {};", p.index32 ? "int32_t" : "int64_t"));
  Buffer declarations;
  layout.declarePointers(declarations);
  lits.declare(declarations);
  declarations.append(w.prologue);
  top.code(declarations.text);
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
