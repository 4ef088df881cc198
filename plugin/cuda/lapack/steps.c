/*
 * steps.c - views, products and launches for the GPU factorizations
 * (steps.h): the part recursive.c and qr.c share.
 */
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/device/gemm.h"
#include "cuda/device/kernels.h"
#include "cuda/lapack/steps.h"
#include "kernels/cuda/lapack_args.h"

dlg_dview dlg_step_sub(const dlg_factor_run *r, dlg_dview v, int64_t i, int64_t j, int64_t rows,
                       int64_t cols)
{
  dlg_dview s = v;
  s.p = v.p + (CUdeviceptr)((i * v.rs + j * v.cs) * (int64_t)dlg_elem_size(r->dtype));
  s.rows = rows, s.cols = cols;
  return s;
}

int64_t dlg_step_split(int64_t n)
{
  const int64_t leaf = DLG_LAPACK_LEAF, h = (n / 2 + leaf - 1) / leaf * leaf;
  return n >= 2 * leaf ? (h < n ? h : n - leaf) : n / 2;
}

static void launch_failed(dlg_factor_run *r, CUresult e)
{
  r->status = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed: %s", dlg_cuda_error(e));
}

/* The run's kernel where it can still launch (NULL: it has failed, or
 * the kernels do not load); an injected launch fault fails it here. */
static CUfunction launchable(dlg_factor_run *r, int kernel)
{
  if (r->status || (r->status = dlg_cuda_kernels(r->dev, DLG_KERNELS_LAPACK))) return NULL;
  if (dlg_fault_injected(DLG_FAULT_LAUNCH)) {
    launch_failed(r, CUDA_ERROR_LAUNCH_FAILED);
    return NULL;
  }
  return r->dev->lapack[r->dtype == DLG_F64][kernel];
}

void dlg_step_launch(dlg_factor_run *r, int kernel, unsigned gx, unsigned gy, unsigned threads,
                     void **params)
{
  const CUfunction f = launchable(r, kernel);
  CUresult e;
  if (f && (e = r->cu->LaunchKernel(f, gx, gy, 1, threads, 1, 1, 0, r->stream, params, NULL)))
    launch_failed(r, e);
}

CUresult dlg_step_launch_together(dlg_factor_run *r, int kernel, unsigned blocks, unsigned threads,
                                  void **params)
{
  const unsigned grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
  const CUfunction f = launchable(r, kernel);
  /* refused (more blocks than fit at once, a driver without cooperative
   * launches): nothing queued, the caller's other way instead */
  return f ? dlg_cuda_launch_together(r->cu, f, grid, block, 0, r->stream, params) : CUDA_SUCCESS;
}

static dlg_matrix matrix_of(dlg_dview v, int64_t batch_stride)
{
  dlg_matrix x = {(void *)(uintptr_t)v.p, v.rows, v.cols, v.rs, v.cs, batch_stride};
  return x;
}

void dlg_step_gemm(dlg_factor_run *r, double alpha, dlg_dview a, dlg_dview b, double beta,
                   dlg_dview c)
{
  dlg_step_gemm_batch(r, alpha, a, 0, b, 0, beta, c, 0, 1);
}

void dlg_step_gemm_batch(dlg_factor_run *r, double alpha, dlg_dview a, int64_t sa, dlg_dview b,
                         int64_t sb, double beta, dlg_dview c, int64_t sc, int64_t batch)
{
  dlg_gemm g;
  if (r->status || !c.rows || !c.cols || !batch || (!a.cols && beta == 1)) return;
  memset(&g, 0, sizeof g);
  g.dtype = g.dtype_in = r->dtype;
  g.place = DLG_CUDA;
  g.device_id = r->dev->ordinal;
  g.m = c.rows, g.n = c.cols, g.k = a.cols, g.batch = batch;
  g.alpha = alpha, g.beta = beta;
  g.a = matrix_of(a, sa), g.b = matrix_of(b, sb), g.c = matrix_of(c, sc);
  g.precision = r->dtype == DLG_F32 ? r->precision : DLGEMM_PRECISION_STRICT;
  g.stream = (void *)r->stream;
  g.origin = "lapack";
  r->status = dlg_cuda_gemm(r->dev, &g, r->stream);
}
