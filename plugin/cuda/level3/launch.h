/*
 * launch.h - level3.cu's small kernels as the level-3 code launches them
 * (launch.c): over rows x cols of a batch, on the run's stream, with the
 * run's scalars and the device pool's scratch.
 */
#ifndef DLG_CUDA_LEVEL3_LAUNCH_H
#define DLG_CUDA_LEVEL3_LAUNCH_H

#include <stddef.h>
#include <stdint.h>
#include "cuda/lapack/steps.h"

/* A scalar kernel argument of the run's type (complex: two parts). */
typedef union dlg_l3_scalar {
  float f[2];
  double d[2];
} dlg_l3_scalar;

void *dlg_l3_scalar_of(const dlg_factor_run *r, const double v[2], dlg_l3_scalar *s);

/* level3.cu's kernel (DLG_L3_*, of the run's type) over rows x cols
 * (threads over rows, blocks over columns, at most 65535 of them: the
 * kernels step by the grid), for each of `batch` entries (blockIdx.z:
 * 65535 at most); the run's status says a failure. */
void dlg_l3_launch(dlg_factor_run *r, int kernel, int64_t rows, int64_t cols, int64_t batch,
                   void **params);

/* Kernel f over gx x gy x gz blocks of `threads` on the run's stream,
 * with smem bytes of dynamic shared memory; its failure (or, where
 * `injectable`, one DLGEMM_FAULT injects) in r->status; nothing once the
 * run has failed. */
void dlg_l3_run_kernel(dlg_factor_run *r, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                       unsigned threads, unsigned smem, void **params, int injectable);

/* v's elements each at a multiple of `bytes` and one of its strides 1
 * (the complex kernels' copiers read whole elements along it). */
int dlg_l3_readable(dlg_dview v, unsigned bytes);

/* Stream-ordered scratch from the device's pool (0 once the run failed),
 * and its return. */
CUdeviceptr dlg_l3_scratch(dlg_factor_run *r, size_t bytes);
void dlg_l3_release(dlg_factor_run *r, CUdeviceptr p);

/* v with a unit stride along a dimension of one element (any stride does
 * there), so that a vector is a column or a row as its other stride says. */
dlg_dview dlg_l3_settled(dlg_dview v);

/* o = alpha op(f)' op(g)' + beta o, f's and g's batch strides sf and sg,
 * conjugated where cf and cg: a product as the in-place complex kernels
 * take it, C column-major (where c is row-major, the transposed problem
 * C^T = op(B)^T op(A)^T), every view settled. */
typedef struct dlg_l3_product {
  dlg_dview f, g, o;
  int64_t sf, sg;
  int cf, cg;
} dlg_l3_product;

dlg_l3_product dlg_l3_column_major(dlg_dview a, int64_t sa, int ca, dlg_dview b, int64_t sb,
                                   int cb, dlg_dview c);

#endif
