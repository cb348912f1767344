// Device memory: the caching allocator's reuse and release, copies of strided,
// expanded and offset views, memsetZero, and tensors outliving their backend.
#include "backend_cuda/cuda_test_util.h"

namespace fusebox {
namespace {

using test::CudaTest;
using test::hostTensor;

class CudaMemoryTest : public CudaTest {};

TEST_F(CudaMemoryTest, FreedBlocksAreReusedBySizeClass) {
  const DeviceAllocatorStats before = deviceAllocatorStats(backend());
  void* first = nullptr;
  {
    Tensor t = backend().allocate(DataType::Float, {1000}, {1});  // 4000 B -> 4096 B class
    first = t.data();
    EXPECT_EQ(t.device(), Device::Cuda);
    EXPECT_EQ(deviceAllocatorStats(backend()).bytes_in_use, before.bytes_in_use + 4096);
  }
  DeviceAllocatorStats freed = deviceAllocatorStats(backend());
  EXPECT_EQ(freed.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(freed.bytes_cached, before.bytes_cached + 4096);
  EXPECT_EQ(freed.driver_allocations, before.driver_allocations + 1);

  // 3600 bytes fall in the same class: the same block, no new cuMemAlloc.
  Tensor again = backend().allocate(DataType::Float, {900}, {1});
  EXPECT_EQ(again.data(), first);
  DeviceAllocatorStats reused = deviceAllocatorStats(backend());
  EXPECT_EQ(reused.driver_allocations, freed.driver_allocations);
  EXPECT_EQ(reused.reused, freed.reused + 1);

  // A different class allocates.
  Tensor bigger = backend().allocate(DataType::Float, {2000}, {1});
  EXPECT_NE(bigger.data(), first);
  EXPECT_EQ(deviceAllocatorStats(backend()).driver_allocations, freed.driver_allocations + 1);
}

TEST_F(CudaMemoryTest, LargeBlocksAreReusedWithinAQuarter) {
  void* block = nullptr;
  {
    Tensor t = backend().allocate(DataType::Float, {(3 << 20) / 4}, {1});  // 3 MiB -> 4 MiB
    block = t.data();
  }
  const DeviceAllocatorStats freed = deviceAllocatorStats(backend());
  Tensor same_class = backend().allocate(DataType::Float, {(7 << 19) / 4}, {1});  // 3.5 MiB
  EXPECT_EQ(same_class.data(), block);
  // 16 MiB is far bigger: a new block.
  Tensor large = backend().allocate(DataType::Float, {(16 << 20) / 4}, {1});
  EXPECT_NE(large.data(), block);
  EXPECT_EQ(deviceAllocatorStats(backend()).driver_allocations, freed.driver_allocations + 1);
}

TEST_F(CudaMemoryTest, ReleasingTheCacheReturnsFreeBlocks) {
  { Tensor t = backend().allocate(DataType::Double, {4096}, {1}); }
  EXPECT_GT(deviceAllocatorStats(backend()).bytes_cached, 0);
  releaseCachedDeviceMemory(backend());
  EXPECT_EQ(deviceAllocatorStats(backend()).bytes_cached, 0);
  const int64_t allocations = deviceAllocatorStats(backend()).driver_allocations;
  Tensor t = backend().allocate(DataType::Double, {4096}, {1});
  EXPECT_EQ(deviceAllocatorStats(backend()).driver_allocations, allocations + 1);
}

TEST_F(CudaMemoryTest, ZeroSizedTensorsNeedNoMemory) {
  Tensor empty = backend().allocate(DataType::Float, {0, 7}, {7, 1});
  EXPECT_EQ(empty.numel(), 0);
  EXPECT_EQ(backend().toHost(empty).numel(), 0);
  backend().memsetZero(empty);
  Tensor host_empty = Tensor::empty(DataType::Half, {3, 0});
  EXPECT_EQ(backend().toBackend(host_empty).sizes(), (std::vector<int64_t>{3, 0}));
}

TEST_F(CudaMemoryTest, CopiesKeepStridedExpandedAndOffsetViews) {
  std::vector<double> values;
  for (int i = 0; i < 24; ++i) values.push_back(i * 1.5 - 7);
  Tensor base = hostTensor(DataType::Float, {4, 6}, values);
  // Transposed [6, 4], a column broadcast [4, 6] (stride 0), and a slice at an offset.
  Tensor transposed = base.asStrided({6, 4}, {1, 6}, 0);
  Tensor expanded = base.asStrided({4, 6}, {6, 0}, 2);
  Tensor sliced = base.asStrided({2, 3}, {6, 2}, 7);
  for (const Tensor& view : {base, transposed, expanded, sliced}) {
    Tensor device = backend().toBackend(view);
    EXPECT_EQ(device.sizes(), view.sizes());
    EXPECT_EQ(device.strides(), view.strides());
    Tensor back = backend().toHost(device);
    EXPECT_EQ(back.toDoubles(), view.toDoubles()) << view.describe();
  }
  for (DataType dtype : {DataType::Half, DataType::BFloat16, DataType::Int64, DataType::Bool}) {
    Tensor t = hostTensor(dtype, {5}, {0, 1, 0, 1, 1});
    EXPECT_EQ(backend().toHost(backend().toBackend(t)).toDoubles(), t.toDoubles());
  }
}

TEST_F(CudaMemoryTest, MemsetZeroClearsDenseAndPermutedTensors) {
  std::vector<double> ones(12, 1.0);
  Tensor t = backend().toBackend(hostTensor(DataType::Float, {3, 4}, ones));
  backend().memsetZero(t);
  EXPECT_EQ(backend().toHost(t).toDoubles(), std::vector<double>(12, 0.0));
  // A column-major [3, 4] fills its span too.
  Tensor column_major =
      backend().toBackend(hostTensor(DataType::Float, {3, 4}, ones)).asStrided({3, 4}, {1, 3}, 0);
  backend().memsetZero(column_major);
  EXPECT_EQ(backend().toHost(column_major).toDoubles(), std::vector<double>(12, 0.0));
}

TEST(CudaMemoryLifetime, TensorsMayOutliveTheirBackend) {
  FUSEBOX_REQUIRE_GPU();
  Tensor survivor;
  {
    CudaBackendOptions options;
    options.cache.disk = false;
    auto backend = createCudaBackend(options);
    survivor = backend->toBackend(hostTensor(DataType::Float, {3}, {1, 2, 3}));
    { Tensor cached = backend->allocate(DataType::Float, {100}, {1}); }
  }
  // The backend is gone; dropping the tensor frees its block through the driver.
  EXPECT_EQ(survivor.device(), Device::Cuda);
  survivor = Tensor();
  // A new backend on the same device still works.
  CudaBackendOptions options;
  options.cache.disk = false;
  auto backend = createCudaBackend(options);
  EXPECT_EQ(
      backend->toHost(backend->toBackend(hostTensor(DataType::Float, {2}, {4, 5}))).toDoubles(),
      (std::vector<double>{4, 5}));
}

}  // namespace
}  // namespace fusebox
