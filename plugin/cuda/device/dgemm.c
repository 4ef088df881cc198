/*
 * dgemm.c - from a dlg_gemm of doubles on device memory to launches of
 * the FP64 tensor-core kernel (kernels/cuda/dgemm_dmma.cu).
 *
 * One tile shape: the kernel exists for the host-array engine's large tiles
 * and for float64 tensors; what it needs to know is the orientation
 * (orient.h) and which operands allow 16-byte copies.
 */
#include <stdint.h>
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/device/dgemm.h"
#include "cuda/device/orient.h"

dlgemm_status dlg_cuda_dgemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  const long long zmax = 65535;
  dlg_operand op1, op2;
  dlg_dgemm_args a;
  int64_t m, n;
  long long b0;
  CUresult r = CUDA_SUCCESS;

  if (g->m > INT32_MAX || g->n > INT32_MAX || g->k > INT32_MAX)
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "m, n and k must each fit in 32 bits");
  dlg_orient(g, &op1, &op2, &m, &n);
  a.m = (int)m, a.n = (int)n, a.k = (int)g->k;
  /* alpha = 0 or k = 0: C = beta * C without reading A or B (BLAS semantics). */
  if (g->alpha == 0) a.k = 0;
  a.alpha = g->alpha, a.beta = g->beta;
  a.a = (const double *)op1.data, a.lda = op1.ld, a.sa = op1.bs, a.vec_a = op1.vec;
  a.b = (const double *)op2.data, a.ldb = op2.ld, a.sb = op2.bs, a.vec_b = op2.vec;
  a.c = (double *)g->c.data, a.ldc = dlg_ld(&g->c), a.sc = g->c.bs;
  for (b0 = 0; b0 < g->batch && !r; b0 += zmax) {
    dlg_dgemm_args p = a;
    void *params[] = {&p};
    long long nb = g->batch - b0 < zmax ? g->batch - b0 : zmax;
    p.a += b0 * p.sa, p.b += b0 * p.sb, p.c += b0 * p.sc;
    r = cu->LaunchKernel(dev->dgemm[op1.kc * 2 + op2.kc],
                         (unsigned)((p.m + DLG_DGEMM_BM - 1) / DLG_DGEMM_BM),
                         (unsigned)((p.n + DLG_DGEMM_BN - 1) / DLG_DGEMM_BN), (unsigned)nb,
                         DLG_DGEMM_THREADS, 1, 1, DLG_DGEMM_SMEM, stream, params, NULL);
  }
  if (r)
    return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed: %s", dlg_cuda_error(r));
  return DLGEMM_OK;
}
