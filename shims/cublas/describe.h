/*
 * describe.h - what the cuBLAS and cuBLASLt entry points share: a product
 * in cuBLAS's column-major terms, turned into dlgemm's description of it.
 */
#ifndef DLG_SHIMS_CUBLAS_DESCRIBE_H
#define DLG_SHIMS_CUBLAS_DESCRIBE_H

#include <stdint.h>
#include "api/rival.h"
#include "shims/cublas/next.h"

typedef struct cublas_product {
  int ta, tb;                   /* op(A), op(B) transposed */
  int64_t m, n, k, batch;
  const void *a, *b;
  void *c;
  int64_t lda, ldb, ldc, stride_a, stride_b, stride_c;
  cudaDataType type_ab, type_c;
  const void *alpha, *beta;     /* host scalars of scale_type */
  cudaDataType scale_type;
  cublasComputeType_t compute;
  int tf32_allowed;             /* the handle's math mode lets FP32 products use TF32 */
  void *stream;
} cublas_product;

/* 1 when p is a product dlgemm computes the same way (real types it takes,
 * operands it can describe, a compute type that is its own arithmetic), with
 * call filled in; 0 when the rival must have it: odd types or compute
 * types, an illegal argument (the rival reports it), an empty product. */
int dlg_cublas_describe(const cublas_product *p, dlg_rival_call *call);

/* The operation code as dlgemm reads it: 0 N, 1 T (C of a real type), -1 other. */
int dlg_cublas_op(cublasOperation_t op);

#endif
