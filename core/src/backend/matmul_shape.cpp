// torch.matmul's result shape, shared by the cuBLAS path and anything that
// must allocate a matmul result (built with or without the CUDA toolkit).
#include <fusebox/backend/cublas_matmul.h>
#include <fusebox/error.h>

#include <algorithm>

namespace fusebox {

std::vector<int64_t> matmulResultShape(const std::vector<int64_t>& a,
                                       const std::vector<int64_t>& b) {
  FUSEBOX_USER_CHECK(!a.empty() && !b.empty(),
                     "matmul: both operands need at least one dim (got {} and {} dims)", a.size(),
                     b.size());
  const int64_t ka = a.back();
  const int64_t kb = b.size() == 1 ? b[0] : b[b.size() - 2];
  FUSEBOX_USER_CHECK(ka == kb, "matmul: contraction sizes differ: a has K = {}, b has K = {}", ka,
                     kb);
  std::vector<int64_t> ba(a.begin(), a.end() - std::min<size_t>(a.size(), 2));
  std::vector<int64_t> bb(b.begin(), b.end() - std::min<size_t>(b.size(), 2));
  std::vector<int64_t> shape(std::max(ba.size(), bb.size()), 1);
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t x = i + ba.size() >= shape.size() ? ba[i + ba.size() - shape.size()] : 1;
    int64_t y = i + bb.size() >= shape.size() ? bb[i + bb.size() - shape.size()] : 1;
    FUSEBOX_USER_CHECK(x == y || x == 1 || y == 1,
                       "matmul: batch dims do not broadcast: {} against {} at batch dim {}", x, y,
                       i);
    shape[i] = x == 1 ? y : x;
  }
  if (a.size() >= 2) shape.push_back(a[a.size() - 2]);
  if (b.size() >= 2) shape.push_back(b.back());
  return shape;
}

}  // namespace fusebox
