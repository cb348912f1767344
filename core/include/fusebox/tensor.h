// A strided tensor on the host (and, later, wrapping device memory). Sizes and
// strides count elements; strides are non-negative (0 = expanded). Copies share
// storage, like torch.Tensor. Host storage is 64-byte aligned. Bad shapes,
// strides, indices or views throw UserError.
#pragma once

#include <fusebox/dtype.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

enum class Device { Host, Cuda };

struct Storage {
  void* data = nullptr;
  int64_t nbytes = 0;
  Device device = Device::Host;
  std::function<void(void*)> deleter;  // frees `data`; empty = not owned
  ~Storage();
};

class Tensor {
 public:
  Tensor() = default;  // undefined

  // Row-major contiguous, zero-filled host tensor.
  static Tensor empty(DataType dtype, std::vector<int64_t> sizes);
  // Host tensor with the given strides; storage covers every reachable element.
  static Tensor emptyStrided(DataType dtype, std::vector<int64_t> sizes,
                             std::vector<int64_t> strides);
  // Dense host tensor laid out by nvFuser's stride_order (entry i ranks dim i, 0 = innermost).
  static Tensor emptyWithStrideOrder(DataType dtype, std::vector<int64_t> sizes,
                                     const std::vector<int64_t>& stride_order);
  // Wraps memory the caller owns (or hands over with `deleter`).
  static Tensor fromBlob(void* data, DataType dtype, std::vector<int64_t> sizes,
                         std::vector<int64_t> strides, Device device = Device::Host,
                         std::function<void(void*)> deleter = {});
  // A rank-0 host tensor holding `value` converted to dtype.
  static Tensor scalar(DataType dtype, double value);

  bool defined() const { return storage_ != nullptr; }
  DataType dtype() const { return dtype_; }
  Device device() const { return storage_ ? storage_->device : Device::Host; }
  const std::vector<int64_t>& sizes() const { return sizes_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t size(int64_t dim) const;  // negative counts from the end
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const;
  int64_t storageOffset() const { return offset_; }
  int64_t elementSize() const { return dataTypeSize(dtype_); }
  // Pointer to the element at storage offset (element 0 of the view).
  void* data() const;
  const std::shared_ptr<Storage>& storage() const { return storage_; }

  // True when strides are row-major dense (size-1 dims ignored).
  bool isContiguous() const;
  // True when two elements may share memory (an expanded, stride-0 dim, or
  // an as_strided view whose dims overlap): such a tensor cannot be written
  // element by element.
  bool mayOverlap() const;
  // A view sharing storage.
  Tensor asStrided(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                   int64_t storage_offset) const;
  // A row-major dense copy (or *this when already contiguous and `force_copy` is false).
  Tensor contiguous(bool force_copy = false) const;
  // A host copy in fresh memory with the same sizes and strides (stride-0
  // dims stay stride 0): the tensor as it is now, kept apart from later
  // in-place writes.
  Tensor clone() const;

  // Element access through the index, converting to/from double (bool -> 0/1).
  // Host only. `index` has one entry per dim.
  double getDouble(const std::vector<int64_t>& index) const;
  void setDouble(const std::vector<int64_t>& index, double value);
  int64_t getInt(const std::vector<int64_t>& index) const;
  void setInt(const std::vector<int64_t>& index, int64_t value);
  // Element at row-major logical position `linear` (0 <= linear < numel()).
  double getDoubleLinear(int64_t linear) const;
  // Every element in row-major logical order, as double.
  std::vector<double> toDoubles() const;

  // "float[16, 512]{strides 512, 1}"
  std::string describe() const;

 private:
  int64_t elementOffset(const std::vector<int64_t>& index) const;
  std::shared_ptr<Storage> storage_;
  DataType dtype_ = DataType::Float;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
};

// Short dtype names for messages and describe(): "bool", "int32", "int64", "half",
// "bfloat16", "float", "double".
std::string_view dtypeName(DataType t);

// Copies every element of `src` into `dst` (same sizes; dtypes may differ: values
// convert as the evaluator stores them, half types rounding to nearest even).
void copyInto(const Tensor& src, Tensor& dst);

// Row-major strides for `sizes`.
std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& sizes);
// Dense strides for nvFuser's stride_order.
std::vector<int64_t> stridesForOrder(const std::vector<int64_t>& sizes,
                                     const std::vector<int64_t>& stride_order);

}  // namespace fusebox
