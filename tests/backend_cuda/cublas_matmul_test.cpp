// cuBLAS matmul and linear against the reference evaluator, for every dtype,
// batched and broadcast operands, transposed views and 1-D operands.
// Tolerances: the evaluator accumulates in float64; cuBLAS in float32 (float64
// for double), so an element may differ by K * u * sum_k |a_ik b_kj| (u the unit
// roundoff of the accumulation) plus a rounding of the result to its dtype.
#include <fusebox/backend/cublas_matmul.h>
#include <fusebox/eval/evaluator.h>
#include <fusebox/ir/ops.h>

#include <cmath>
#include <random>

#include "backend_cuda/cuda_test_util.h"

namespace fusebox {
namespace {

using test::CudaTest;
using test::userErrorOf;
using ::testing::HasSubstr;

Tensor randomTensor(DataType dtype, const std::vector<int64_t>& sizes, uint32_t seed) {
  Tensor t = Tensor::empty(dtype, sizes);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const int64_t n = t.numel();
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    t.setDouble(index, uniform(rng));
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  return t;
}

double unitRoundoff(DataType dtype) {
  switch (dtype) {
    case DataType::Half:
      return std::ldexp(1.0, -11);
    case DataType::BFloat16:
      return std::ldexp(1.0, -8);
    case DataType::Float:
      return std::ldexp(1.0, -24);
    default:
      return std::ldexp(1.0, -53);
  }
}

// define_tensor's shape for t: symbolic, except size-1 batch dims, which are
// broadcast dims (the evaluator stretches only those).
std::vector<int64_t> definedShape(const Tensor& t) {
  std::vector<int64_t> shape(t.dim(), -1);
  for (int64_t i = 0; i + 2 < t.dim(); ++i)
    if (t.size(i) == 1) shape[i] = 1;
  return shape;
}

// The evaluator's torch.matmul of host tensors a and b.
Tensor referenceMatmul(const Tensor& a, const Tensor& b) {
  Fusion f;
  auto* ta = defineTensor(f, definedShape(a), a.dtype());
  auto* tb = defineTensor(f, definedShape(b), b.dtype());
  f.addOutput(matmul(ta, tb));
  return std::get<Tensor>(evaluateFusion(f, {a, b}).at(0));
}

// |t| elementwise (a host copy).
Tensor absOf(const Tensor& t) {
  Tensor out = t.contiguous(/*force_copy=*/true);
  std::vector<int64_t> index(out.dim(), 0);
  for (int64_t i = 0; i < out.numel(); ++i) {
    out.setDouble(index, std::abs(out.getDouble(index)));
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < out.sizes()[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// Checks got against want = a @ b elementwise: |got - want| may be K * u *
// sum_k |a_ik b_kj| (the accumulation's worst case, u its unit roundoff) plus
// one rounding to the output dtype on each side. `rounded_product`: the GPU
// may also round a @ b to the output dtype before adding a bias (cuBLAS's
// beta = 1 epilogue on half types), one more rounding of up to sum |a b|.
void expectClose(const Tensor& got, const Tensor& want, const Tensor& a, const Tensor& b,
                 bool rounded_product = false) {
  ASSERT_EQ(got.sizes(), want.sizes());
  const DataType dtype = a.dtype();
  const int64_t K = a.size(-1);
  const double accumulate = dtype == DataType::Double ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  const double out_u = unitRoundoff(dtype);
  std::vector<double> g = got.toDoubles(), w = want.toDoubles();
  std::vector<double> bound = referenceMatmul(absOf(a), absOf(b)).toDoubles();
  for (size_t i = 0; i < g.size(); ++i) {
    const double tol = 2 * out_u * std::abs(w[i]) + (K + 1) * accumulate * bound[i] +
                       (rounded_product ? out_u * bound[i] : 0.0);
    ASSERT_NEAR(g[i], w[i], tol) << "element " << i << " of " << got.describe() << ", K = " << K;
  }
}

class CublasMatmulTest : public CudaTest {
 protected:
  // cublasMatmul of a and b (copied to the GPU) against the evaluator.
  void check(const Tensor& a, const Tensor& b) {
    Tensor got =
        backend().toHost(cublasMatmul(backend(), backend().toBackend(a), backend().toBackend(b)));
    expectClose(got, referenceMatmul(a, b), a, b);
  }
};

TEST_F(CublasMatmulTest, TwoByTwoByHand) {
  // [[1 2] [3 4]] @ [[5 6] [7 8]] = [[19 22] [43 50]]
  Tensor a = test::hostTensor(DataType::Float, {2, 2}, {1, 2, 3, 4});
  Tensor b = test::hostTensor(DataType::Float, {2, 2}, {5, 6, 7, 8});
  Tensor c =
      backend().toHost(cublasMatmul(backend(), backend().toBackend(a), backend().toBackend(b)));
  EXPECT_EQ(c.toDoubles(), (std::vector<double>{19, 22, 43, 50}));
}

TEST_F(CublasMatmulTest, EveryDtypeMatchesTheEvaluator) {
  for (DataType dtype : {DataType::Float, DataType::Half, DataType::BFloat16, DataType::Double}) {
    SCOPED_TRACE(std::string(dtypeName(dtype)));
    check(randomTensor(dtype, {37, 129}, 1), randomTensor(dtype, {129, 53}, 2));
    check(randomTensor(dtype, {64, 1024}, 3), randomTensor(dtype, {1024, 96}, 4));  // long K
  }
}

TEST_F(CublasMatmulTest, BatchedAndBroadcastBatches) {
  // [3, 17, 33] @ [3, 33, 9]: one strided batched call.
  check(randomTensor(DataType::Float, {3, 17, 33}, 5),
        randomTensor(DataType::Float, {3, 33, 9}, 6));
  // [2, 1, 5, 8] @ [4, 8, 3] -> [2, 4, 5, 3]: broadcast batch dims (stride 0).
  check(randomTensor(DataType::Float, {2, 1, 5, 8}, 7),
        randomTensor(DataType::Float, {4, 8, 3}, 8));
  // A 2-D weight shared by every batch entry.
  check(randomTensor(DataType::BFloat16, {6, 7, 16}, 9),
        randomTensor(DataType::BFloat16, {16, 5}, 10));
}

TEST_F(CublasMatmulTest, VectorOperands) {
  check(randomTensor(DataType::Float, {40}, 11), randomTensor(DataType::Float, {40}, 12));  // dot
  check(randomTensor(DataType::Float, {40}, 13), randomTensor(DataType::Float, {40, 7}, 14));  // vm
  check(randomTensor(DataType::Float, {3, 7, 40}, 15),
        randomTensor(DataType::Float, {40}, 16));  // mv
}

TEST_F(CublasMatmulTest, TransposedAndPaddedViews) {
  Tensor a = randomTensor(DataType::Float, {48, 20}, 17);
  Tensor b = randomTensor(DataType::Float, {30, 48}, 18);
  Tensor da = backend().toBackend(a), db = backend().toBackend(b);
  // a^T [20, 48] (column-major) @ b^T [48, 30] (column-major).
  Tensor at = da.asStrided({20, 48}, {1, 20}, 0);
  Tensor bt = db.asStrided({48, 30}, {1, 48}, 0);
  Tensor got = backend().toHost(cublasMatmul(backend(), at, bt));
  Tensor host_at = a.asStrided({20, 48}, {1, 20}, 0), host_bt = b.asStrided({48, 30}, {1, 48}, 0);
  Tensor want = referenceMatmul(host_at, host_bt);
  expectClose(got, want, host_at, host_bt);
  // A column slice of a wider matrix: rows of 20 with a leading dimension of 20,
  // read as [48, 10] from offset 5.
  Tensor slice = da.asStrided({48, 10}, {20, 1}, 5);
  Tensor w = randomTensor(DataType::Float, {10, 4}, 19);
  got = backend().toHost(cublasMatmul(backend(), slice, backend().toBackend(w)));
  Tensor host_slice = a.asStrided({48, 10}, {20, 1}, 5);
  expectClose(got, referenceMatmul(host_slice, w), host_slice, w);
  // A column-major output.
  Tensor out = backend().allocate(DataType::Float, {20, 30}, {1, 20});
  cublasMatmul(backend(), at, bt, out);
  expectClose(backend().toHost(out), want, host_at, host_bt);
}

TEST_F(CublasMatmulTest, LinearWithAndWithoutBias) {
  for (DataType dtype : {DataType::Float, DataType::BFloat16}) {
    SCOPED_TRACE(std::string(dtypeName(dtype)));
    Tensor a = randomTensor(dtype, {2, 9, 64}, 20);
    Tensor weight = randomTensor(dtype, {24, 64}, 21);
    Tensor bias = randomTensor(dtype, {24}, 22);
    Fusion f;
    auto* ta = defineTensor(f, {-1, -1, -1}, dtype);
    auto* tw = defineTensor(f, {-1, -1}, dtype);
    auto* tb = defineTensor(f, {-1}, dtype);
    f.addOutput(linear(ta, tw, tb));
    f.addOutput(linear(ta, tw));
    auto want = evaluateFusion(f, {a, weight, bias});
    Tensor da = backend().toBackend(a), dw = backend().toBackend(weight);
    Tensor db = backend().toBackend(bias);
    // The bound of a @ weight^T; the bias adds one more rounding.
    Tensor weight_t = weight.asStrided({64, 24}, {1, 64}, 0);
    expectClose(backend().toHost(cublasLinear(backend(), da, dw, &db)), std::get<Tensor>(want[0]),
                a, weight_t, /*rounded_product=*/true);
    expectClose(backend().toHost(cublasLinear(backend(), da, dw)), std::get<Tensor>(want[1]), a,
                weight_t);
  }
}

TEST_F(CublasMatmulTest, EmptyContractionGivesZeros) {
  Tensor a = Tensor::empty(DataType::Float, {3, 0});
  Tensor b = Tensor::empty(DataType::Float, {0, 4});
  Tensor out =
      backend().toBackend(test::hostTensor(DataType::Float, {3, 4}, std::vector<double>(12, 7)));
  cublasMatmul(backend(), backend().toBackend(a), backend().toBackend(b), out);
  EXPECT_EQ(backend().toHost(out).toDoubles(), std::vector<double>(12, 0.0));
  Tensor none = cublasMatmul(backend(), backend().toBackend(Tensor::empty(DataType::Float, {0, 5})),
                             backend().toBackend(Tensor::empty(DataType::Float, {5, 2})));
  EXPECT_EQ(none.sizes(), (std::vector<int64_t>{0, 2}));
}

TEST_F(CublasMatmulTest, BadOperandsAreUserErrors) {
  Tensor a = backend().toBackend(randomTensor(DataType::Float, {4, 6}, 23));
  Tensor b = backend().toBackend(randomTensor(DataType::Float, {6, 5}, 24));
  EXPECT_THAT(userErrorOf([&] { cublasMatmul(backend(), a, a); }),
              HasSubstr("contraction sizes differ: a has K = 6, b has K = 4"));
  EXPECT_THAT(
      userErrorOf([&] {
        cublasMatmul(backend(), a, backend().toBackend(randomTensor(DataType::Half, {6, 5}, 1)));
      }),
      HasSubstr("must share a dtype"));
  EXPECT_THAT(userErrorOf([&] {
                cublasMatmul(backend(), randomTensor(DataType::Float, {4, 6}, 2), b);
              }),
              HasSubstr("is a host tensor"));
  // Every other column: neither row- nor column-major.
  Tensor wide = backend().toBackend(randomTensor(DataType::Float, {4, 12}, 25));
  Tensor gapped = wide.asStrided({4, 6}, {12, 2}, 0);
  EXPECT_THAT(userErrorOf([&] { cublasMatmul(backend(), gapped, b); }),
              HasSubstr("needs row-major or column-major matrices"));
  Tensor wrong_out = backend().allocate(DataType::Float, {4, 4}, {4, 1});
  EXPECT_THAT(userErrorOf([&] { cublasMatmul(backend(), a, b, wrong_out); }),
              HasSubstr("the output is float[4, 4]"));
  Tensor ints = backend().toBackend(Tensor::empty(DataType::Int64, {2, 2}));
  EXPECT_THAT(userErrorOf([&] { cublasMatmul(backend(), ints, ints); }),
              HasSubstr("int64 tensors are not supported"));
}

}  // namespace
}  // namespace fusebox
