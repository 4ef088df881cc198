/*
 * recursive.h - LU and Cholesky on device memory, by recursion into the
 * GEMM kernels (recursive.c).
 */
#ifndef DLG_CUDA_RECURSIVE_H
#define DLG_CUDA_RECURSIVE_H

#include "core/gemm.h"
#include "cuda/device/device.h"

/* A matrix on the device: element (i, j) at p + (i*rs + j*cs) * element size. */
typedef struct dlg_dview {
  CUdeviceptr p;
  int64_t rows, cols, rs, cs;
} dlg_dview;

/* One factorization's launches: where they go and what they share.  The
 * first failure stops further launches and stays in err / status. */
typedef struct dlg_factor_run {
  dlg_cuda_device *dev;
  const dlg_cuda_api *cu;
  CUstream stream;
  dlg_dtype dtype;             /* DLG_F32 or DLG_F64 */
  dlgemm_precision precision;  /* of the float products (the shim's SGEMM policy) */
  CUdeviceptr ipiv, info;      /* int[min(m, n)], int: LAPACK's IPIV and INFO */
  CUdeviceptr work;            /* DLG_SYRK_LEAF^2 elements for SYRK's diagonal blocks */
  dlgemm_status status;
} dlg_factor_run;

/* SYRK's diagonal blocks are at most this order: the workspace it needs. */
enum { DLG_SYRK_LEAF = 256 };

/* A = P L U in place (column-major m x n view a), pivots and INFO as DGETRF
 * returns them.  Queued on run->stream, nothing synchronised. */
void dlg_cuda_getrf(dlg_factor_run *run, dlg_dview a);

/* The lower Cholesky factor of the n x n view a in place (the upper case is
 * the lower case of the transposed view); INFO as DPOTRF's.  Only the lower
 * triangle of the view is read or written. */
void dlg_cuda_potrf(dlg_factor_run *run, dlg_dview a);

#endif
