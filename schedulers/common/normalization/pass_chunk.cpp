// A pass's chunk code (pass_chunk.h).
#include "normalization/pass_chunk.h"

#include <fmt/format.h>

namespace fusebox::normalization {

using namespace fusebox::kernelgen;

PassChunk writePassChunk(PassContext& c, int stage, bool deviations,
                         const std::function<void(Placement&)>& extra) {
  ElementWriter& w = c.w;
  const NormalizationStructure& st = c.st;
  CachePlacement placement(c.md, w.space(), c.cached, c.arrays);
  w.sink.body = Buffer{};
  w.beginElement();
  // Kept values: stored by the pass that first computes them, read by the
  // later ones (pass numbers as collectRowAccesses counts them).
  const int pass = stage < st.stages ? 2 * stage + (deviations ? 1 : 0) : 2 * st.stages;
  c.kept.beginPass(w, pass);
  const std::string& l = c.lane;
  if (stage < st.stages) {
    for (size_t a = 0; a < c.accs.size(); ++a) {
      const Accumulator& A = c.accs[a];
      if (st.stage[a] != stage || (deviations && !A.welford)) continue;
      const auto* in = A.expr->input(0)->as<TensorView>();
      const std::string x = fmt::format("fusebox::Cast<{}>::from({})", A.scalar,
                                        w.value(in, w.iterationIndexOf(in), placement));
      if (!A.welford)
        w.sink.body.line(A.update(fmt::format("acc{}{}", a, l), x));
      else if (!deviations)
        w.sink.body.line(fmt::format("sum{}{} += {};", a, l, x));
      else
        w.sink.body.line(fmt::format("{{ const {} d = {} - mean{}{}; sq{}{} += d * d; }}", A.scalar,
                                     x, a, l, a, l));
    }
  } else {
    for (size_t k = 0; k < c.segment.outputs().size(); ++k) {
      const auto* tv = c.segment.outputs()[k]->as<TensorView>();
      if (st.reduced_domain.count(tv) == 0)
        w.store(k, w.iterationIndexOf(tv), c.facts.output_strides[k], placement);
    }
    if (extra) extra(placement);
  }
  w.observe(nullptr);
  const size_t last = c.md.groups.size() - 1;
  Buffer b;
  b.append(placement.vec.pre_chunk);
  b.line("FUSEBOX_UNROLL");
  b.line(fmt::format("for (int v = 0; v < {}; ++v) {{", c.p.vector_width));
  ++b.indent;
  b.line(fmt::format("const idx_t m{} = mb + v;", last));
  b.line(fmt::format("[[maybe_unused]] const idx_t i{} = m{};", c.md.groups[last][0], last));
  b.append(w.sink.body);
  --b.indent;
  b.line("}");
  b.append(placement.vec.post_chunk);
  return {placement.vec.pre_row, b.text};
}

}  // namespace fusebox::normalization
