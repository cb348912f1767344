// KernelParams slots and the kernel's names for them (kernel_params.h).
#include "kernelgen/kernel_params.h"

#include <fmt/format.h>

#include <fusebox/error.h>
#include <algorithm>

#include "kernel_ir/element_math.h"
#include "kernelgen/codegen_ops.h"

namespace fusebox::kernelgen {

bool scalarGoesToDouble(DataType t) {
  return isFloatingType(t);
}

namespace {

// Whether the segment reads at run-time indices (a scatter writes at them
// and never reaches a kernel: op_support.h).
bool hasIndirectLoads(const Fusion& segment) {
  for (const Expr* e : segment.exprs())
    if (isIndexingOp(e->op()) && e->op() != OpType::Scatter) return true;
  return false;
}

}  // namespace

std::string paramLimitProblem(const Fusion& segment, int scratch_buffers, int size_ints) {
  int pointers = scratch_buffers + (hasIndirectLoads(segment) ? 1 : 0), ints = size_ints,
      doubles = 0;
  for (const Val* in : segment.inputs()) {
    if (in->isTensor())
      ++pointers;
    else if (scalarGoesToDouble(in->dtype()))
      ++doubles;
    else
      ++ints;
  }
  for (const Val* out : segment.outputs()) pointers += out->isTensor() ? 1 : 0;
  if (pointers <= KernelParams::kMaxPointers && ints <= KernelParams::kMaxInts &&
      doubles <= KernelParams::kMaxDoubles)
    return "";
  const std::string sizes =
      size_ints > 0
          ? fmt::format(" ({} of them sizes of a kernel compiled over symbolic sizes)", size_ints)
          : std::string();
  return fmt::format(
      "the kernel would need {} pointers, {} integer{} and {} double scalars; KernelParams "
      "holds {}, {} and {}",
      pointers, ints, sizes, doubles, KernelParams::kMaxPointers, KernelParams::kMaxInts,
      KernelParams::kMaxDoubles);
}

std::string kernelSizeProblem(const Fusion& segment) {
  const auto exprs = static_cast<int64_t>(segment.exprs().size());
  if (exprs <= kMaxKernelExprs) return "";
  return fmt::format(
      "the segment has {} ops; one generated kernel holds at most {} (compile time grows "
      "quadratically with a kernel's length), so it runs as several kernels",
      exprs, kMaxKernelExprs);
}

ParamLayout::ParamLayout(const Fusion& segment) : segment_(segment) {
  int doubles = 0;
  for (size_t k = 0; k < segment.inputs().size(); ++k) {
    const Val* in = segment.inputs()[k];
    ParamBinding b;
    b.index = static_cast<int>(k);
    if (in->isTensor()) {
      b.source = ParamBinding::Source::InputData;
      b.slot = pointers_++;
      input_slot_[in] = b.slot;
    } else {
      b.source = ParamBinding::Source::InputScalar;
      b.as_double = scalarGoesToDouble(in->dtype());
      b.slot = b.as_double ? doubles++ : ints_++;
      scalar_slot_[in] = b;
    }
    bindings_.push_back(b);
  }
  for (size_t k = 0; k < segment.outputs().size(); ++k) {
    if (!segment.outputs()[k]->isTensor()) {
      output_slot_.push_back(-1);
      continue;
    }
    ParamBinding b;
    b.source = ParamBinding::Source::OutputData;
    b.index = static_cast<int>(k);
    b.slot = pointers_++;
    output_slot_.push_back(b.slot);
    bindings_.push_back(b);
  }
  if (hasIndirectLoads(segment)) {
    ParamBinding b;
    b.source = ParamBinding::Source::IndexErrors;
    b.slot = pointers_++;
    bindings_.push_back(b);
    index_errors_ = true;
  }
}

std::string ParamLayout::inputPointer(const Val* input) const {
  return fmt::format("in{}", input_slot_.at(input));
}

std::string ParamLayout::outputPointer(size_t k) const {
  FUSEBOX_CHECK(output_slot_.at(k) >= 0, "output {} is not a tensor", k);
  return fmt::format("out{}", k);
}

kir::Value ParamLayout::scalarParam(const Val* v) const {
  auto it = scalar_slot_.find(v);
  if (it == scalar_slot_.end()) return {};
  return kir::subscript(kir::member(kir::var("p"), it->second.as_double ? "f64" : "i64"),
                        kir::lit(it->second.slot));
}

std::string ParamLayout::addScratch(int64_t bytes) {
  ParamBinding b;
  b.source = ParamBinding::Source::ScratchData;
  b.index = scratch_;
  b.slot = pointers_++;
  b.bytes = bytes;
  b.kept = true;
  bindings_.push_back(b);
  return fmt::format("scratch{}", scratch_++);
}

void ParamLayout::declareKernelTop(kir::Block& out, bool index32,
                                   const SizeLiterals& literals) const {
  out.typeAlias("idx_t", kir::named(index32 ? "int32_t" : "int64_t"));
  declarePointers(out);
  literals.declare(out);
}

void ParamLayout::shareMemory(size_t input, size_t output) {
  FUSEBOX_CHECK(input < segment_.inputs().size() && segment_.inputs()[input]->isTensor() &&
                    output < output_slot_.size() && output_slot_[output] >= 0,
                "shareMemory: input {} or output {} is not a tensor of the segment", input, output);
  shared_inputs_.push_back(input);
  shared_outputs_.push_back(output);
}

void ParamLayout::declarePointers(kir::Block& out) const {
  const kir::DeclareFlags unused{.maybe_unused = true};
  auto pointer = [](int slot) {
    return kir::subscript(kir::member(kir::var("p"), "ptr"), kir::lit(slot));
  };
  auto pointerType = [](const kir::Type& t, const std::vector<size_t>& shared, size_t k) {
    const bool plain = std::find(shared.begin(), shared.end(), k) != shared.end();
    return plain ? kir::pointerTo(t) : kir::restrictPointerTo(t);
  };
  for (size_t k = 0; k < segment_.inputs().size(); ++k) {
    const Val* in = segment_.inputs()[k];
    if (!in->isTensor()) continue;
    const kir::Type st = kir::constOf(kir::storageTypeFor(in->dtype()));
    const int slot = input_slot_.at(in);
    out.declare(fmt::format("in{}", slot), pointerType(st, shared_inputs_, k),
                kir::cast(kir::pointerTo(st), pointer(slot)), unused);
  }
  for (size_t k = 0; k < segment_.outputs().size(); ++k) {
    if (output_slot_[k] < 0) continue;
    const kir::Type st = kir::storageTypeFor(segment_.outputs()[k]->dtype());
    out.declare(fmt::format("out{}", k), pointerType(st, shared_outputs_, k),
                kir::cast(kir::pointerTo(st), pointer(output_slot_[k])), unused);
  }
  // The checks note a thread's first bad index in a latch that records it
  // when the thread leaves (runtime index_check.cuh says why).
  const kir::Type words = kir::named("unsigned long long");
  const kir::Type latch = kir::named("fusebox::IndexErrorLatch");
  for (const ParamBinding& b : bindings_)
    if (b.source == ParamBinding::Source::IndexErrors)
      out.declare("index_errors", latch,
                  kir::call("fusebox::IndexErrorLatch",
                            {kir::cast(kir::pointerTo(words), pointer(b.slot))}),
                  unused);
  for (const ParamBinding& b : bindings_)
    if (b.source == ParamBinding::Source::ScratchData)
      out.declare(fmt::format("scratch{}", b.index), kir::restrictPointerTo(kir::named("void")),
                  pointer(b.slot), unused);
}

}  // namespace fusebox::kernelgen
