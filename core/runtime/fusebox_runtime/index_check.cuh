// Run-time index checks of indirect loads (index_select, select, gather,
// take_along_axis: kernelgen's element writer). A kernel cannot throw, so an
// index out of range is recorded -- the first one a launch meets, by the id
// of its check (KernelPlan::index_checks), and its value -- in the kernel's
// IndexErrors words, and the load reads element 0 instead so it stays inside
// the tensor. The runtime raises the error after the launch and discards the
// outputs.
#pragma once

namespace fusebox {

FUSEBOX_DEVICE void recordIndexError(unsigned long long* errors, unsigned long long id,
                                     int64_t index) {
  if (atomicCAS(errors, 0ull, id) == 0ull) errors[1] = static_cast<unsigned long long>(index);
}

// i when 0 <= i < size, else recorded and 0.
FUSEBOX_DEVICE int64_t checkedIndex(int64_t i, int64_t size, unsigned long long* errors,
                                    unsigned long long id) {
  if (i >= 0 && i < size) return i;
  recordIndexError(errors, id, i);
  return 0;
}

// select's index, which may count from the end: -size <= i < size.
FUSEBOX_DEVICE int64_t checkedSelectIndex(int64_t i, int64_t size, unsigned long long* errors,
                                          unsigned long long id) {
  if (i >= 0 && i < size) return i;
  if (i < 0 && i >= -size) return i + size;
  recordIndexError(errors, id, i);
  return 0;
}

}  // namespace fusebox
