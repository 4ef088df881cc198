/*
 * fake_cublas.h - what fake_cublas.c records, and its stand-in cuBLASLt
 * descriptors (test_cublas_shim.c).
 */
#ifndef DLG_FAKE_CUBLAS_H
#define DLG_FAKE_CUBLAS_H

#include <cublasLt.h>
#include <cublas_v2.h>

#define FAKE_STREAM ((cudaStream_t)0x5eed)
/* an unusual status, so that the test sees the next cuBLAS's own answer come back */
#define FAKE_STATUS CUBLAS_STATUS_ARCH_MISMATCH

typedef struct fake_cublas_call {
  int calls;
  char name[64], caller[512]; /* the routine, and the file of the code that called it */
  cublasHandle_t handle;
  cublasOperation_t ta, tb;
  int m, n, k, lda, ldb, ldc, batch;
  long long strides[3];
  double alpha, beta;
  const void *a, *b;
  void *c, *d;
  cudaDataType types[3];
  cublasComputeType_t compute;
  cublasGemmAlgo_t algo;
  cublasLtHandle_t lt_handle;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t layouts[4];
  const cublasLtMatmulAlgo_t *lt_algo;
  void *workspace;
  size_t workspace_size;
  cudaStream_t stream;
} fake_cublas_call;

/* What a fake cuBLASLt descriptor answers (its address is the handle). */
typedef struct fake_lt_desc {
  int32_t compute, scale, pointers, ta, tb, tc;
  uint32_t epilogue;
  int reads[1]; /* getter calls, to see how far the shim looked */
} fake_lt_desc;

typedef struct fake_lt_layout {
  uint32_t type;
  int32_t order, batch;
  uint64_t rows, cols;
  int64_t ld, stride;
} fake_lt_layout;

#endif
