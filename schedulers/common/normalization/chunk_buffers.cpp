// The persistent kernels' on-chip buffers (chunk_buffers.h).
#include "normalization/chunk_buffers.h"

#include <fmt/format.h>

#include <fusebox/error.h>

#include "kernel_ir/element_math.h"
#include "kernel_ir/print_cuda.h"
#include "kernelgen/codegen_ops.h"
#include "kernelgen/int_math.h"

namespace fusebox::normalization {

using namespace fusebox::kernelgen;

int64_t sharedBufferRegionBytes(int64_t element_bytes, int64_t rows, int64_t threads_per_row,
                                int64_t batch, int64_t vector_width) {
  return ceilDiv(rows * threads_per_row * batch * vector_width * element_bytes, 16) * 16;
}

std::string BufferArrays::element(const std::string& name, const std::string& v) const {
  if (p_.shared_buffer_bytes == 0) return fmt::format("{}[k][{}]", name, v);
  if (p_.register_batch == 0) return fmt::format("{}_s[k * {}][{}]", name, p_.block[0], v);
  return fmt::format("(k < {} ? {}[k][{}] : {}_s[(k - {}) * {}][{}])", p_.register_batch, name, v,
                     name, p_.register_batch, p_.block[0], v);
}

std::string BufferArrays::store(const std::string& name, const std::string& value,
                                const std::string& v) const {
  const std::string lane = v.empty() ? "" : fmt::format("[{}]", v);
  const std::string in_shared =
      fmt::format("{}_s[(k - {}) * {}]{} = {};", name, p_.register_batch, p_.block[0], lane, value);
  if (p_.shared_buffer_bytes == 0) return fmt::format("{}[k]{} = {};", name, lane, value);
  if (p_.register_batch == 0) return in_shared;
  return fmt::format("if (k < {}) {}[k]{} = {}; else {}", p_.register_batch, name, lane, value,
                     in_shared);
}

std::string BufferArrays::use(const ElementRef& ref, const std::string& key,
                              const VectorPlacement& vp) {
  auto it = names_.find(key);
  if (it == names_.end()) {
    const std::string name = fmt::format("pb{}", names_.size());
    const std::string st = storageType(ref.tv->dtype());
    const int vec = p_.vector_width;
    const std::string array = fmt::format("fusebox::Array<{}, {}>", st, vec);
    if (p_.shared_buffer_bytes == 0 || p_.register_batch > 0)
      decls.line(fmt::format("{} {}[{}];", array, name,
                             p_.shared_buffer_bytes == 0 ? p_.batch : p_.register_batch));
    if (p_.shared_buffer_bytes > 0) {
      // This thread's first shared slot; the next chunk is block[0] slots on.
      const int64_t shared_chunks = p_.batch - p_.register_batch;
      decls.line(fmt::format(
          "{}* const {}_s = reinterpret_cast<{}*>(fusebox::dynamicSharedMemory<unsigned char>() + "
          "{}) + threadIdx.y * {} + threadIdx.x;",
          array, name, array, shared_offset_, int64_t{p_.block[0]} * shared_chunks));
      shared_offset_ += sharedBufferRegionBytes(dataTypeSize(ref.tv->dtype()), p_.block[1],
                                                p_.block[0], shared_chunks, vec);
      if (shared_offset_ > p_.shared_buffer_bytes)
        throw Unschedulable(fmt::format(
            "the persistent buffers need more than the {} B of shared memory the params give",
            p_.shared_buffer_bytes));
    }
    if (vec > 1 && vp.isVectorAccess(ref)) {
      loads.line(store(
          name, kir::printValue(kir::loadVector(
                    vec, kir::var(ref.pointer) + kir::text(vp.offsetText(ref.offset, "mb"))))));
    } else {
      const size_t last = md_.groups.size() - 1;
      loads.line("FUSEBOX_UNROLL");
      loads.line(fmt::format("for (int v = 0; v < {}; ++v) {{", vec));
      loads.line(fmt::format("  const idx_t m{} = mb + v;", last));
      loads.line(
          fmt::format("  [[maybe_unused]] const idx_t i{} = m{};", md_.groups[last][0], last));
      loads.line("  " + store(name,
                              fmt::format("{}[{}]", ref.pointer,
                                          vp.offsetText(ref.offset, fmt::format("m{}", last))),
                              "v"));
      loads.line("}");
    }
    it = names_.emplace(key, name).first;
  }
  return fmt::format("fusebox::Cast<{}>::from({})", computeTypeName(ref.tv->dtype()),
                     element(it->second, "v"));
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
      w.sink.at().assign(kir::text(fmt::format("{}[k][v]", names_.at(tv))), kir::text(value));
  });
}

}  // namespace fusebox::normalization
