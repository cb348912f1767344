// torch.matmul / linear through cublasGemmStridedBatchedEx. The batch dims that
// collapse into one stride per operand go to one strided-batched call; any that
// do not are looped over on the host.
#include <fmt/ranges.h>
#include <fusebox/backend/cublas_matmul.h>
#include <fusebox/error.h>

#include <algorithm>
#include <climits>
#include <optional>

#include "backend/cuda/cublas_library.h"
#include "backend/cuda/cuda_backend_impl.h"

namespace fusebox {
namespace {

using cuda::CudaBackendImpl;

// One operand of C = A B as a (batched) matrix: element strides of its rows and
// columns and of each batch dim of the (broadcast) batch shape.
struct MatrixOperand {
  const char* data;  // element 0
  int64_t row_stride, col_stride;
  std::vector<int64_t> batch_strides;
};

// How a rows x cols matrix lies in memory as cuBLAS (column-major) sees it:
// `transposed` when memory holds X^T column-major (X row-major), with leading
// dimension `ld`.
struct ColumnMajor {
  bool transposed;
  int64_t ld;
};

std::optional<ColumnMajor> columnMajor(int64_t rows, int64_t cols, int64_t row_stride,
                                       int64_t col_stride) {
  // A size-1 dim's stride is meaningless; pick the leading dimension cuBLAS accepts.
  if (col_stride == 1 || cols <= 1) {
    int64_t ld = rows <= 1 ? std::max<int64_t>(cols, 1) : row_stride;
    if (ld >= std::max<int64_t>(cols, 1)) return ColumnMajor{true, ld};
  }
  if (row_stride == 1 || rows <= 1) {
    int64_t ld = cols <= 1 ? std::max<int64_t>(rows, 1) : col_stride;
    if (ld >= std::max<int64_t>(rows, 1)) return ColumnMajor{false, ld};
  }
  return std::nullopt;
}

ColumnMajor layoutOf(const char* operand, int64_t rows, int64_t cols, const MatrixOperand& m) {
  auto layout = columnMajor(rows, cols, m.row_stride, m.col_stride);
  if (!layout)
    throw UserError(fmt::format(
        "cublasMatmul: {} is a {}x{} matrix with strides [{}, {}]; cuBLAS needs row-major or "
        "column-major matrices (one stride 1, the other at least the extent); make it "
        "contiguous first",
        operand, rows, cols, m.row_stride, m.col_stride));
  return *layout;
}

cudaDataType cudaTypeOf(DataType dtype) {
  switch (dtype) {
    case DataType::Float:
      return CUDA_R_32F;
    case DataType::Half:
      return CUDA_R_16F;
    case DataType::BFloat16:
      return CUDA_R_16BF;
    case DataType::Double:
      return CUDA_R_64F;
    default:
      throw UserError(
          fmt::format("cublasMatmul: {} tensors are not supported (float, half, "
                      "bfloat16 or double)",
                      dtypeName(dtype)));
  }
}

int toInt(int64_t value, const char* what) {
  if (value > INT_MAX)
    throw UserError(fmt::format("cublasMatmul: {} = {} exceeds cuBLAS's int range", what, value));
  return static_cast<int>(value);
}

// Merges adjacent batch dims whose strides nest for every operand and drops
// size-1 dims. Returns (size, strides of a, b, c) from outermost to innermost.
struct BatchDim {
  int64_t size;
  int64_t stride[3];
};
std::vector<BatchDim> collapseBatch(const std::vector<int64_t>& batch,
                                    const MatrixOperand* ops[3]) {
  std::vector<BatchDim> dims;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i] == 1) continue;
    BatchDim d{batch[i],
               {ops[0]->batch_strides[i], ops[1]->batch_strides[i], ops[2]->batch_strides[i]}};
    if (!dims.empty()) {
      BatchDim& outer = dims.back();
      bool nests = true;
      for (int k = 0; k < 3; ++k) nests = nests && outer.stride[k] == d.stride[k] * d.size;
      if (nests) {
        outer.size *= d.size;
        for (int k = 0; k < 3; ++k) outer.stride[k] = d.stride[k];
        continue;
      }
    }
    dims.push_back(d);
  }
  return dims;
}

// C = A B (+ beta C) for every batch index; A is M x K, B K x N, C M x N.
void gemm(CudaBackendImpl& backend, DataType dtype, const std::vector<int64_t>& batch, int64_t M,
          int64_t N, int64_t K, const MatrixOperand& A, const MatrixOperand& B,
          const MatrixOperand& C, double beta) {
  const cudaDataType type = cudaTypeOf(dtype);
  const ColumnMajor la = layoutOf("a", M, K, A);
  const ColumnMajor lb = layoutOf("b", K, N, B);
  const ColumnMajor lc = layoutOf("the output", M, N, C);
  // Row-major C: compute C^T = B^T A^T (column-major), i.e. swap the operands.
  const bool swap = lc.transposed;
  const MatrixOperand& first = swap ? B : A;
  const MatrixOperand& second = swap ? A : B;
  const ColumnMajor& l1 = swap ? lb : la;
  const ColumnMajor& l2 = swap ? la : lb;
  // Memory holding the wanted matrix's transpose needs op T, except under the swap
  // where the wanted matrices are themselves transposed.
  auto op = [&](const ColumnMajor& l) { return l.transposed == swap ? CUBLAS_OP_N : CUBLAS_OP_T; };
  const int m = toInt(swap ? N : M, "m"), n = toInt(swap ? M : N, "n"), k = toInt(K, "k");
  const int ld1 = toInt(l1.ld, "lda"), ld2 = toInt(l2.ld, "ldb"), ldc = toInt(lc.ld, "ldc");

  const MatrixOperand* ops[3] = {&first, &second, &C};
  std::vector<BatchDim> dims = collapseBatch(batch, ops);
  BatchDim inner{1, {0, 0, 0}};
  if (!dims.empty()) {
    inner = dims.back();
    dims.pop_back();
  }
  const bool is_double = dtype == DataType::Double;
  const double alpha_d = 1, beta_d = beta;
  const float alpha_f = 1, beta_f = static_cast<float>(beta);
  const void* alpha = is_double ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta_p = is_double ? static_cast<const void*>(&beta_d) : &beta_f;
  const cublasComputeType_t compute = is_double ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  const int64_t elem = dataTypeSize(dtype);

  backend.device().makeCurrent();
  auto handle = static_cast<cublasHandle_t>(backend.cublasHandle());
  const cuda::CublasApi& api = cuda::cublas();
  std::vector<int64_t> index(dims.size(), 0);
  while (true) {
    int64_t offset[3] = {0, 0, 0};
    for (size_t d = 0; d < dims.size(); ++d)
      for (int o = 0; o < 3; ++o) offset[o] += index[d] * dims[d].stride[o];
    // batchCount is an int: split a longer inner dim.
    for (int64_t start = 0; start < inner.size; start += INT_MAX) {
      int count = static_cast<int>(std::min<int64_t>(inner.size - start, INT_MAX));
      auto at = [&](const MatrixOperand& x, int o) {
        return x.data + (offset[o] + start * inner.stride[o]) * elem;
      };
      cuda::checkCublas(
          api.gemmStridedBatchedEx(handle, op(l1), op(l2), m, n, k, alpha, at(first, 0), type, ld1,
                                   inner.stride[0], at(second, 1), type, ld2, inner.stride[1],
                                   beta_p, const_cast<char*>(at(C, 2)), type, ldc, inner.stride[2],
                                   count, compute, CUBLAS_GEMM_DEFAULT),
          fmt::format("cublasGemmStridedBatchedEx ({} x {} x {}, {} batches, {})", M, N, K,
                      inner.size, dtypeName(dtype)));
    }
    size_t d = dims.size();
    while (d > 0 && ++index[d - 1] == dims[d - 1].size) index[--d] = 0;
    if (d == 0) break;
  }
}

void checkDeviceTensor(const Tensor& t, const char* name) {
  FUSEBOX_USER_CHECK(t.defined(), "cublasMatmul: {} is undefined", name);
  FUSEBOX_USER_CHECK(t.device() == Device::Cuda,
                     "cublasMatmul: {} ({}) is a host tensor; copy it with toBackend first", name,
                     t.describe());
}

// Batch strides of `t` aligned to the broadcast batch shape (missing and size-1
// dims broadcast with stride 0); `batch_dims` is how many of t's dims are batch.
std::vector<int64_t> alignedBatchStrides(const Tensor& t, int64_t batch_dims,
                                         const std::vector<int64_t>& batch) {
  std::vector<int64_t> strides(batch.size(), 0);
  const int64_t skip = static_cast<int64_t>(batch.size()) - batch_dims;
  for (int64_t i = 0; i < batch_dims; ++i)
    if (t.sizes()[i] != 1) strides[skip + i] = t.strides()[i];
  return strides;
}

}  // namespace

void cublasMatmul(Backend& backend, const Tensor& a, const Tensor& b, const Tensor& out) {
  CudaBackendImpl& cuda = cuda::asCudaBackend(backend, "cublasMatmul");
  checkDeviceTensor(a, "a");
  checkDeviceTensor(b, "b");
  checkDeviceTensor(out, "the output");
  FUSEBOX_USER_CHECK(a.dtype() == b.dtype() && a.dtype() == out.dtype(),
                     "cublasMatmul: a, b and the output must share a dtype (got {}, {}, {})",
                     dtypeName(a.dtype()), dtypeName(b.dtype()), dtypeName(out.dtype()));
  cudaTypeOf(a.dtype());
  const std::vector<int64_t> shape = matmulResultShape(a.sizes(), b.sizes());
  FUSEBOX_USER_CHECK(out.sizes() == shape,
                     "cublasMatmul: the output is {} but matmul of {} and {} has {} dims of sizes "
                     "[{}]",
                     out.describe(), a.describe(), b.describe(), shape.size(),
                     fmt::join(shape, ", "));
  const bool a_vec = a.dim() == 1, b_vec = b.dim() == 1;
  const int64_t M = a_vec ? 1 : a.size(-2), K = a.size(-1), N = b_vec ? 1 : b.size(-1);
  const int64_t matrix_dims_out = (a_vec ? 0 : 1) + (b_vec ? 0 : 1);
  std::vector<int64_t> batch(shape.begin(), shape.end() - matrix_dims_out);
  if (out.numel() == 0) return;
  if (K == 0) {  // a sum over nothing
    backend.memsetZero(out);
    return;
  }
  MatrixOperand A{static_cast<const char*>(a.data()), a_vec ? 0 : a.strides()[a.dim() - 2],
                  a.strides().back(), alignedBatchStrides(a, a.dim() - (a_vec ? 1 : 2), batch)};
  MatrixOperand B{static_cast<const char*>(b.data()), b.strides()[b_vec ? 0 : b.dim() - 2],
                  b_vec ? 0 : b.strides().back(),
                  alignedBatchStrides(b, b.dim() - (b_vec ? 1 : 2), batch)};
  const auto& os = out.strides();
  const int64_t od = out.dim();
  MatrixOperand C{static_cast<const char*>(out.data()),
                  a_vec ? 0 : os[od - matrix_dims_out],
                  b_vec ? 0 : os[od - 1],
                  {os.begin(), os.begin() + static_cast<int64_t>(batch.size())}};
  gemm(cuda, a.dtype(), batch, M, N, K, A, B, C, 0.0);
}

Tensor cublasMatmul(Backend& backend, const Tensor& a, const Tensor& b) {
  const std::vector<int64_t> shape = matmulResultShape(a.sizes(), b.sizes());
  Tensor out = backend.allocate(a.dtype(), shape, contiguousStrides(shape));
  cublasMatmul(backend, a, b, out);
  return out;
}

Tensor cublasLinear(Backend& backend, const Tensor& a, const Tensor& weight, const Tensor* bias) {
  CudaBackendImpl& cuda = cuda::asCudaBackend(backend, "cublasLinear");
  checkDeviceTensor(a, "a");
  checkDeviceTensor(weight, "weight");
  FUSEBOX_USER_CHECK(weight.dim() == 2, "cublasLinear: weight must be [N, K], got {}",
                     weight.describe());
  FUSEBOX_USER_CHECK(a.dim() >= 1 && a.size(-1) == weight.size(1),
                     "cublasLinear: a {} must end in K = {} (weight {})", a.describe(),
                     weight.size(1), weight.describe());
  const int64_t N = weight.size(0);
  // weight^T as a [K, N] view: column-major when weight is row-major.
  Tensor weight_t = weight.asStrided(
      {weight.size(1), N}, {weight.strides()[1], weight.strides()[0]}, weight.storageOffset());
  std::vector<int64_t> shape(a.sizes().begin(), a.sizes().end() - 1);
  shape.push_back(N);
  Tensor out = backend.allocate(a.dtype(), shape, contiguousStrides(shape));
  if (!bias) {
    cublasMatmul(backend, a, weight_t, out);
    return out;
  }
  checkDeviceTensor(*bias, "bias");
  FUSEBOX_USER_CHECK(bias->dim() == 1 && bias->size(0) == N && bias->dtype() == a.dtype(),
                     "cublasLinear: bias must be a {} [{}] tensor, got {}", dtypeName(a.dtype()), N,
                     bias->describe());
  if (out.numel() == 0) return out;
  // out = bias broadcast over rows (a K = 1 GEMM of a device 1 by the bias, one
  // batch per output row), then out += a @ weight^T.
  Tensor one = backend.toBackend(Tensor::scalar(a.dtype(), 1.0));
  std::vector<int64_t> rows(shape.begin(), shape.end() - 1);
  std::vector<int64_t> row_strides = contiguousStrides(shape);
  row_strides.pop_back();
  MatrixOperand ones{static_cast<const char*>(one.data()), 1, 1,
                     std::vector<int64_t>(rows.size(), 0)};
  MatrixOperand bias_row{static_cast<const char*>(bias->data()), 0, bias->strides()[0],
                         std::vector<int64_t>(rows.size(), 0)};
  MatrixOperand out_rows{static_cast<const char*>(out.data()), 0, 1, row_strides};
  gemm(cuda, a.dtype(), rows, 1, N, 1, ones, bias_row, out_rows, 0.0);
  if (a.size(-1) == 0) return out;
  const bool a_vec = a.dim() == 1;
  const int64_t M = a_vec ? 1 : a.size(-2), K = a.size(-1);
  std::vector<int64_t> batch(shape.begin(), shape.end() - (a_vec ? 1 : 2));
  const auto& os = out.strides();
  MatrixOperand A{static_cast<const char*>(a.data()), a_vec ? 0 : a.strides()[a.dim() - 2],
                  a.strides().back(), alignedBatchStrides(a, a.dim() - (a_vec ? 1 : 2), batch)};
  MatrixOperand B{static_cast<const char*>(weight_t.data()), weight_t.strides()[0],
                  weight_t.strides()[1], std::vector<int64_t>(batch.size(), 0)};
  MatrixOperand C{static_cast<const char*>(out.data()),
                  a_vec ? 0 : os[os.size() - 2],
                  1,
                  {os.begin(), os.begin() + static_cast<int64_t>(batch.size())}};
  gemm(cuda, a.dtype(), batch, M, N, K, A, B, C, 1.0);
  return out;
}

}  // namespace fusebox
