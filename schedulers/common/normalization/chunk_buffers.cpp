// The persistent kernels' on-chip buffers (chunk_buffers.h).
#include "normalization/chunk_buffers.h"

#include <fmt/format.h>

#include <fusebox/error.h>

#include "kernel_ir/element_math.h"
#include "kernelgen/codegen_ops.h"
#include "kernelgen/int_math.h"

namespace fusebox::normalization {

using namespace fusebox::kernelgen;

int64_t sharedBufferRegionBytes(int64_t element_bytes, int64_t rows, int64_t threads_per_row,
                                int64_t batch, int64_t vector_width) {
  return ceilDiv(rows * threads_per_row * batch * vector_width * element_bytes, 16) * 16;
}

int64_t sharedBuffersBytes(const std::vector<PersistentBuffer>& buffers, int64_t rows,
                           int64_t threads_per_row, int64_t batch, int64_t vector_width) {
  int64_t bytes = 0;
  for (const PersistentBuffer& b : buffers)
    bytes += sharedBufferRegionBytes(b.element_bytes, rows, threads_per_row, batch, vector_width);
  return bytes;
}

namespace {

// Whether `ref` reads the same element wherever `dims` are (an affine
// offset with no run-time index and no coefficient on them).
bool constantAlong(const ElementRef& ref, const std::vector<int>& dims) {
  return ref.offset.affine && ref.offset.a.terms.empty() && zeroOn(ref.offset.a, dims);
}

kir::Value chunkIndex() {
  return kir::var("k", kir::intType());
}
kir::Value elementIndex() {
  return kir::var("v", kir::intType());
}

}  // namespace

// With two stages (PersistentParams::buffer_stages), the load pass copies
// into the stage `fusebox_load_stage` names and the passes read the one
// `fusebox_stage` names: each a block's slots on from the first.
kir::Value BufferArrays::slot(bool loading) const {
  const kir::Value k = chunkIndex(), batch = kir::lit(p_.register_batch);
  kir::Value at = (k - batch) * kir::lit(p_.block[0]);
  if (p_.buffer_stages > 1)
    at = at + kir::var(loading ? "fusebox_load_stage" : "fusebox_stage", kir::intType()) *
                  kir::lit(int64_t{p_.block[0]} * p_.block[1] * (p_.batch - p_.register_batch));
  return at;
}

void BufferArrays::store(kir::Block& at, const std::string& name, const kir::Value& value,
                         const kir::Value& v) const {
  const kir::Value k = chunkIndex(), batch = kir::lit(p_.register_batch);
  auto lane = [&](kir::Value chunk) { return v.defined() ? kir::subscript(chunk, v) : chunk; };
  auto inShared = [&](kir::Block& b) {
    b.assign(lane(kir::subscript(kir::var(name + "_s"), slot(true))), value);
  };
  auto inRegisters = [&](kir::Block& b) {
    b.assign(lane(kir::subscript(kir::var(name), k)), value);
  };
  if (!sharedChunks()) return inRegisters(at);
  if (p_.register_batch == 0) return inShared(at);
  auto [registers, shared] = at.ifElse(k < batch);
  inRegisters(registers);
  inShared(shared);
}

void BufferArrays::loadChunk(kir::Block& into, const std::string& name, const kir::Value& address,
                             int vec, int64_t element_bytes, bool staged) {
  const int64_t bytes = vec * element_bytes;
  if (staged) {
    // Copied into the thread's staging slot by the load pass, moved into
    // the registers by `restore` a turn later.
    const kir::Value slot = chunkIndex() * kir::lit(int64_t{p_.block[0]});
    kir::asyncCopy(into, static_cast<int>(bytes), kir::var(name + "_s") + slot, address);
    return store(restore, name, kir::subscript(kir::var(name + "_s"), slot));
  }
  if (!sharedChunks() || !kir::asyncCopyMoves(bytes))
    return store(into, name, kir::loadVector(vec, address));
  // A chunk kept in shared memory is copied there asynchronously: no
  // register holds it on the way, so a thread's copies all issue before the
  // first waits (H200, softmax forward 4096x32000 bf16, a block of 512
  // threads x 8 chunks in shared memory: 149.6 us, against 184.3 us reading
  // the row again from the L2). Each thread reads back only its own slots,
  // so its wait suffices, without a barrier.
  const kir::Value k = chunkIndex(), batch = kir::lit(p_.register_batch);
  auto inShared = [&](kir::Block& b) {
    kir::asyncCopy(b, static_cast<int>(bytes), kir::var(name + "_s") + slot(true), address);
  };
  async_copies_ = true;
  if (p_.register_batch == 0) return inShared(into);
  auto [registers, shared] = into.ifElse(k < batch);
  registers.assign(kir::subscript(kir::var(name), k), kir::loadVector(vec, address));
  inShared(shared);
}

kir::Type BufferArrays::chunkType(DataType dtype) const {
  return kir::named(fmt::format("fusebox::Array<{}, {}>", storageType(dtype), p_.vector_width));
}

kir::Value BufferArrays::chunkOf(const std::string& name) const {
  const kir::Value k = chunkIndex();
  const kir::Value in_registers = kir::subscript(kir::var(name), k);
  if (!sharedChunks()) return in_registers;
  const kir::Value shared = kir::subscript(kir::var(name + "_s"), slot(false));
  if (p_.register_batch == 0) return shared;
  return kir::select(k < kir::lit(p_.register_batch), in_registers, shared);
}

bool BufferArrays::rowInvariant(const ElementRef& ref) const {
  return hoist_ && !sharedChunks() && constantAlong(ref, hoist_kept_dims_);
}

std::string BufferArrays::buffer(const ElementRef& ref, const std::string& key,
                                 const VectorPlacement& vp) {
  auto it = names_.find(key);
  if (it == names_.end()) {
    const std::string name = fmt::format("{}{}", prefix_, names_.size());
    const int vec = p_.vector_width;
    const kir::Type array = chunkType(ref.tv->dtype());
    // Staged rows copy the vector chunks a row moves; the rest load at
    // the row's turn (restore) or once (invariant_loads).
    const bool vector = vec > 1 && vp.isVectorAccess(ref);
    const bool staged = p_.staged_rows && vector && !rowInvariant(ref) &&
                        kir::asyncCopyMoves(vec * dataTypeSize(ref.tv->dtype()));
    if (!sharedChunks() || p_.register_batch > 0)
      decls.declareArray(name, array, !sharedChunks() ? p_.batch : p_.register_batch);
    if (sharedChunks() || staged) {
      // This thread's first shared slot; the next chunk is block[0] slots on.
      const int64_t shared_chunks = staged ? p_.batch : p_.batch - p_.register_batch;
      const kir::Value smem =
          kir::call("fusebox::dynamicSharedMemory", {}, {kir::named("unsigned char")});
      decls.declare(name + "_s", kir::constPointerTo(array),
                    kir::reinterpretAs(kir::pointerTo(array), smem + kir::lit(shared_offset_)) +
                        kir::threadIdx('y') * kir::lit(int64_t{p_.block[0]} * shared_chunks) +
                        kir::threadIdx('x'));
      shared_offset_ +=
          sharedBufferRegionBytes(dataTypeSize(ref.tv->dtype()), p_.block[1] * p_.buffer_stages,
                                  p_.block[0], shared_chunks, vec);
      if (shared_offset_ > p_.shared_buffer_bytes)
        throw Unschedulable(fmt::format(
            "the persistent buffers need more than the {} B of shared memory the params give",
            p_.shared_buffer_bytes));
    }
    if (vector) {
      kir::Block& into = rowInvariant(ref)           ? invariant_loads
                         : p_.staged_rows && !staged ? restore
                                                     : loads;
      loadChunk(into, name, kir::var(ref.pointer) + vp.offsetValue(ref.offset, "mb"), vec,
                dataTypeSize(ref.tv->dtype()), staged);
    } else {
      const size_t last = md_.groups.size() - 1;
      kir::Block element =
          (p_.staged_rows ? restore : loads)
              .forLoop("v", kir::intType(), kir::lit(0), kir::lit(vec), {}, kir::Unroll::Full);
      const kir::Value m = element.declare(fmt::format("m{}", last), kir::indexType(),
                                           kir::var("mb") + elementIndex(), {.is_const = true});
      element.declare(fmt::format("i{}", md_.groups[last][0]), kir::indexType(), m,
                      kir::kConstUnused);
      store(element, name,
            kir::subscript(kir::var(ref.pointer),
                           vp.offsetValue(ref.offset, fmt::format("m{}", last))),
            elementIndex());
    }
    it = names_.emplace(key, name).first;
  }
  return it->second;
}

kir::Value BufferArrays::rowScalar(const ElementRef& ref, const std::string& key,
                                   const VectorPlacement& vp) {
  if (!p_.staged_rows || ref.conditional || !constantAlong(ref, p_.reduced_dims)) return {};
  const kir::Type ct = kir::computeTypeFor(ref.tv->dtype());
  auto it = row_scalars_.find(key);
  if (it == row_scalars_.end()) {
    const std::string name = fmt::format("rs{}", row_scalars_.size());
    decls.declareArray(name, ct, 1);
    decls.declareArray(name + "n", ct, 1);
    const kir::Value first_chunk = chunkIndex() == kir::lit(0);
    loads.ifThen(first_chunk)
        .assign(kir::subscript(kir::var(name + "n"), kir::lit(0)),
                kir::castFrom(ct, kir::subscript(kir::var(ref.pointer),
                                                 vp.offsetValue(ref.offset, "mb", ref.pointer))));
    restore.ifThen(first_chunk)
        .assign(kir::subscript(kir::var(name), kir::lit(0)),
                kir::subscript(kir::var(name + "n"), kir::lit(0)));
    it = row_scalars_.emplace(key, name).first;
  }
  return kir::subscript(kir::var(it->second, ct), kir::lit(0));
}

kir::Value CachePlacement::load(CodeSink& sink, const ElementRef& ref) {
  const std::string key = accessKey(ref.tv, ref.offset, space_);
  if (const kir::Value scalar = arrays_.rowScalar(ref, key, vec); scalar.defined()) return scalar;
  if (ref.conditional || cached_.count(key) == 0) return vec.load(sink, ref);
  const std::string buffer = arrays_.buffer(ref, key, vec);
  kir::Value chunk = arrays_.chunkOf(buffer);
  if (arrays_.sharedChunks()) {
    auto copy = chunk_copies_.find(buffer);
    if (copy == chunk_copies_.end()) {
      copy = chunk_copies_.emplace(buffer, buffer + "c").first;
      vec.pre_chunk.declare(copy->second, arrays_.chunkType(ref.tv->dtype()), chunk,
                            {.is_const = true});
    }
    chunk = kir::var(copy->second);
  }
  return kir::vectorElement(ref.tv->dtype(), chunk, elementIndex());
}

void KeptValues::beginPass(ElementWriter& w, int pass) {
  const IterSpace space = w.space();
  const std::string own = indexKey(space.index(), space);
  for (const auto& [tv, first] : kept_) {
    auto name = names_.find(tv);
    if (name == names_.end()) {
      name = names_.emplace(tv, fmt::format("{}{}", prefix_, names_.size())).first;
      arrays_.decls.declareArray(
          name->second,
          kir::named(
              fmt::format("fusebox::Array<{}, {}>", computeTypeName(tv->dtype()), p_.vector_width)),
          p_.batch);
    }
    if (first < pass) {
      const std::string array = name->second;
      w.provide(tv, [tv, array, own, space](const Index& at) {
        if (indexKey(at, space) != own)
          throw Unschedulable(fmt::format("{} is kept for its own element but read at {}",
                                          tv->toString(), indexKey(at, space)));
        return kir::subscript(kir::subscript(kir::var(array), chunkIndex()), elementIndex());
      });
    }
  }
  w.observe([this, &w, pass, own, space](const TensorView* tv, const Index& at,
                                         const kir::Value& value, bool in_branch) {
    auto it = kept_.find(tv);
    if (it != kept_.end() && it->second == pass && !in_branch && indexKey(at, space) == own)
      w.sink.at().assign(
          kir::subscript(kir::subscript(kir::var(names_.at(tv)), chunkIndex()), elementIndex()),
          value);
  });
}

}  // namespace fusebox::normalization
