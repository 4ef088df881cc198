/*
 * cuda_host.c - a dlg_gemm on host memory through one GPU: copy in,
 * compute, copy out, synchronise.  (The pipelined engine that overlaps these
 * is separate work; this is the plain, correct path.)
 *
 * Operands are staged compactly (leading dimension = the contiguous extent)
 * with 2-D copies, so the padding of the caller's matrices is never read or
 * written, and C's rows beyond m keep whatever the caller had there.  With
 * beta = 0, C is not copied in: the kernel does not read it.  A broadcast
 * operand (batch stride 0) is copied once.  C is written back only after the
 * kernel finished without error; until that last copy the caller's C is
 * untouched, so a failure before it can fall back to the CPU safely.
 */
#include <string.h>
#include "cuda_device.h"
#include "errors.h"

/* Bytes of the compact copy of one matrix, rounded up for alignment. */
static size_t compact_bytes(const dlg_matrix *x, int64_t batch)
{
  size_t one = (size_t)(x->rows * x->cols) * 4;
  return ((x->bs ? (size_t)batch : 1) * one + 255) / 256 * 256;
}

/* One 2-D copy per batch entry between the caller's view and the compact
 * device copy at dev_base. */
static CUresult copy(const dlg_cuda_api *cu, const dlg_matrix *x, int64_t batch,
                     CUdeviceptr dev_base, int to_device, CUstream s)
{
  const int colmajor = dlg_is_colmajor(x);
  const size_t width = (size_t)(colmajor ? x->rows : x->cols) * 4;
  const size_t height = (size_t)(colmajor ? x->cols : x->rows);
  const size_t pitch = (size_t)dlg_ld(x) * 4;
  int64_t p, n = x->bs ? batch : 1;
  CUresult r = CUDA_SUCCESS;
  for (p = 0; p < n && !r; p++) {
    CUDA_MEMCPY2D c;
    char *host = (char *)x->data + (size_t)(p * x->bs) * 4;
    CUdeviceptr d = dev_base + (CUdeviceptr)(p * (int64_t)(width * height));
    memset(&c, 0, sizeof c);
    c.WidthInBytes = width;
    c.Height = height;
    if (to_device) {
      c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = host, c.srcPitch = pitch;
      c.dstMemoryType = CU_MEMORYTYPE_DEVICE, c.dstDevice = d, c.dstPitch = width;
    } else {
      c.srcMemoryType = CU_MEMORYTYPE_DEVICE, c.srcDevice = d, c.srcPitch = width;
      c.dstMemoryType = CU_MEMORYTYPE_HOST, c.dstHost = host, c.dstPitch = pitch;
    }
    r = cu->Memcpy2DAsync(&c, s);
  }
  return r;
}

/* The device view of x: same orientation, compact, at base. */
static dlg_matrix on_device(const dlg_matrix *x, CUdeviceptr base)
{
  dlg_matrix d = *x;
  const int colmajor = dlg_is_colmajor(x);
  d.data = (void *)(uintptr_t)base;
  d.rs = colmajor ? 1 : x->cols;
  d.cs = colmajor ? (x->rows > 1 ? x->rows : 1) : 1;
  if (!colmajor && x->cols <= 1) d.rs = 1, d.cs = x->rows > 1 ? x->rows : 1; /* a column */
  d.bs = x->bs ? x->rows * x->cols : 0;
  return d;
}

dlgemm_status dlg_cuda_sgemm_host(dlg_cuda_device *dev, const dlg_gemm *g)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  size_t na = compact_bytes(&g->a, g->batch), nb = compact_bytes(&g->b, g->batch);
  size_t nc = compact_bytes(&g->c, g->batch), need = na + nb + nc;
  dlg_gemm d = *g;
  dlgemm_status st = DLGEMM_OK;
  const char *step = "context";
  CUresult r;

  pthread_mutex_lock(&dev->lock);
  if ((r = cu->CtxPushCurrent(dev->ctx))) goto out_unlocked_ctx;
  if (dev->staging_size < need) {
    step = "device allocation";
    if (dev->staging) cu->MemFree(dev->staging);
    dev->staging = 0, dev->staging_size = 0;
    if ((r = cu->MemAlloc(&dev->staging, need))) goto out;
    dev->staging_size = need;
  }
  d.place = DLG_CUDA;
  d.a = on_device(&g->a, dev->staging);
  d.b = on_device(&g->b, dev->staging + na);
  d.c = on_device(&g->c, dev->staging + na + nb);
  step = "copy to device";
  if ((r = copy(cu, &g->a, g->batch, dev->staging, 1, dev->stream)) ||
      (r = copy(cu, &g->b, g->batch, dev->staging + na, 1, dev->stream)) ||
      (g->beta != 0 && (r = copy(cu, &g->c, g->batch, dev->staging + na + nb, 1, dev->stream))))
    goto out;
  if ((st = dlg_cuda_sgemm(dev, &d, dev->stream))) goto out;
  step = "kernel";
  if ((r = cu->StreamSynchronize(dev->stream))) goto out;
  step = "copy to host";
  if ((r = copy(cu, &g->c, g->batch, dev->staging + na + nb, 0, dev->stream)) ||
      (r = cu->StreamSynchronize(dev->stream)))
    goto out;
out:
  cu->CtxPopCurrent(NULL);
out_unlocked_ctx:
  pthread_mutex_unlock(&dev->lock);
  if (r) st = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA %s failed: %s", step, dlg_cuda_error(r));
  return st;
}
