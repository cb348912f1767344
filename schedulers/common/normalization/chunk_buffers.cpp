// The persistent kernels' on-chip buffers (chunk_buffers.h).
#include "normalization/chunk_buffers.h"

#include <fmt/format.h>

#include "kernelgen/codegen_ops.h"

namespace fusebox::normalization {

using namespace fusebox::kernelgen;

std::string BufferArrays::use(const ElementRef& ref, const std::string& key,
                              const VectorPlacement& vp) {
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
      loads.line(
          fmt::format("  [[maybe_unused]] const idx_t i{} = m{};", md_.groups[last][0], last));
      loads.line(fmt::format("  {}[k][v] = {}[{}];", name, ref.pointer,
                             vp.offsetText(ref.offset, fmt::format("m{}", last))));
      loads.line("}");
    }
    it = names_.emplace(key, name).first;
  }
  return fmt::format("fusebox::Cast<{}>::from({}[k][v])", computeTypeName(ref.tv->dtype()),
                     it->second);
}

std::string CachePlacement::load(CodeSink& sink, const ElementRef& ref) {
  if (!ref.conditional) {
    const std::string key = accessKey(ref.tv, ref.offset, space_);
    if (cached_.count(key) > 0) return arrays_.use(ref, key, vec);
  }
  return vec.load(sink, ref);
}

void KeptValues::beginPass(ElementWriter& w, int pass) {
  const IterSpace space = w.space();
  const std::string own = indexKey(space.index(), space);
  for (const auto& [tv, first] : kept_) {
    auto name = names_.find(tv);
    if (name == names_.end()) {
      name = names_.emplace(tv, fmt::format("vc{}", names_.size())).first;
      arrays_.decls.line(fmt::format("fusebox::Array<{}, {}> {}[{}];", computeTypeName(tv->dtype()),
                                     p_.vector_width, name->second, p_.batch));
    }
    if (first < pass) {
      const std::string array = name->second;
      w.provide(tv, [tv, array, own, space](const Index& at) {
        if (indexKey(at, space) != own)
          throw Unschedulable(fmt::format("{} is kept for its own element but read at {}",
                                          tv->toString(), indexKey(at, space)));
        return fmt::format("{}[k][v]", array);
      });
    }
  }
  w.observe([this, &w, pass, own, space](const TensorView* tv, const Index& at,
                                         const std::string& value, bool in_branch) {
    auto it = kept_.find(tv);
    if (it != kept_.end() && it->second == pass && !in_branch && indexKey(at, space) == own)
      w.sink.body.line(fmt::format("{}[k][v] = {};", names_.at(tv), value));
  });
}

}  // namespace fusebox::normalization
