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

/* Stream-ordered scratch from the device's pool (0 once the run failed),
 * and its return. */
CUdeviceptr dlg_l3_scratch(dlg_factor_run *r, size_t bytes);
void dlg_l3_release(dlg_factor_run *r, CUdeviceptr p);

#endif
