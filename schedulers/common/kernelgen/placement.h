// Where a kernel's loads of segment inputs and stores of outputs go: a policy
// the scheduler gives the walker (element_writer.h). The walker works out
// which element is accessed (its offset per iteration index); the placement
// writes the access, in the element body or hoisted into buffers of its own
// that the scheduler places around its loops (merged_dims.h: pointwise's
// vector chunks). ScalarPlacement is the plain one: a scalar access in the
// body at the offset written over the iteration space's index variables.
#pragma once

#include <fmt/format.h>
#include <fusebox/ir/ir.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernel_ir/kernel_ir.h"
#include "kernelgen/branch_bounds.h"
#include "kernelgen/index_math.h"

namespace fusebox::kernelgen {

// What the walker and placements write into: the per-element code, as
// kernel IR statements, and the kernel's fresh variable names (one counter,
// so names never clash across buffers).
class CodeSink {
 public:
  kir::Block body;
  // Where the next statement goes: the innermost open pad / cat branch,
  // else the body.
  kir::Block& at() { return open_.empty() ? body : open_.back(); }
  void open(kir::Block branch) { open_.push_back(std::move(branch)); }
  void close() { open_.pop_back(); }
  // A fresh body, no branch open (the old body stays with whoever holds it).
  void reset() {
    body = kir::Block();
    open_.clear();
  }
  std::string newVar(const char* prefix) { return fmt::format("{}{}", prefix, counter_++); }

 private:
  std::vector<kir::Block> open_;
  int counter_ = 0;
};

// One element access.
struct ElementRef {
  const TensorView* tv = nullptr;
  int index = 0;             // which segment input or output
  std::string pointer;       // its pointer variable (kernel_params.h: in<slot>, out<k>)
  IndexExpr offset;          // element offset from the pointer, per iteration index
  bool conditional = false;  // under a pad / cat bound check
  // A load: its data pointer's alignment (bytes), and the checks of the pad
  // / cat branches it is under, outermost first.
  int64_t alignment = 16;
  std::vector<BranchBounds> branches;
};

class Placement {
 public:
  virtual ~Placement() = default;
  // The element's value in its dtype's compute type (a variable or an
  // expression), after writing whatever code reads it.
  virtual kir::Value load(CodeSink& sink, const ElementRef& ref) = 0;
  // Writes `value` (in the compute type) to the element.
  virtual void store(CodeSink& sink, const ElementRef& ref, const kir::Value& value) = 0;
  // The variable an indirect load's checked index is in (element_indexing.cpp),
  // by name: `expr` computes it from `index_value`, the index operand's
  // value. Declared in the element body; VectorPlacement declares it once per
  // chunk where the index value is itself one (a hoisted load), and then
  // reads through it with vector loads.
  virtual std::string indexVariable(CodeSink& sink, const kir::Value& /*index_value*/,
                                    const kir::Value& expr) {
    const std::string var = sink.newVar("x");
    sink.at().declare(var, kir::indexType(), expr, kir::kConstUnused);
    return var;
  }
  // The condition a pad / cat branch opens with: `checks` (its checks on the
  // element), or an equivalent the placement computes elsewhere (once per
  // vector chunk: merged_dims.h).
  virtual kir::Value branchCondition(CodeSink& /*sink*/, const BranchBounds& /*bounds*/,
                                     const kir::Value& checks) {
    return checks;
  }
  // A position in the iteration space as a value (a random op's element
  // number): over the index variables here. VectorPlacement writes it over
  // its merged indices where they walk as one, so that a kernel over
  // symbolic sizes does not divide a merged index into dims only to sum
  // them again (two run-time divisions an element).
  virtual kir::Value position(const IndexExpr& at, const IterSpace& space,
                              const std::string& role) {
    return at.value(space, role);
  }
};

// A scalar load into a new variable of the body, and a scalar store, at
// element offset `offset`: the fallback of every placement.
kir::Value scalarLoad(CodeSink& sink, const ElementRef& ref, const kir::Value& offset);
void scalarStore(CodeSink& sink, const ElementRef& ref, const kir::Value& offset,
                 const kir::Value& value);

class ScalarPlacement final : public Placement {
 public:
  explicit ScalarPlacement(const IterSpace& space) : space_(space) {}
  kir::Value load(CodeSink& sink, const ElementRef& ref) override {
    return scalarLoad(sink, ref, ref.offset.value(space_, ref.pointer));
  }
  void store(CodeSink& sink, const ElementRef& ref, const kir::Value& value) override {
    scalarStore(sink, ref, ref.offset.value(space_, ref.pointer), value);
  }

 private:
  const IterSpace& space_;
};

}  // namespace fusebox::kernelgen
