/*
 * offload.c - a level-3 routine on host arrays, on the GPU: the matrices
 * it reads copied over once (through the host-array engine's pinned chunks
 * and copy threads), the routine on the device (blas3.c), the matrix it
 * writes copied back.  C goes over only where the routine reads it (beta
 * not 0, TRMM's and TRSM's B, the rank-k updates' other triangle, which
 * must come back as it was).
 *
 * Failure.  Before the copy back nothing of the caller's is written: a
 * failure returns a status and the shim hands the call to the next BLAS.
 * A failure during the copy back cannot be undone; it is reported on
 * stderr (the caller's matrix is incomplete).
 */
#include <stdio.h>
#include "core/calllog.h"
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/device.h"
#include "cuda/device/driver.h"
#include "cuda/hostarray/engine.h"
#include "cuda/level3/blas3.h"
#include "cuda/level3/offload.h"

static dlgemm_status cuda_failed(const char *step, CUresult r)
{
  return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA %s failed: %s", step, dlg_cuda_error(r));
}

/* One matrix of the call: the host's, its device copy. */
typedef struct mat {
  const void *host;
  int64_t ld, rows, cols;
  int in;       /* copied to the device */
  dlg_dview dev;
} mat;

static mat host_mat(const void *p, int64_t ld, int64_t rows, int64_t cols, int in)
{
  mat m = {p, ld, rows, cols, in, {0, rows, cols, 1, (rows + 31) / 32 * 32}};
  return m;
}

static size_t bytes_of(const mat *m, size_t es)
{
  return ((size_t)m->dev.cs * (size_t)m->cols * es + 255) / 256 * 256;
}

/* The call's matrices as it reads them: A, B, C (TRMM / TRSM: B), W. */
static void shapes(const dlg_level3 *x, mat *m)
{
  const int64_t na = dlg_level3_a_order(x);
  const int c_in = x->beta[0] != 0 || x->beta[1] != 0;
  switch (x->kind) {
  case DLG_L3_GEMM:
    m[0] = host_mat(x->a, x->lda, x->transa == 'N' ? x->m : x->k, x->transa == 'N' ? x->k : x->m, 1);
    m[1] = host_mat(x->b, x->ldb, x->transb == 'N' ? x->k : x->n, x->transb == 'N' ? x->n : x->k, 1);
    m[2] = host_mat(x->c, x->ldc, x->m, x->n, c_in);
    break;
  case DLG_L3_SYMM:
  case DLG_L3_HEMM:
    m[0] = host_mat(x->a, x->lda, na, na, 1);
    m[1] = host_mat(x->b, x->ldb, x->m, x->n, 1);
    m[2] = host_mat(x->c, x->ldc, x->m, x->n, c_in);
    break;
  case DLG_L3_TRMM:
  case DLG_L3_TRSM:
    m[0] = host_mat(x->a, x->lda, na, na, 1);
    m[2] = host_mat(x->c, x->ldc, x->m, x->n, 1);
    if (x->kind == DLG_L3_TRMM) m[3] = host_mat(x->c, x->ldc, x->m, x->n, 0);
    break;
  default: { /* rank-k: op(A), op(B) n x k */
    const int64_t r = x->transa == 'N' ? x->n : x->k, c = x->transa == 'N' ? x->k : x->n;
    m[0] = host_mat(x->a, x->lda, r, c, 1);
    if (x->kind == DLG_L3_SYR2K || x->kind == DLG_L3_HER2K) m[1] = host_mat(x->b, x->ldb, r, c, 1);
    m[2] = host_mat(x->c, x->ldc, x->n, x->n, 1);
  }
  }
}

static dlgemm_status copy(dlg_cuda_device *dev, const mat *m, void *host, size_t es, int to_device,
                          CUstream s)
{
  if (!m->rows || !m->cols) return DLGEMM_OK;
  return dlg_cuda_offload_matrix(dev, host, m->ld, m->dev.p, m->dev.cs, m->rows, m->cols, es,
                                 to_device, s);
}

static dlgemm_status run(dlg_level3 *x, dlg_cuda_device *dev, const dlg_cuda_api *cu, CUstream s)
{
  const size_t es = dlg_elem_size(x->dtype);
  mat m[4] = {{0}};
  const int out = x->kind == DLG_L3_TRMM ? 3 : 2;
  dlg_factor_run r = {0};
  CUdeviceptr base = 0;
  size_t total = 0;
  dlgemm_status st = DLGEMM_OK;
  CUresult e;
  double t0 = dlg_now(), t1 = 0, t2 = 0;
  int i;

  shapes(x, m);
  for (i = 0; i < 4; i++) total += bytes_of(&m[i], es);
  e = dlg_fault_injected(DLG_FAULT_OOM) ? CUDA_ERROR_OUT_OF_MEMORY
                                         : cu->MemAllocFromPoolAsync(&base, total, dev->pool, s);
  if (e) return cuda_failed("allocation", e);
  for (i = 0, total = 0; i < 4; i++) {
    m[i].dev.p = base + total;
    total += bytes_of(&m[i], es);
    if (m[i].in && !st) st = copy(dev, &m[i], (void *)m[i].host, es, 1, s);
  }
  if (!st) {
    r.dev = dev, r.cu = cu, r.stream = s, r.dtype = x->dtype;
    r.precision = dlg_real_of(x->dtype) == DLG_F32 ? dlg_config_get()->fp32_mode
                                                   : DLGEMM_PRECISION_STRICT;
    t1 = dlg_now();
    dlg_cuda_blas3(&r, x, m[0].dev, m[1].dev, m[2].dev, m[3].dev);
    st = r.status;
    if (!st && (e = cu->StreamSynchronize(s))) st = cuda_failed("computation", e);
    t2 = dlg_now();
    if (!st && copy(dev, &m[out], x->c, es, 0, s)) {
      /* The caller's matrix may be half written: no fallback can undo it. */
      fprintf(stderr, "dlgemm: %s: copying the result back failed (%s); it is incomplete\n",
              x->origin, dlgemm_last_error());
    } else if (!st && dlg_config_get()->verbose) {
      dlg_note("copy in %.1f ms, compute %.1f ms, copy out %.1f ms", (t1 - t0) * 1e3,
               (t2 - t1) * 1e3, (dlg_now() - t2) * 1e3);
    }
  }
  cu->MemFreeAsync(base, s);
  cu->StreamSynchronize(s);
  return st;
}

dlgemm_status dlg_cuda_level3(dlg_level3 *x)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  dlg_cuda_device *dev = cu ? dlg_cuda_device_get(0) : NULL;
  CUstream s;
  CUresult e;
  dlgemm_status st;
  if (!cu) return dlg_fail(DLGEMM_ERR_NO_BACKEND, "%s", why);
  if (!dev) return DLGEMM_ERR_NO_BACKEND;
  if ((e = cu->CtxPushCurrent(dev->ctx))) return cuda_failed("context", e);
  if ((e = cu->StreamCreate(&s, CU_STREAM_NON_BLOCKING))) {
    st = cuda_failed("stream creation", e);
  } else {
    st = run(x, dev, cu, s);
    cu->StreamDestroy(s);
  }
  cu->CtxPopCurrent(NULL);
  return st;
}

void dlg_cuda_level3_bytes(const dlg_level3 *x, double *in, double *out)
{
  const size_t es = dlg_elem_size(x->dtype);
  mat m[4] = {{0}};
  int i;
  shapes(x, m);
  *in = 0;
  for (i = 0; i < 3; i++)
    if (m[i].in) *in += (double)m[i].rows * (double)m[i].cols * (double)es;
  *out = (double)x->m * (double)x->n * (double)es;
}
