/*
 * launch.c - level3.cu's small kernels launched (launch.h).
 */
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/device/kernels.h"
#include "cuda/level3/launch.h"
#include "kernels/cuda/level3_args.h"

static int type_index(dlg_dtype t)
{
  return t == DLG_F32 ? 0 : t == DLG_F64 ? 1 : t == DLG_C64 ? 2 : 3;
}

void *dlg_l3_scalar_of(const dlg_factor_run *r, const double v[2], dlg_l3_scalar *s)
{
  if (dlg_real_of(r->dtype) == DLG_F32)
    s->f[0] = (float)v[0], s->f[1] = (float)v[1];
  else
    s->d[0] = v[0], s->d[1] = v[1];
  return s;
}

void dlg_l3_launch(dlg_factor_run *r, int kernel, int64_t rows, int64_t cols, int64_t batch,
                   void **params)
{
  const unsigned gy = (unsigned)(cols < 1 ? 1 : cols > 65535 ? 65535 : cols);
  if (r->status || (r->status = dlg_cuda_kernels(r->dev, DLG_KERNELS_LEVEL3))) return;
  dlg_l3_run_kernel(r, r->dev->level3[type_index(r->dtype)][kernel],
                    dlg_step_blocks(rows, DLG_L3_THREADS), gy, (unsigned)batch, DLG_L3_THREADS, 0,
                    params, 1);
}

void dlg_l3_run_kernel(dlg_factor_run *r, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                       unsigned threads, unsigned smem, void **params, int injectable)
{
  CUresult e;
  if (r->status) return;
  e = injectable && dlg_fault_injected(DLG_FAULT_LAUNCH)
          ? CUDA_ERROR_LAUNCH_FAILED
          : r->cu->LaunchKernel(f, gx, gy, gz, threads, 1, 1, smem, r->stream, params, NULL);
  if (e)
    r->status = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed: %s",
                         dlg_cuda_error(e));
}

int dlg_l3_readable(dlg_dview v, unsigned bytes)
{
  v = dlg_l3_settled(v);
  return (v.rs == 1 || v.cs == 1) && v.p % bytes == 0;
}

CUdeviceptr dlg_l3_scratch(dlg_factor_run *r, size_t bytes)
{
  CUdeviceptr p = 0;
  CUresult e;
  if (r->status) return 0;
  e = dlg_fault_injected(DLG_FAULT_OOM)
          ? CUDA_ERROR_OUT_OF_MEMORY
          : r->cu->MemAllocFromPoolAsync(&p, bytes, r->dev->pool, r->stream);
  if (e) {
    r->status = dlg_fail(e == CUDA_ERROR_OUT_OF_MEMORY ? DLGEMM_ERR_OUT_OF_MEMORY
                                                       : DLGEMM_ERR_BACKEND_FAILED,
                         "CUDA workspace of %zu bytes: %s", bytes, dlg_cuda_error(e));
    return 0;
  }
  return p;
}

void dlg_l3_release(dlg_factor_run *r, CUdeviceptr p)
{
  if (p) r->cu->MemFreeAsync(p, r->stream);
}

dlg_dview dlg_l3_settled(dlg_dview v)
{
  if (v.rows == 1) v.rs = 1;
  else if (v.cols == 1) v.cs = 1;
  return v;
}

dlg_l3_product dlg_l3_column_major(dlg_dview a, int64_t sa, int ca, dlg_dview b, int64_t sb,
                                   int cb, dlg_dview c)
{
  dlg_l3_product x = {dlg_l3_settled(a), dlg_l3_settled(b), dlg_l3_settled(c), sa, sb, ca, cb};
  if (x.o.rs != 1) {
    const dlg_l3_product t = x;
    x.f = dlg_l3_settled(dlg_step_transposed(t.g)), x.g = dlg_l3_settled(dlg_step_transposed(t.f));
    x.o = dlg_l3_settled(dlg_step_transposed(t.o));
    x.sf = t.sg, x.sg = t.sf, x.cf = t.cg, x.cg = t.cf;
  }
  return x;
}
