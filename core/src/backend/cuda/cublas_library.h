// cuBLAS, opened with dlopen at first use (libcublas.so.13, .12 or
// libcublas.so, through the loader's search path, then the usual toolkit
// folders). Only what matmul and linear need.
#pragma once

#include <cublas_api.h>

#include <string>
#include <string_view>

namespace fusebox::cuda {

struct CublasApi {
  std::string library;
  int version = 0;  // cublasGetProperty: major * 10000 + minor * 100 + patch

  decltype(&::cublasCreate_v2) create;
  decltype(&::cublasDestroy_v2) destroy;
  decltype(&::cublasSetStream_v2) setStream;
  decltype(&::cublasSetMathMode) setMathMode;
  decltype(&::cublasGetProperty) getProperty;
  decltype(&::cublasGetStatusName) getStatusName;
  decltype(&::cublasGetStatusString) getStatusString;
  // Spelled out: cublas_api.h also declares a C++ overload of this name.
  cublasStatus_t (*gemmStridedBatchedEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                         int m, int n, int k, const void* alpha, const void* a,
                                         cudaDataType a_type, int lda, long long stride_a,
                                         const void* b, cudaDataType b_type, int ldb,
                                         long long stride_b, const void* beta, void* c,
                                         cudaDataType c_type, int ldc, long long stride_c,
                                         int batch_count, cublasComputeType_t compute_type,
                                         cublasGemmAlgo_t algo);
};

// Throws UserError "cuBLAS (libcublas.so.13) not found ..." when no library opens.
const CublasApi& cublas();

// Throws UserError "<what>: CUBLAS_STATUS_... (text)" unless status is success.
void checkCublas(cublasStatus_t status, std::string_view what);

}  // namespace fusebox::cuda
