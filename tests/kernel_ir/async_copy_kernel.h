// A kernel built as kernel IR that stages rows in shared memory through
// asynchronous copies (kernel_ir/element_math.h): block b copies input rows
// 2b and 2b + 1 (64 floats each, 16 bytes a thread) as two commit groups,
// then writes each row reversed once its group has landed (a wait leaving
// one group in flight, then none). The input starts p.i64[0] floats past
// p.ptr[0] (a misaligned start is an error on the host). Shared by the host
// test (kernel_ir) and the GPU comparison (backend_cuda).
#pragma once

#include "kernel_ir/element_math.h"
#include "kernel_ir/kernel_source.h"

namespace fusebox::test {

inline constexpr int kAsyncRowFloats = 64;
inline constexpr int kAsyncThreads = kAsyncRowFloats / 4;  // one 16-byte copy each

inline KernelSource asyncCopyReverseKernel() {
  using namespace kir;
  const Type f32 = named("float"), i64 = named("int64_t");
  const Value params = var("p");
  Block k;
  const Value in =
      k.declare("in", constPointerTo(constOf(f32)),
                cast(pointerTo(constOf(f32)), subscript(member(params, "ptr"), lit(0))) +
                    subscript(member(params, "i64"), lit(0)));
  const Value out = k.declare("out", constPointerTo(f32),
                              cast(pointerTo(f32), subscript(member(params, "ptr"), lit(1))));
  const Value tile = k.declareArray("tile", f32, 2 * kAsyncRowFloats, {.shared = true, .align = 16});
  const Value t = k.declare("t", intType(), cast(intType(), threadIdx('x')), {.is_const = true});
  const Value row0 = k.declare("row0", i64, cast(i64, blockIdx('x')) * lit(2), {.is_const = true});
  const Value n = lit(kAsyncRowFloats);
  // x + c, without a + 0.
  auto plus = [](Value x, int64_t c) { return c == 0 ? x : x + lit(c); };
  for (int r = 0; r < 2; ++r) {
    asyncCopy(k, 16, addressOf(subscript(tile, plus(t * lit(4), r * kAsyncRowFloats))),
              in + plus(row0, r) * n + t * lit(4));
    asyncCommit(k);
  }
  for (int r = 0; r < 2; ++r) {
    asyncWait(k, 1 - r);
    k.syncThreads();
    Block j = k.forLoop("j", intType(), lit(0), lit(4), {}, Unroll::Full);
    j.assign(subscript(out, plus(row0, r) * n + t * lit(4) + var("j")),
             subscript(tile, lit(r * kAsyncRowFloats + kAsyncRowFloats - 1) - t * lit(4) -
                                 var("j")));
  }
  return kernelSource("async_copy_test", "", k, /*uses_block_sync=*/true);
}

}  // namespace fusebox::test
