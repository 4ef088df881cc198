/*
 * fake_cublas.c - a "next cuBLAS" (libcublas.so.99 and libcublasLt.so.99,
 * one source built twice) that records what it was called with and who
 * called it.
 *
 * test_cublas_shim loads it under a stand-in framework, with libdlgemm.so
 * ahead of both, to check that the framework's cuBLAS names bind to
 * dlgemm's and that what dlgemm does not take reaches the next cuBLAS with
 * exactly the caller's arguments.  The handle's helpers answer a fixed
 * stream, the default math mode and host pointers; the cuBLASLt
 * descriptors are fake_lt_desc / fake_lt_layout records that the getters
 * read back.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include "fake_cublas.h"

static fake_cublas_call last;

fake_cublas_call *fake_cublas_last(void) { return &last; }

static void record(const char *name, void *caller)
{
  Dl_info info;
  memset(&last, 0, sizeof last);
  last.calls++;
  strncpy(last.name, name, sizeof last.name - 1);
  if (dladdr(caller, &info) && info.dli_fname)
    strncpy(last.caller, info.dli_fname, sizeof last.caller - 1);
}

#define CALLER __builtin_return_address(0)

#ifndef FAKE_LT
cublasStatus_t cublasGetStream_v2(cublasHandle_t h, cudaStream_t *s)
{
  (void)h;
  *s = FAKE_STREAM;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t *m)
{
  (void)h;
  *m = CUBLAS_DEFAULT_MATH;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t h, cublasPointerMode_t *p)
{
  (void)h;
  *p = CUBLAS_POINTER_MODE_HOST;
  return CUBLAS_STATUS_SUCCESS;
}

#define GEMM_RECORD(name, alpha_t)                                                       \
  record(name, CALLER);                                                                  \
  last.handle = handle, last.ta = transa, last.tb = transb, last.m = m, last.n = n;      \
  last.k = k, last.alpha = *(const alpha_t *)alpha, last.beta = *(const alpha_t *)beta;  \
  last.a = A, last.b = B, last.c = C, last.lda = lda, last.ldb = ldb, last.ldc = ldc

#define TYPED(P, T)                                                                              \
  cublasStatus_t cublas##P##gemm_v2(cublasHandle_t handle, cublasOperation_t transa,              \
                                    cublasOperation_t transb, int m, int n, int k, const T *alpha, \
                                    const T *A, int lda, const T *B, int ldb, const T *beta,       \
                                    T *C, int ldc)                                                 \
  {                                                                                                \
    GEMM_RECORD("cublas" #P "gemm_v2", T);                                                         \
    return FAKE_STATUS;                                                                            \
  }                                                                                                \
  cublasStatus_t cublas##P##gemmStridedBatched(                                                    \
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,     \
      int k, const T *alpha, const T *A, int lda, long long int strideA, const T *B, int ldb,      \
      long long int strideB, const T *beta, T *C, int ldc, long long int strideC, int batchCount)  \
  {                                                                                                \
    GEMM_RECORD("cublas" #P "gemmStridedBatched", T);                                              \
    last.strides[0] = strideA, last.strides[1] = strideB, last.strides[2] = strideC;               \
    last.batch = batchCount;                                                                       \
    return FAKE_STATUS;                                                                            \
  }
TYPED(S, float)
TYPED(D, double)

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void *alpha,
                            const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C,
                            cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo)
{
  GEMM_RECORD("cublasGemmEx", float);
  last.types[0] = Atype, last.types[1] = Btype, last.types[2] = Ctype;
  last.compute = computeType, last.algo = algo;
  return FAKE_STATUS;
}

cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void *alpha, const void *A, cudaDataType Atype, int lda, long long int strideA,
    const void *B, cudaDataType Btype, int ldb, long long int strideB, const void *beta, void *C,
    cudaDataType Ctype, int ldc, long long int strideC, int batchCount,
    cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
  GEMM_RECORD("cublasGemmStridedBatchedEx", float);
  last.types[0] = Atype, last.types[1] = Btype, last.types[2] = Ctype;
  last.strides[0] = strideA, last.strides[1] = strideB, last.strides[2] = strideC;
  last.batch = batchCount, last.compute = computeType, last.algo = algo;
  return FAKE_STATUS;
}
#else
cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t d,
                                              cublasLtMatmulDescAttributes_t attr, void *buf,
                                              size_t size, size_t *written)
{
  fake_lt_desc *f = (fake_lt_desc *)d;
  const void *src = NULL;
  size_t n = 4;
  static void *const none = NULL;
  switch (attr) {
  case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: src = &f->compute; break;
  case CUBLASLT_MATMUL_DESC_SCALE_TYPE: src = &f->scale; break;
  case CUBLASLT_MATMUL_DESC_POINTER_MODE: src = &f->pointers; break;
  case CUBLASLT_MATMUL_DESC_TRANSA: src = &f->ta; break;
  case CUBLASLT_MATMUL_DESC_TRANSB: src = &f->tb; break;
  case CUBLASLT_MATMUL_DESC_TRANSC: src = &f->tc; break;
  case CUBLASLT_MATMUL_DESC_EPILOGUE: src = &f->epilogue; break;
  case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER: case CUBLASLT_MATMUL_DESC_B_SCALE_POINTER:
  case CUBLASLT_MATMUL_DESC_D_SCALE_POINTER: case CUBLASLT_MATMUL_DESC_AMAX_D_POINTER:
    src = &none, n = sizeof(void *); break;
  default: return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (size < n) return CUBLAS_STATUS_INVALID_VALUE;
  memcpy(buf, src, n);
  *written = n;
  f->reads[0]++;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t l,
                                                cublasLtMatrixLayoutAttribute_t attr, void *buf,
                                                size_t size, size_t *written)
{
  const fake_lt_layout *f = (const fake_lt_layout *)l;
  const void *src;
  size_t n = 8;
  switch (attr) {
  case CUBLASLT_MATRIX_LAYOUT_TYPE: src = &f->type, n = 4; break;
  case CUBLASLT_MATRIX_LAYOUT_ORDER: src = &f->order, n = 4; break;
  case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: src = &f->batch, n = 4; break;
  case CUBLASLT_MATRIX_LAYOUT_ROWS: src = &f->rows; break;
  case CUBLASLT_MATRIX_LAYOUT_COLS: src = &f->cols; break;
  case CUBLASLT_MATRIX_LAYOUT_LD: src = &f->ld; break;
  case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: src = &f->stride; break;
  default: return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (size < n) return CUBLAS_STATUS_INVALID_VALUE;
  memcpy(buf, src, n);
  *written = n;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                              const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                              const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
                              const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                              cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
                              void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream)
{
  record("cublasLtMatmul", CALLER);
  last.lt_handle = lightHandle, last.desc = computeDesc;
  last.alpha = *(const float *)alpha, last.beta = *(const float *)beta;
  last.a = A, last.b = B, last.c = (void *)C, last.d = D;
  last.layouts[0] = Adesc, last.layouts[1] = Bdesc, last.layouts[2] = Cdesc, last.layouts[3] = Ddesc;
  last.lt_algo = algo, last.workspace = workspace, last.workspace_size = workspaceSizeInBytes;
  last.stream = stream;
  return FAKE_STATUS;
}
#endif
