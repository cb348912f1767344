#include <fusebox/checked_math.h>
#include <fusebox/error.h>
#include <fusebox/tensor.h>

#include <fmt/format.h>

#include <algorithm>

#include <cstdlib>
#include <cstring>
#include <limits>

#include "element_access.h"
#include "strided_walk.h"

namespace fusebox {
namespace {

constexpr int64_t kStorageAlignment = 64;

std::string joinInts(const std::vector<int64_t>& v) {
  return fmt::format("{}", fmt::join(v, ", "));
}

// a * b, or UserError when it does not fit in int64 (absurd shapes must not wrap).
int64_t checkedMul(int64_t a, int64_t b, const char* what) {
  return checked::orThrow(checked::mul(a, b), what);
}

void checkShape(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                const char* what) {
  FUSEBOX_USER_CHECK(sizes.size() == strides.size(), "{}: {} sizes [{}] but {} strides [{}]", what,
                     sizes.size(), joinInts(sizes), strides.size(), joinInts(strides));
  for (size_t d = 0; d < sizes.size(); ++d) {
    FUSEBOX_USER_CHECK(sizes[d] >= 0, "{}: size of dim {} is {}, expected >= 0 (sizes [{}])", what,
                       d, sizes[d], joinInts(sizes));
    FUSEBOX_USER_CHECK(strides[d] >= 0,
                       "{}: stride of dim {} is {}, expected >= 0 (strides [{}]); negative "
                       "strides are not supported",
                       what, d, strides[d], joinInts(strides));
  }
}

int64_t numelOf(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n = checkedMul(n, s, "number of elements");
  return n;
}

// Elements from the first to one past the last reachable one (0 for an empty view).
int64_t spanOf(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t span = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    span = checked::orThrow(
        checked::add(span, checkedMul(sizes[d] - 1, strides[d], "tensor extent")), "tensor extent");
  }
  return span;
}

std::shared_ptr<Storage> allocateHost(int64_t nbytes) {
  // aligned_alloc wants a size that is a multiple of the alignment, and non-zero.
  FUSEBOX_USER_CHECK(nbytes <= std::numeric_limits<int64_t>::max() - kStorageAlignment,
                     "cannot allocate {} bytes of host memory", nbytes);
  int64_t padded = (std::max<int64_t>(nbytes, 1) + kStorageAlignment - 1) / kStorageAlignment *
                   kStorageAlignment;
  void* p = std::aligned_alloc(kStorageAlignment, static_cast<size_t>(padded));
  FUSEBOX_USER_CHECK(p != nullptr, "cannot allocate {} bytes of host memory", nbytes);
  std::memset(p, 0, static_cast<size_t>(padded));
  auto storage = std::make_shared<Storage>();
  storage->data = p;
  storage->nbytes = nbytes;
  storage->device = Device::Host;
  storage->deleter = [](void* q) { std::free(q); };
  return storage;
}

}  // namespace

Storage::~Storage() {
  if (deleter && data) deleter(data);
}

std::string_view dtypeName(DataType t) {
  switch (t) {
    case DataType::Bool:
      return "bool";
    case DataType::Int32:
      return "int32";
    case DataType::Int64:
      return "int64";
    case DataType::Half:
      return "half";
    case DataType::BFloat16:
      return "bfloat16";
    case DataType::Float:
      return "float";
    case DataType::Double:
      return "double";
  }
  return "?";
}

std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  int64_t running = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = running;
    running = checkedMul(running, std::max<int64_t>(sizes[d], 1), "stride");
  }
  return strides;
}

std::vector<int64_t> stridesForOrder(const std::vector<int64_t>& sizes,
                                     const std::vector<int64_t>& stride_order) {
  const size_t n = sizes.size();
  FUSEBOX_USER_CHECK(stride_order.size() == n,
                     "stride order [{}] has {} entries, expected one entry per dim ({})",
                     joinInts(stride_order), stride_order.size(), n);
  // by_rank[r] = the dim whose stride ranks r (0 = innermost).
  std::vector<int64_t> by_rank(n, -1);
  for (size_t d = 0; d < n; ++d) {
    int64_t r = stride_order[d];
    FUSEBOX_USER_CHECK(r >= 0 && r < static_cast<int64_t>(n) && by_rank[r] == -1,
                       "stride order [{}] is not a permutation of 0..{}", joinInts(stride_order),
                       static_cast<int64_t>(n) - 1);
    by_rank[r] = static_cast<int64_t>(d);
  }
  std::vector<int64_t> strides(n, 1);
  int64_t running = 1;
  for (size_t r = 0; r < n; ++r) {
    strides[by_rank[r]] = running;
    running = checkedMul(running, std::max<int64_t>(sizes[by_rank[r]], 1), "stride");
  }
  return strides;
}

Tensor Tensor::empty(DataType dtype, std::vector<int64_t> sizes) {
  auto strides = contiguousStrides(sizes);
  return emptyStrided(dtype, std::move(sizes), std::move(strides));
}

Tensor Tensor::emptyStrided(DataType dtype, std::vector<int64_t> sizes,
                            std::vector<int64_t> strides) {
  checkShape(sizes, strides, "tensor");
  numelOf(sizes);
  int64_t span = spanOf(sizes, strides);
  Tensor t;
  t.storage_ = allocateHost(checkedMul(span, dataTypeSize(dtype), "tensor size in bytes"));
  t.dtype_ = dtype;
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  return t;
}

Tensor Tensor::emptyWithStrideOrder(DataType dtype, std::vector<int64_t> sizes,
                                    const std::vector<int64_t>& stride_order) {
  auto strides = stridesForOrder(sizes, stride_order);
  return emptyStrided(dtype, std::move(sizes), std::move(strides));
}

Tensor Tensor::fromBlob(void* data, DataType dtype, std::vector<int64_t> sizes,
                        std::vector<int64_t> strides, Device device,
                        std::function<void(void*)> deleter) {
  checkShape(sizes, strides, "fromBlob");
  numelOf(sizes);
  int64_t span = spanOf(sizes, strides);
  FUSEBOX_USER_CHECK(data != nullptr || span == 0, "fromBlob: null data for a non-empty tensor");
  Tensor t;
  t.storage_ = std::make_shared<Storage>();
  t.storage_->data = data;
  t.storage_->nbytes = checkedMul(span, dataTypeSize(dtype), "tensor size in bytes");
  t.storage_->device = device;
  t.storage_->deleter = std::move(deleter);
  t.dtype_ = dtype;
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  return t;
}

Tensor Tensor::scalar(DataType dtype, double value) {
  Tensor t = empty(dtype, {});
  t.setDouble({}, value);
  return t;
}

int64_t Tensor::size(int64_t dim) const {
  int64_t n = this->dim();
  FUSEBOX_USER_CHECK(dim >= -n && dim < n, "dim {} out of range for a tensor of rank {}", dim, n);
  return sizes_[dim < 0 ? dim + n : dim];
}

int64_t Tensor::numel() const {
  return numelOf(sizes_);
}

void* Tensor::data() const {
  if (!storage_ || !storage_->data) return nullptr;
  return static_cast<char*>(storage_->data) + offset_ * elementSize();
}

bool Tensor::isContiguous() const {
  int64_t expected = 1;
  for (size_t d = sizes_.size(); d-- > 0;) {
    if (sizes_[d] == 0) return true;
    if (sizes_[d] == 1) continue;
    if (strides_[d] != expected) return false;
    expected *= sizes_[d];
  }
  return true;
}

bool Tensor::mayOverlap() const {
  // Dims of more than one element, innermost (smallest |stride|) first: each
  // must step past everything the inner ones reach. This is exact for the
  // layouts PyTorch makes (dense, permuted, sliced, expanded) and errs on
  // the safe side for exotic as_strided views.
  std::vector<std::pair<int64_t, int64_t>> dims;  // (|stride|, size)
  for (size_t d = 0; d < sizes_.size(); ++d) {
    if (sizes_[d] == 0) return false;
    if (sizes_[d] > 1) dims.emplace_back(strides_[d] < 0 ? -strides_[d] : strides_[d], sizes_[d]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;  // largest element offset the inner dims reach
  for (const auto& [stride, size] : dims) {
    if (stride <= reach) return true;
    reach += stride * (size - 1);
  }
  return false;
}

Tensor Tensor::asStrided(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                         int64_t storage_offset) const {
  FUSEBOX_USER_CHECK(defined(), "asStrided on an undefined tensor");
  checkShape(sizes, strides, "asStrided");
  FUSEBOX_USER_CHECK(storage_offset >= 0, "asStrided: storage offset {} is negative",
                     storage_offset);
  numelOf(sizes);
  const int64_t capacity = storage_->nbytes / elementSize();
  const int64_t span = spanOf(sizes, strides);
  // An empty view reaches no element, so any offset will do (a slice of an
  // empty tensor may start past its end); it is kept inside the storage so
  // that data() points into it.
  if (span == 0) storage_offset = std::min(storage_offset, capacity);
  const int64_t end =
      checked::add(storage_offset, span).value_or(std::numeric_limits<int64_t>::max());
  FUSEBOX_USER_CHECK(end <= capacity && storage_offset <= capacity,
                     "asStrided: a view of sizes [{}] strides [{}] at offset {} reaches element "
                     "{}, but the storage holds {} elements of {}",
                     joinInts(sizes), joinInts(strides), storage_offset, end - 1, capacity,
                     dtypeName(dtype_));
  Tensor t = *this;
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  t.offset_ = storage_offset;
  return t;
}

void copyInto(const Tensor& src, Tensor& dst) {
  FUSEBOX_USER_CHECK(src.defined() && dst.defined(), "copyInto: undefined tensor");
  FUSEBOX_USER_CHECK(src.device() == Device::Host && dst.device() == Device::Host,
                     "copyInto: host tensors only");
  FUSEBOX_USER_CHECK(src.sizes() == dst.sizes(), "copyInto: sizes differ: {} vs {}", src.describe(),
                     dst.describe());
  const auto* s = static_cast<const char*>(src.data());
  auto* d = static_cast<char*>(dst.data());
  const int64_t ss = src.elementSize(), ds = dst.elementSize();
  const DataType st = src.dtype(), dt = dst.dtype();
  const bool same_type = st == dt;
  detail::forEachRow(src.sizes(), {src.strides(), dst.strides()},
                     [&](const std::vector<int64_t>& start, int64_t n) {
                       const int64_t s_step = src.dim() ? src.strides().back() : 0;
                       const int64_t d_step = dst.dim() ? dst.strides().back() : 0;
                       const char* sp = s + start[0] * ss;
                       char* dp = d + start[1] * ds;
                       if (same_type && s_step == 1 && d_step == 1) {
                         std::memcpy(dp, sp, static_cast<size_t>(n * ss));
                         return;
                       }
                       for (int64_t i = 0; i < n; ++i)
                         detail::convertElement(sp + i * s_step * ss, st, dp + i * d_step * ds, dt);
                     });
}

Tensor Tensor::contiguous(bool force_copy) const {
  FUSEBOX_USER_CHECK(defined(), "contiguous() on an undefined tensor");
  if (isContiguous() && !force_copy) return *this;
  Tensor out = empty(dtype_, sizes_);
  copyInto(*this, out);
  return out;
}

Tensor Tensor::clone() const {
  FUSEBOX_USER_CHECK(defined(), "clone() of an undefined tensor");
  FUSEBOX_USER_CHECK(device() == Device::Host, "clone() of a device tensor {}", describe());
  // Strides are kept up to sign and offset: a fresh allocation covering the
  // reachable elements, with the same memory order.
  std::vector<int64_t> strides = strides_;
  for (int64_t& s : strides) s = s < 0 ? -s : s;
  Tensor out = emptyStrided(dtype_, sizes_, strides);
  copyInto(*this, out);
  return out;
}

int64_t Tensor::elementOffset(const std::vector<int64_t>& index) const {
  FUSEBOX_USER_CHECK(defined(), "element access on an undefined tensor");
  FUSEBOX_USER_CHECK(device() == Device::Host, "element access on a device tensor {}", describe());
  FUSEBOX_USER_CHECK(index.size() == sizes_.size(), "index [{}] has {} entries for {}",
                     joinInts(index), index.size(), describe());
  int64_t off = 0;
  for (size_t d = 0; d < index.size(); ++d) {
    FUSEBOX_USER_CHECK(index[d] >= 0 && index[d] < sizes_[d], "index [{}] out of range for {}",
                       joinInts(index), describe());
    off += index[d] * strides_[d];
  }
  return off;
}

double Tensor::getDouble(const std::vector<int64_t>& index) const {
  int64_t off = elementOffset(index);
  return detail::loadDouble(static_cast<const char*>(data()) + off * elementSize(), dtype_);
}

void Tensor::setDouble(const std::vector<int64_t>& index, double value) {
  int64_t off = elementOffset(index);
  detail::storeDouble(static_cast<char*>(data()) + off * elementSize(), dtype_, value);
}

int64_t Tensor::getInt(const std::vector<int64_t>& index) const {
  int64_t off = elementOffset(index);
  return detail::loadInt(static_cast<const char*>(data()) + off * elementSize(), dtype_);
}

void Tensor::setInt(const std::vector<int64_t>& index, int64_t value) {
  int64_t off = elementOffset(index);
  detail::storeInt(static_cast<char*>(data()) + off * elementSize(), dtype_, value);
}

double Tensor::getDoubleLinear(int64_t linear) const {
  const int64_t n = numel();
  FUSEBOX_USER_CHECK(linear >= 0 && linear < n, "linear index {} out of range for {}", linear,
                     describe());
  std::vector<int64_t> index(sizes_.size(), 0);
  for (size_t d = sizes_.size(); d-- > 0;) {
    index[d] = linear % sizes_[d];
    linear /= sizes_[d];
  }
  return getDouble(index);
}

std::vector<double> Tensor::toDoubles() const {
  FUSEBOX_USER_CHECK(defined(), "toDoubles() on an undefined tensor");
  FUSEBOX_USER_CHECK(device() == Device::Host, "toDoubles() on a device tensor {}", describe());
  std::vector<double> out;
  out.reserve(static_cast<size_t>(numel()));
  const auto* base = static_cast<const char*>(data());
  for (detail::StridedWalk w(sizes_, {strides_}); !w.done(); w.next())
    out.push_back(detail::loadDouble(base + w.offset(0) * elementSize(), dtype_));
  return out;
}

std::string Tensor::describe() const {
  if (!defined()) return "undefined";
  std::string s = fmt::format("{}[{}]", dtypeName(dtype_), joinInts(sizes_));
  if (!sizes_.empty() || offset_ != 0) {
    s += fmt::format("{{strides {}", joinInts(strides_));
    if (offset_ != 0) s += fmt::format("; offset {}", offset_);
    s += "}";
  }
  if (device() == Device::Cuda) s += "@cuda";
  return s;
}

}  // namespace fusebox
