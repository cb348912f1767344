// Asynchronous copies built as kernel IR (async_copy_kernel.h), run on the
// host backend: the staged rows come out reversed exactly, and a misaligned
// copy is an error naming it (a GPU would fault).
#include <fusebox/backend/host_backend.h>
#include <fusebox/error.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernel_ir/async_copy_kernel.h"
#include "kernel_ir/print_cuda.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;

// Runs the kernel over `rows` rows of `in` starting `offset` floats in; the
// outputs, or the launch's error.
std::vector<float> reverseRows(Backend& backend, const std::vector<float>& in, int rows,
                               int64_t offset, std::string* error = nullptr) {
  Tensor input = Tensor::empty(DataType::Float, {static_cast<int64_t>(in.size())});
  std::memcpy(input.data(), in.data(), in.size() * sizeof(float));
  Tensor output = Tensor::empty(DataType::Float, {int64_t{rows} * test::kAsyncRowFloats});
  KernelParams p{};
  p.ptr[0] = input.data();
  p.ptr[1] = output.data();
  p.i64[0] = offset;
  LaunchConfig config;
  config.grid = {static_cast<uint32_t>(rows / 2), 1, 1};
  config.block = {test::kAsyncThreads, 1, 1};
  try {
    backend.compile(test::asyncCopyReverseKernel())->launch(config, p);
  } catch (const InternalError& e) {
    if (error == nullptr) throw;
    *error = e.what();
    return {};
  }
  std::vector<float> result(static_cast<size_t>(output.numel()));
  std::memcpy(result.data(), output.data(), result.size() * sizeof(float));
  return result;
}

TEST(KernelIrAsyncCopy, PrintsTheRuntimeCallsInOrder) {
  const std::string source = test::asyncCopyReverseKernel().source;
  const size_t copy = source.find("fusebox::asyncCopy<16>(&tile[t * 4], in + row0 * 64 + t * 4);");
  const size_t commit = source.find("fusebox::asyncCommit();", copy);
  const size_t wait = source.find("fusebox::asyncWait<1>();", commit);
  const size_t sync = source.find("__syncthreads();", wait);
  ASSERT_NE(copy, std::string::npos) << source;
  EXPECT_NE(commit, std::string::npos) << source;
  EXPECT_NE(wait, std::string::npos) << source;
  EXPECT_NE(sync, std::string::npos) << source;
  EXPECT_NE(source.find("fusebox::asyncWait<0>();", sync), std::string::npos) << source;
  kir::Block b;
  EXPECT_THROW(kir::asyncCopy(b, 12, kir::var("d"), kir::var("s")), InternalError);
  EXPECT_THROW(kir::asyncWait(b, -1), InternalError);
}

TEST(KernelIrAsyncCopy, StagedRowsComeOutReversedOnTheHost) {
  const int rows = 6;
  std::vector<float> in(rows * test::kAsyncRowFloats + 4);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f - 7.0f;
  auto backend = makeHostBackend();
  // Offset 4 floats: still 16-byte aligned (host storage is 64-byte aligned).
  for (int64_t offset : {0, 4}) {
    const std::vector<float> out = reverseRows(*backend, in, rows, offset);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < test::kAsyncRowFloats; ++c)
        ASSERT_EQ(out[r * test::kAsyncRowFloats + c],
                  in[offset + r * test::kAsyncRowFloats + test::kAsyncRowFloats - 1 - c])
            << "offset " << offset << ", row " << r << ", column " << c;
  }
}

TEST(KernelIrAsyncCopy, AMisalignedCopyIsAnErrorNamingIt) {
  std::vector<float> in(2 * test::kAsyncRowFloats + 4, 1.0f);
  auto backend = makeHostBackend();
  std::string error;
  reverseRows(*backend, in, 2, 1, &error);
  EXPECT_THAT(error, HasSubstr("made a misaligned asynchronous copy: asyncCopy<16> from 0x"));
  EXPECT_THAT(error, HasSubstr("both must be multiples of 16 bytes"));
  EXPECT_THAT(error, HasSubstr("block (0, 0, 0), thread (0, 0, 0)"));
}

}  // namespace
}  // namespace fusebox
