// Where a kernel with index checks (KernelPlan::index_checks) records the
// first index out of range it meets, kept for every launch of that kernel.
//
// The kernel's IndexErrors binding points at three words of backend memory:
// the check's id, the index, and the address of two host words
// (Backend::allocateMapped). The thread that claims the record (an atomic on
// the first word) also writes id and index into those host words. So the
// host learns of an error by reading its own memory: a call queues no
// zeroing and no copy back, and a call that does not wait for its kernels
// is told of an error by a later one. The words are zeroed when the record
// is made and again only after an error is taken.
#pragma once

#include <fusebox/backend/backend.h>
#include <fusebox/kernel_plan.h>

#include <string>
#include <vector>

namespace fusebox {

class IndexErrorRecord {
 public:
  IndexErrorRecord(Backend& backend, std::vector<IndexCheck> index_checks, std::string kernel);

  // What the IndexErrors binding points at.
  const Tensor& words() const { return device_words_; }
  // Whether a kernel has recorded an error, without waiting: true once the
  // recording thread's write has reached the host (always, after a
  // synchronize of the kernel's stream).
  bool raised() const;
  // Waits for the backend's work, then returns the message for the error
  // recorded (naming the op, the index, the dim and its size, and the
  // kernel) and zeroes the record for later launches; empty when none was.
  std::string take();

 private:
  Backend& backend_;
  std::vector<IndexCheck> index_checks_;
  std::string kernel_;
  Tensor host_words_;    // {id, index}: written by the kernel, read in place
  Tensor device_words_;  // {id, index, address of host_words_}
};

// The message for a record of check `id` (1-based into `index_checks`) and
// `index`, found by `kernel`.
std::string indexErrorMessage(const std::vector<IndexCheck>& index_checks,
                              const std::string& kernel, int64_t id, int64_t index);

}  // namespace fusebox
