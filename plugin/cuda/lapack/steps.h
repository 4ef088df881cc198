/*
 * steps.h - what the GPU factorizations are made of (recursive.c, qr.c):
 * views of device matrices, the GEMM kernels on them, and launches of
 * lapack.cu's small kernels, all queued on one run's stream, the first
 * failure kept and every later step skipped.
 */
#ifndef DLG_CUDA_LAPACK_STEPS_H
#define DLG_CUDA_LAPACK_STEPS_H

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
  CUdeviceptr tau;             /* GEQRF: min(m, n) elements, LAPACK's TAU */
  CUdeviceptr work;            /* POTRF: DLG_SYRK_LEAF^2 elements for SYRK's diagonal
                                * blocks; GEQRF: dlg_cuda_geqrf_work bytes; GETRF:
                                * dlg_cuda_getrf_work bytes (or 0) */
  dlgemm_status status;
} dlg_factor_run;

/* The rows x cols block of v at (i, j). */
dlg_dview dlg_step_sub(const dlg_factor_run *r, dlg_dview v, int64_t i, int64_t j, int64_t rows,
                       int64_t cols);

static inline dlg_dview dlg_step_transposed(dlg_dview v)
{
  dlg_dview t = {v.p, v.cols, v.rows, v.cs, v.rs};
  return t;
}

/* Where to cut n: near the middle, on a multiple of DLG_LAPACK_LEAF once
 * that is possible, so that leaves are exactly that wide and every block the
 * GEMM kernels see starts 32 elements from the previous one (16-byte aligned
 * operands keep their wide loads). */
int64_t dlg_step_split(int64_t n);

/* c = alpha a b + beta c on our GEMM kernels (a.cols == b.rows). */
void dlg_step_gemm(dlg_factor_run *r, double alpha, dlg_dview a, dlg_dview b, double beta,
                   dlg_dview c);
/* The same for `batch` entries in one call, entry p of each view p times
 * its stride (elements) on; a stride of 0 gives every entry the same
 * matrix (c's must not be 0 unless batch is 1). */
void dlg_step_gemm_batch(dlg_factor_run *r, double alpha, dlg_dview a, int64_t sa, dlg_dview b,
                         int64_t sb, double beta, dlg_dview c, int64_t sc, int64_t batch);

/* lapack.cu's kernel (DLG_LU_COLUMN...) of the run's precision. */
void dlg_step_launch(dlg_factor_run *r, int kernel, unsigned gx, unsigned gy, unsigned threads,
                     void **params);

/* The same on a grid whose blocks all run at once (lapack.cu's lu_panel:
 * its blocks wait for each other).  0 where it was queued, or where the run
 * has failed (r->status says so); else the driver's refusal, nothing
 * queued and the run as it was, for the caller to do the work another
 * way. */
CUresult dlg_step_launch_together(dlg_factor_run *r, int kernel, unsigned blocks, unsigned threads,
                                  void **params);

/* Blocks of `per` threads to cover n. */
static inline unsigned dlg_step_blocks(int64_t n, int per) { return (unsigned)((n + per - 1) / per); }

#endif
