// Run-time index checks of indirect loads (index_select, select, gather,
// take_along_axis: kernelgen's element writer). A kernel cannot throw, so an
// index out of range is recorded -- the first since the record was last
// taken, by the id of its check (KernelPlan::index_checks), and its value --
// and the load reads element 0 instead so it stays inside the tensor. The
// record (the IndexErrors binding) is three words of device memory: id,
// index, and the address of two host words, which the thread that claims the
// record writes too, so the host sees the error without copying anything
// back (IndexErrorRecord, fusebox/index_error_record.h). The runtime raises
// it and discards the outputs.
#pragma once

namespace fusebox {

FUSEBOX_DEVICE void recordIndexError(unsigned long long* errors, unsigned long long id,
                                     int64_t index) {
  if (atomicCAS(errors, 0ull, id) != 0ull) return;
  errors[1] = static_cast<unsigned long long>(index);
  auto* host = reinterpret_cast<volatile unsigned long long*>(errors[2]);
  if (host == nullptr) return;
  // The index lands before the id that tells the host to read it.
  host[1] = static_cast<unsigned long long>(index);
  __threadfence_system();
  host[0] = id;
}

// A thread's first index error, held in registers and recorded in the
// IndexErrors words when the thread leaves the kernel (every return runs the
// destructor). Recording it at once put an atomic behind a branch between
// two indirect loads, and ptxas moved no gather above it: a loop of
// gathers waited out each one's memory latency in turn (cross-entropy's
// mean over 4096 rows, each gathering its target's logit: 13 us on H200).
// Checks here are selects, so the gathers of an unrolled loop go out
// together.
class IndexErrorLatch {
 public:
  FUSEBOX_DEVICE explicit IndexErrorLatch(unsigned long long* words) : words_(words) {}
  IndexErrorLatch(const IndexErrorLatch&) = delete;
  IndexErrorLatch& operator=(const IndexErrorLatch&) = delete;
  FUSEBOX_DEVICE ~IndexErrorLatch() {
    if (id_ != 0) recordIndexError(words_, id_, index_);
  }
  // Keeps (id, index) when `bad` and nothing is kept yet.
  FUSEBOX_DEVICE void note(bool bad, unsigned long long id, int64_t index) {
    const bool first = bad && id_ == 0;
    id_ = first ? id : id_;
    index_ = first ? index : index_;
  }

 private:
  unsigned long long* words_;
  unsigned long long id_ = 0;
  int64_t index_ = 0;
};

FUSEBOX_DEVICE void recordIndexError(IndexErrorLatch& errors, unsigned long long id,
                                     int64_t index) {
  errors.note(true, id, index);
}

// i when 0 <= i < size, else noted and 0.
FUSEBOX_DEVICE int64_t checkedIndex(int64_t i, int64_t size, IndexErrorLatch& errors,
                                    unsigned long long id) {
  const bool ok = i >= 0 && i < size;
  errors.note(!ok, id, i);
  return ok ? i : 0;
}

// select's index, which may count from the end: -size <= i < size.
FUSEBOX_DEVICE int64_t checkedSelectIndex(int64_t i, int64_t size, IndexErrorLatch& errors,
                                          unsigned long long id) {
  const bool ok = i >= -size && i < size;
  errors.note(!ok, id, i);
  return !ok ? 0 : i < 0 ? i + size : i;
}

// The forms over the words themselves, recording at once (a latch that
// leaves with the call): kernels written by kernelgen before the latch (a
// scheduler plugin built against an earlier SDK) declare
// `unsigned long long* index_errors` and still compile.
FUSEBOX_DEVICE int64_t checkedIndex(int64_t i, int64_t size, unsigned long long* errors,
                                    unsigned long long id) {
  IndexErrorLatch latch(errors);
  return checkedIndex(i, size, latch, id);
}
FUSEBOX_DEVICE int64_t checkedSelectIndex(int64_t i, int64_t size, unsigned long long* errors,
                                          unsigned long long id) {
  IndexErrorLatch latch(errors);
  return checkedSelectIndex(i, size, latch, id);
}

}  // namespace fusebox
