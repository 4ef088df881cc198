/*
 * sgemm_generic.hip - the GCN route's generic kernel: one work-item per
 * element of C, any strides, any size.  It takes what the SGPR-broadcast
 * kernel (sgemm_sgpr.S) does not: the rows past the last multiple of
 * 64, layouts other than column-major A and B, alpha = 0 and k = 0.
 * BUILT ONLY: no AMD GPU exists where this project is developed.
 */
#include <hip/hip_runtime.h>
extern "C" {
#include "gcn_args.h"
}

extern "C" __global__ __launch_bounds__(DLG_GCN_GENERIC_BLOCK * DLG_GCN_GENERIC_BLOCK)
void dlg_gcn_sgemm_generic(dlg_gcn_generic_args p)
{
  const int i = blockIdx.x * DLG_GCN_GENERIC_BLOCK + threadIdx.x;
  const int j = blockIdx.y * DLG_GCN_GENERIC_BLOCK + threadIdx.y;
  if (i >= p.m || j >= p.n) return;
  const float *a = p.a + blockIdx.z * p.ab + i * p.ar;
  const float *b = p.b + blockIdx.z * p.bb + j * p.bc;
  float *c = p.c + blockIdx.z * p.cb + i * p.cr + j * p.cc;
  float sum = 0.f;
  /* alpha = 0 or k = 0: BLAS reads neither A nor B (an Inf there must not
   * become a NaN in C). */
  if (p.alpha != 0.f)
    for (int l = 0; l < p.k; l++) sum = fmaf(a[l * p.ac], b[l * p.br], sum);
  const float ab = p.alpha != 0.f && p.k ? p.alpha * sum : 0.f;
  *c = p.beta != 0.f ? fmaf(p.beta, *c, ab) : ab; /* beta = 0: C is not read */
}
