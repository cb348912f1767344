// Visits every position of a shape in row-major order while keeping one running
// element offset per operand, each with its own strides (0 = broadcast). The
// loop every host kernel and copy is built on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fusebox::detail {

class StridedWalk {
 public:
  // strides[k] has one entry per dim of `sizes`; starts[k] is operand k's first offset.
  StridedWalk(std::vector<int64_t> sizes, std::vector<std::vector<int64_t>> strides,
              std::vector<int64_t> starts = {})
      : sizes_(std::move(sizes)), strides_(std::move(strides)), index_(sizes_.size(), 0) {
    offsets_ = starts.empty() ? std::vector<int64_t>(strides_.size(), 0) : std::move(starts);
    for (int64_t s : sizes_)
      if (s == 0) done_ = true;
  }

  bool done() const { return done_; }
  int64_t offset(size_t operand) const { return offsets_[operand]; }
  const std::vector<int64_t>& index() const { return index_; }

  void next() {
    for (size_t d = sizes_.size(); d-- > 0;) {
      ++index_[d];
      for (size_t k = 0; k < strides_.size(); ++k) offsets_[k] += strides_[k][d];
      if (index_[d] < sizes_[d]) return;
      for (size_t k = 0; k < strides_.size(); ++k) offsets_[k] -= strides_[k][d] * sizes_[d];
      index_[d] = 0;
    }
    done_ = true;  // wrapped around every dim (or rank 0: the single position is done)
  }

 private:
  std::vector<int64_t> sizes_;
  std::vector<std::vector<int64_t>> strides_;
  std::vector<int64_t> index_;
  std::vector<int64_t> offsets_;
  bool done_ = false;
};

// Calls row(offsets, n) for every run of the innermost dim, in row-major order:
// offsets[k] is operand k's first element of the run and n its length; within a
// run operand k advances by strides[k].back() (callers read it once). Rank 0 is
// one run of length 1. Tight inner loops over runs are what keep host kernels fast.
template <class Row>
void forEachRow(const std::vector<int64_t>& sizes, const std::vector<std::vector<int64_t>>& strides,
                Row row) {
  if (sizes.empty()) {
    row(std::vector<int64_t>(strides.size(), 0), int64_t{1});
    return;
  }
  const int64_t n = sizes.back();
  if (n == 0) return;
  std::vector<int64_t> outer_sizes(sizes.begin(), sizes.end() - 1);
  std::vector<std::vector<int64_t>> outer_strides;
  for (const auto& s : strides) outer_strides.emplace_back(s.begin(), s.end() - 1);
  std::vector<int64_t> offsets(strides.size());
  for (StridedWalk w(outer_sizes, outer_strides); !w.done(); w.next()) {
    for (size_t k = 0; k < strides.size(); ++k) offsets[k] = w.offset(k);
    row(offsets, n);
  }
}

}  // namespace fusebox::detail
