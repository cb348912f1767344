// The row-persistent kernel generator (row_kernel.h).
//
// Thread (x, y) of block b holds row b * block[1] + y and, of that row, the
// chunks q = (k * block[0] + x) * V for k < batch: V consecutive elements
// along the innermost reduced dim (the row's last chunk is whole: V divides
// that dim). Every stage walks the same chunks in a fully unrolled loop, so
// the persistent buffers (fusebox::Array<T, V> pb<n>[batch]) are indexed by
// constants and stay in registers.
#include "normalization/row_kernel.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include <algorithm>
#include <map>

#include "kernelgen/accumulator.h"
#include "kernelgen/buffer.h"
#include "kernelgen/codegen_ops.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/kernel_params.h"
#include "kernelgen/merged_dims.h"
#include "kernelgen/placement.h"

namespace fusebox::normalization {

using namespace fusebox::kernelgen;

namespace {

// One merged dim per dim: the kept dims, then the reduced ones, the
// innermost reduced dim last (vectorized).
MergedDims rowLoopDims(const PersistentParams& p) {
  MergedDims md;
  for (const auto* dims : {&p.kept_dims, &p.reduced_dims})
    for (int d : *dims) {
      md.groups.push_back({d});
      md.extents.push_back(p.sizes[static_cast<size_t>(d)]);
    }
  md.vector_width = p.vector_width;
  return md;
}

// The persistent buffers: one register array per cached load, filled by the
// load stage, read by every stage.
class BufferArrays {
 public:
  BufferArrays(const MergedDims& md, const PersistentParams& p) : md_(md), p_(p) {}

  // The element `v` of chunk `k` of the cached load `ref`, in its compute type.
  std::string use(const ElementRef& ref, const std::string& key, const VectorPlacement& vp) {
    auto it = names_.find(key);
    if (it == names_.end()) {
      const std::string name = fmt::format("pb{}", names_.size());
      const std::string st = storageType(ref.tv->dtype());
      const int vec = p_.vector_width;
      decls.line(fmt::format("fusebox::Array<{}, {}> {}[{}];", st, vec, name, p_.batch));
      if (vec > 1 && vp.isVectorAccess(ref)) {
        loads.line(fmt::format("{}[k] = fusebox::loadVec<{}>({} + {});", name, vec, ref.pointer,
                               vp.offsetText(ref.offset, "mb")));
      } else {
        const size_t last = md_.groups.size() - 1;
        loads.line("FUSEBOX_UNROLL");
        loads.line(fmt::format("for (int v = 0; v < {}; ++v) {{", vec));
        loads.line(fmt::format("  const idx_t m{} = mb + v;", last));
        loads.line(fmt::format("  [[maybe_unused]] const idx_t i{} = m{};", md_.groups[last][0],
                               last));
        loads.line(fmt::format("  {}[k][v] = {}[{}];", name, ref.pointer,
                               vp.offsetText(ref.offset, fmt::format("m{}", last))));
        loads.line("}");
      }
      it = names_.emplace(key, name).first;
    }
    return fmt::format("fusebox::Cast<{}>::from({}[k][v])", computeTypeName(ref.tv->dtype()),
                       it->second);
  }

  Buffer decls;  // the arrays, at the top of the kernel
  Buffer loads;  // the load stage's chunk body

 private:
  const MergedDims& md_;
  const PersistentParams& p_;
  std::map<std::string, std::string> names_;
};

// Cached loads come from the buffers; everything else is placed as the
// vector placement places it (vector loads of a weight, one load of a
// row's mean, vector stores of the outputs).
class CachePlacement final : public Placement {
 public:
  CachePlacement(const MergedDims& md, const IterSpace& space, const std::set<std::string>& cached,
                 BufferArrays& arrays)
      : vec(md, space, true), space_(space), cached_(cached), arrays_(arrays) {}

  std::string load(CodeSink& sink, const ElementRef& ref) override {
    if (!ref.conditional) {
      const std::string key = accessKey(ref.tv, ref.offset, space_);
      if (cached_.count(key) > 0) return arrays_.use(ref, key, vec);
    }
    return vec.load(sink, ref);
  }
  void store(CodeSink& sink, const ElementRef& ref, const std::string& value) override {
    vec.store(sink, ref, value);
  }

  VectorPlacement vec;

 private:
  const IterSpace& space_;
  const std::set<std::string>& cached_;
  BufferArrays& arrays_;
};

class RowKernelWriter {
 public:
  RowKernelWriter(const Fusion& segment, const NormalizationStructure& st, const RowFacts& facts,
                  const PersistentParams& p, const std::set<std::string>& cached,
                  RuntimeInfo& info)
      : f_(segment),
        st_(st),
        facts_(facts),
        p_(p),
        cached_(cached),
        layout_(segment),
        w_(segment, facts.sizes, layout_, info, domainSpace(facts)),
        md_(rowLoopDims(p)),
        arrays_(md_, p) {
    for (const Expr* r : st.reductions) accs_.push_back(accumulatorFor(r));
  }

  GeneratedKernel write(const std::string& scheduler);

 private:
  std::string idx(const std::string& s) const { return fmt::format("static_cast<idx_t>({})", s); }
  // The loop over this thread's chunks around `body` (a chunk's code, with
  // q, mb and the reduced indices declared).
  void chunkLoop(Buffer& k, const std::string& body);
  std::string stageChunk(int stage);
  void combine(Buffer& k, int stage);
  void epilogue(Buffer& k);

  const Fusion& f_;
  const NormalizationStructure& st_;
  const RowFacts& facts_;
  const PersistentParams& p_;
  const std::set<std::string>& cached_;
  ParamLayout layout_;
  ElementWriter w_;
  MergedDims md_;
  BufferArrays arrays_;
  std::vector<Accumulator> accs_;
};

void RowKernelWriter::chunkLoop(Buffer& k, const std::string& body) {
  k.line("FUSEBOX_UNROLL");
  k.line(fmt::format("for (int k = 0; k < {}; ++k) {{", p_.batch));
  ++k.indent;
  k.line(fmt::format("const idx_t q = ({} * {} + {}) * {};", idx("k"), p_.block[0],
                     idx("threadIdx.x"), p_.vector_width));
  k.line(fmt::format("if (active && q < {}) {{", p_.reduced_extent));
  ++k.indent;
  declareDimIndices(k, p_.reduced_dims, p_.sizes, "q", "mb");
  for (size_t g = 0; g + 1 < md_.groups.size(); ++g)
    k.line(fmt::format("[[maybe_unused]] const idx_t m{} = i{};", g, md_.groups[g][0]));
  Buffer b;
  b.text = body;
  k.append(b);
  --k.indent;
  k.line("}");
  --k.indent;
  k.line("}");
}

std::string RowKernelWriter::stageChunk(int stage) {
  CachePlacement placement(md_, w_.space(), cached_, arrays_);
  w_.sink.body = Buffer{};
  w_.beginElement();
  if (stage < st_.stages) {
    for (size_t a = 0; a < accs_.size(); ++a) {
      if (st_.stage[a] != stage) continue;
      const auto* in = accs_[a].expr->input(0)->as<TensorView>();
      const std::string x = w_.value(in, w_.iterationIndexOf(in), placement);
      w_.sink.body.line(accs_[a].update(fmt::format("acc{}", a), x));
    }
  } else {
    for (size_t k = 0; k < f_.outputs().size(); ++k) {
      const auto* tv = f_.outputs()[k]->as<TensorView>();
      if (st_.reduced_domain.count(tv) == 0)
        w_.store(k, w_.iterationIndexOf(tv), facts_.output_strides[k], placement);
    }
  }
  const size_t last = md_.groups.size() - 1;
  Buffer c;
  c.append(placement.vec.pre_chunk);
  c.line("FUSEBOX_UNROLL");
  c.line(fmt::format("for (int v = 0; v < {}; ++v) {{", p_.vector_width));
  ++c.indent;
  c.line(fmt::format("const idx_t m{} = mb + v;", last));
  c.line(fmt::format("[[maybe_unused]] const idx_t i{} = m{};", md_.groups[last][0], last));
  c.append(w_.sink.body);
  --c.indent;
  c.line("}");
  c.append(placement.vec.post_chunk);
  return c.text;
}

// The row's threads combine the stage's states; every thread gets the
// result, and the reductions' outputs become values of the next stages.
void RowKernelWriter::combine(Buffer& k, int stage) {
  for (size_t a = 0; a < accs_.size(); ++a) {
    if (st_.stage[a] != stage) continue;
    const Accumulator& A = accs_[a];
    if (p_.block[0] > 32)
      k.line(fmt::format(
          "acc{} = fusebox::blockReduceX(acc{}, {}{{}}, reinterpret_cast<{}*>(fusebox_norm_smem));",
          a, a, A.functor, A.stateType()));
    else if (p_.block[0] > 1)
      k.line(fmt::format("acc{} = fusebox::warpGroupReduce<{}>(acc{}, {}{{}});", a, p_.block[0], a,
                         A.functor));
    for (size_t o = 0; o < A.expr->outputs().size(); ++o)
      k.line(fmt::format("const auto red{}_{} = {};", a, o, A.result(o, fmt::format("acc{}", a))));
  }
}

void RowKernelWriter::epilogue(Buffer& k) {
  if (st_.reduced_outputs.empty()) return;
  w_.setSpace(keptSpace(facts_));
  provideReducedValues(w_, st_.reductions, facts_,
                       [](size_t a, size_t o) { return fmt::format("red{}_{}", a, o); });
  w_.sink.body = Buffer{};
  ScalarPlacement placement(w_.space());
  for (const TensorView* out : st_.reduced_outputs) {
    const auto o = static_cast<size_t>(std::find(f_.outputs().begin(), f_.outputs().end(), out) -
                                       f_.outputs().begin());
    w_.store(o, w_.iterationIndexOf(out), facts_.output_strides[o], placement);
  }
  k.line("if (threadIdx.x == 0 && active) {");
  ++k.indent;
  k.append(w_.sink.body);
  --k.indent;
  k.line("}");
}

GeneratedKernel RowKernelWriter::write(const std::string& scheduler) {
  Buffer main;
  main.indent = 1;
  main.line(fmt::format("const idx_t row_in_grid = {} * {} + {};", idx("blockIdx.x"), p_.block[1],
                        idx("threadIdx.y")));
  main.line(fmt::format("const bool active = row_in_grid < {};", p_.kept_extent));
  // Inactive threads take part in the combines; their indices stay in range.
  main.line("[[maybe_unused]] const idx_t row = active ? row_in_grid : 0;");
  declareDimIndices(main, p_.kept_dims, p_.sizes, "row");

  Buffer stages;
  stages.indent = 1;
  for (int s = 0; s < st_.stages; ++s) {
    std::vector<const Expr*> done;
    for (size_t a = 0; a < accs_.size(); ++a)
      if (st_.stage[a] < s) done.push_back(accs_[a].expr);
    provideReducedValues(w_, done, facts_,
                         [](size_t a, size_t o) { return fmt::format("red{}_{}", a, o); });
    stages.line(fmt::format("// stage {}", s));
    for (size_t a = 0; a < accs_.size(); ++a)
      if (st_.stage[a] == s)
        stages.line(fmt::format("{} acc{} = {};", accs_[a].stateType(), a, accs_[a].identity()));
    chunkLoop(stages, stageChunk(s));
    combine(stages, s);
  }
  provideReducedValues(w_, st_.reductions, facts_,
                       [](size_t a, size_t o) { return fmt::format("red{}_{}", a, o); });
  stages.line("// the full-domain outputs");
  chunkLoop(stages, stageChunk(st_.stages));
  epilogue(stages);

  main.append(arrays_.decls);
  if (!arrays_.loads.text.empty()) {
    main.line("// load the persistent buffers");
    chunkLoop(main, arrays_.loads.text);
  }
  main.text += stages.text;

  Buffer k;
  k.indent = 1;
  k.line(fmt::format("using idx_t = {};", p_.index32 ? "int32_t" : "int64_t"));
  layout_.declarePointers(k);
  for (size_t d = 0; d < p_.sizes.size(); ++d) {
    const int di = static_cast<int>(d);
    const bool looped = std::count(p_.kept_dims.begin(), p_.kept_dims.end(), di) > 0 ||
                        std::count(p_.reduced_dims.begin(), p_.reduced_dims.end(), di) > 0;
    if (!looped) k.line(fmt::format("[[maybe_unused]] const idx_t i{} = 0;", d));
  }
  k.append(w_.prologue);
  const int64_t smem = rowKernelSharedMemoryBytes(st_, p_);
  if (smem > 0)
    k.line(fmt::format("alignas(16) __shared__ unsigned char fusebox_norm_smem[{}];", smem));
  k.text += main.text;

  GeneratedKernel out;
  out.source = kernelSource(scheduler, p_, k.text, p_.block[0] > 1,
                            {p_.threads(), std::max(1, p_.min_blocks_per_sm)});
  out.bindings = layout_.bindings();
  return out;
}

}  // namespace

int64_t rowKernelSharedMemoryBytes(const NormalizationStructure& st, const PersistentParams& p) {
  if (p.block[0] <= 32) return 0;
  int64_t widest = 0;
  for (const Expr* r : st.reductions) widest = std::max(widest, accumulatorFor(r).state_bytes);
  return int64_t{p.threads()} * widest;
}

GeneratedKernel generateRowKernel(const Fusion& segment, const NormalizationStructure& st,
                                  const RowFacts& facts, const PersistentParams& params,
                                  const std::set<std::string>& cached, RuntimeInfo& info,
                                  const std::string& scheduler) {
  return RowKernelWriter(segment, st, facts, params, cached, info).write(scheduler);
}

}  // namespace fusebox::normalization
