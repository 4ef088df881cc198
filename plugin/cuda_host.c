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
#include "staging.h"

/* Each batch entry of x between the caller's view and the compact device
 * copy at dev_base (staging.h). */
static CUresult copy(const dlg_cuda_api *cu, const dlg_matrix *x, int64_t batch,
                     CUdeviceptr dev_base, int to_device, CUstream s)
{
  int64_t p, n = dlg_staged_entries(x, batch);
  CUresult r = CUDA_SUCCESS;
  for (p = 0; p < n && !r; p++) {
    dlg_copy2d g = dlg_staged_copy(x, p, 4);
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.WidthInBytes = g.width;
    c.Height = g.height;
    if (to_device) {
      c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = g.host, c.srcPitch = g.pitch;
      c.dstMemoryType = CU_MEMORYTYPE_DEVICE, c.dstDevice = dev_base + g.dev_offset;
      c.dstPitch = g.width;
    } else {
      c.srcMemoryType = CU_MEMORYTYPE_DEVICE, c.srcDevice = dev_base + g.dev_offset;
      c.srcPitch = g.width;
      c.dstMemoryType = CU_MEMORYTYPE_HOST, c.dstHost = g.host, c.dstPitch = g.pitch;
    }
    r = cu->Memcpy2DAsync(&c, s);
  }
  return r;
}

dlgemm_status dlg_cuda_sgemm_host(dlg_cuda_device *dev, const dlg_gemm *g)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  size_t na = dlg_staged_bytes(&g->a, g->batch, 4), nb = dlg_staged_bytes(&g->b, g->batch, 4);
  size_t nc = dlg_staged_bytes(&g->c, g->batch, 4), need = na + nb + nc;
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
  d.a = dlg_staged_view(&g->a, dev->staging);
  d.b = dlg_staged_view(&g->b, dev->staging + na);
  d.c = dlg_staged_view(&g->c, dev->staging + na + nb);
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
