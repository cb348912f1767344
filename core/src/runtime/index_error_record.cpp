// A kernel's index-error record, kept across its launches and read from host
// memory (index_error_record.h).
#include <fusebox/error.h>
#include <fusebox/index_error_record.h>

#include <fmt/format.h>

#include <atomic>
#include <cstdint>

namespace fusebox {

namespace {

int64_t* wordsOf(const Tensor& t) {
  return static_cast<int64_t*>(t.data());
}

// A word the kernel may be writing while the host reads it.
int64_t load(int64_t& word) {
  return std::atomic_ref<int64_t>(word).load(std::memory_order_acquire);
}

}  // namespace

IndexErrorRecord::IndexErrorRecord(Backend& backend, std::vector<IndexCheck> index_checks,
                                   std::string kernel)
    : backend_(backend),
      index_checks_(std::move(index_checks)),
      kernel_(std::move(kernel)),
      host_words_(backend.allocateMapped(2)) {
  Tensor initial = Tensor::empty(DataType::Int64, {3});
  wordsOf(initial)[2] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(host_words_.data()));
  device_words_ = backend.toBackend(initial);
}

bool IndexErrorRecord::raised() const {
  return load(wordsOf(host_words_)[0]) != 0;
}

std::string IndexErrorRecord::take() {
  backend_.synchronize();
  int64_t* host = wordsOf(host_words_);
  const int64_t id = load(host[0]);
  if (id == 0) return {};
  const int64_t index = load(host[1]);
  // The launches that recorded it have finished (synchronized above); the
  // next ones queue behind the zeroing.
  backend_.memsetZero(device_words_.asStrided({2}, {1}, device_words_.storageOffset()));
  std::atomic_ref<int64_t>(host[1]).store(0, std::memory_order_relaxed);
  std::atomic_ref<int64_t>(host[0]).store(0, std::memory_order_release);
  return indexErrorMessage(index_checks_, kernel_, id, index);
}

std::string indexErrorMessage(const std::vector<IndexCheck>& index_checks,
                              const std::string& kernel, int64_t id, int64_t index) {
  FUSEBOX_CHECK(id > 0 && static_cast<size_t>(id) <= index_checks.size(),
                "kernel {} recorded index check {}; it has {}", kernel, id, index_checks.size());
  const IndexCheck& c = index_checks[static_cast<size_t>(id - 1)];
  return fmt::format(
      "{}: index {} is out of range for dim {} of {}, of size {} (expected {} <= index < {}); "
      "kernel {} found it",
      c.op, index, c.dim, c.tensor, c.size, c.lowest, c.size, kernel);
}

}  // namespace fusebox
