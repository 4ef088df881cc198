/*
 * offload.c - a factorization of a host array on the GPU: one copy of the
 * matrix in, the whole recursion on the device (recursive.c), one copy of
 * the factors, pivots (or TAU) and INFO out.  The copies go through the host-array
 * engine's pinned chunks and copy threads (dlg_cuda_offload_matrix): one
 * memcpy thread staging pageable memory would take 0.25 s each way for a
 * 2 GB matrix.
 *
 * The matrix crosses the link twice per call instead of twice per block
 * column, which is what LAPACK's blocked algorithms cost when only their
 * GEMMs are intercepted.  Nothing stays resident between calls, so a host
 * write between two calls (in place, by memcpy, from another thread) is
 * simply read by the next one: there is no copy to keep coherent.
 *
 * Failure.  The caller's arrays are written only after the factorization
 * finished on the device without error.  Any earlier failure (no memory, a
 * launch, a copy in; DLGEMM_INJECT_FAULT makes them happen) returns a status
 * with the caller's matrix untouched, and the shim hands the call to the
 * next LAPACK, whose answer is then exactly the reference's.  Cholesky of a
 * matrix that is not positive definite goes the same way: the reference
 * leaves a partial factor whose content only its own order of operations
 * defines, so the next LAPACK writes it.  A failure while the factors are
 * copied back (the caller's matrix then half written) cannot be undone: it
 * is reported on stderr and as INFO = -1.
 */
#include <stdio.h>
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/device.h"
#include "cuda/device/driver.h"
#include "core/calllog.h"
#include "cuda/hostarray/engine.h"
#include "cuda/lapack/offload.h"
#include "cuda/lapack/qr.h"
#include "cuda/lapack/recursive.h"

static dlgemm_status cuda_failed(const char *step, CUresult r)
{
  return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA %s failed: %s", step, dlg_cuda_error(r));
}

/* The device part of the call: allocate, copy in, factor, copy back. */
static dlgemm_status run(dlg_factor *f, dlg_cuda_device *dev, const dlg_cuda_api *cu, CUstream s)
{
  const size_t es = dlg_elem_size(f->dtype);
  const int64_t k = f->m < f->n ? f->m : f->n, ld = (f->m + 31) / 32 * 32;
  /* what comes back besides the matrix: GETRF's IPIV, GEQRF's TAU */
  void *const vec = f->kind == DLG_GETRF ? (void *)f->ipiv : f->tau;
  const size_t vbytes = f->kind == DLG_GETRF ? (size_t)k * 4 : f->kind == DLG_GEQRF ? k * es : 0;
  /* A, then INFO and that vector, then the workspace, each 256-byte aligned */
  const size_t abytes = ((size_t)ld * (size_t)f->n * es + 255) / 256 * 256;
  const size_t ibytes = (vbytes + 256 + 255) / 256 * 256;
  const size_t wbytes = f->kind == DLG_POTRF   ? (size_t)DLG_SYRK_LEAF * DLG_SYRK_LEAF * es
                        : f->kind == DLG_GEQRF ? dlg_cuda_geqrf_work(f->m, f->n, es)
                                               : 0;
  dlg_factor_run r = {0};
  CUdeviceptr base = 0;
  CUresult e;
  dlgemm_status st;
  int info = 0;
  double t0 = dlg_now(), t1 = 0, t2 = 0;

  /* from the device's pool, as the GEMM workspaces: no cuMemAlloc (which
   * synchronises the device and maps gigabytes anew) per call */
  e = dlg_fault_injected(DLG_FAULT_OOM)
          ? CUDA_ERROR_OUT_OF_MEMORY
          : cu->MemAllocFromPoolAsync(&base, abytes + ibytes + wbytes, dev->pool, s);
  if (e) return cuda_failed("allocation", e);
  r.dev = dev, r.cu = cu, r.stream = s, r.dtype = f->dtype;
  r.precision = f->dtype == DLG_F32 ? dlg_config_get()->fp32_mode : DLGEMM_PRECISION_STRICT;
  r.info = base + abytes, r.ipiv = r.tau = r.info + 256, r.work = base + abytes + ibytes;
  if ((e = cu->MemsetD32Async(r.info, 0, 1, s))) {
    st = cuda_failed("memset", e);
  } else if (!(st = dlg_cuda_offload_matrix(dev, f->a, f->lda, base, ld, f->m, f->n, es, 1, s))) {
    t1 = dlg_now();
    dlg_dview a = {base, f->m, f->n, 1, ld};
    if (f->kind == DLG_GETRF) {
      dlg_cuda_getrf(&r, a);
    } else if (f->kind == DLG_GEQRF) {
      dlg_cuda_geqrf(&r, a);
    } else {
      dlg_dview t = {base, f->n, f->n, ld, 1};
      dlg_cuda_potrf(&r, f->lower ? a : t); /* U^T U: the lower case of A^T */
    }
    st = r.status;
    if (!st && ((e = cu->MemcpyDtoHAsync(&info, r.info, sizeof info, s)) ||
                (e = cu->StreamSynchronize(s))))
      st = cuda_failed("factorization", e);
    if (!st && info > 0 && f->kind == DLG_POTRF)
      st = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "INFO=%d, not positive definite: the next "
                    "LAPACK writes the reference's partial factor", info);
    t2 = dlg_now();
    if (!st && ((vbytes && ((e = cu->MemcpyDtoHAsync(vec, f->kind == DLG_GETRF ? r.ipiv : r.tau,
                                                      vbytes, s)) ||
                            (e = cu->StreamSynchronize(s)))) ||
                dlg_cuda_offload_matrix(dev, f->a, f->lda, base, ld, f->m, f->n, es, 0, s))) {
      /* The caller's matrix may be half written: no fallback can undo it. */
      fprintf(stderr, "dlgemm: %s: copying the factors back failed (%s); the result is "
              "incomplete\n", f->origin, e ? dlg_cuda_error(e) : dlgemm_last_error());
      f->info = -1;
      st = DLGEMM_OK;
    } else if (!st) {
      f->info = info;
      if (dlg_config_get()->verbose)
        dlg_note("copy in %.1f ms, factor %.1f ms, copy out %.1f ms", (t1 - t0) * 1e3,
                 (t2 - t1) * 1e3, (dlg_now() - t2) * 1e3);
    }
  }
  cu->MemFreeAsync(base, s);
  cu->StreamSynchronize(s);
  return st;
}

dlgemm_status dlg_cuda_factor(dlg_factor *f)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  dlg_cuda_device *dev = cu ? dlg_cuda_device_get(0) : NULL;
  CUstream s;
  CUresult e;
  dlgemm_status st;
  if (!cu) return dlg_fail(DLGEMM_ERR_NO_BACKEND, "%s", why);
  if (!dev) return DLGEMM_ERR_NO_BACKEND;
  if (f->m > 0x7fffffff || f->n > 0x7fffffff)
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "m and n must fit in 32 bits");
  if ((e = cu->CtxPushCurrent(dev->ctx))) return cuda_failed("context", e);
  if ((e = cu->StreamCreate(&s, CU_STREAM_NON_BLOCKING))) {
    st = cuda_failed("stream creation", e);
  } else {
    st = run(f, dev, cu, s);
    cu->StreamDestroy(s);
  }
  cu->CtxPopCurrent(NULL);
  return st;
}

int dlg_cuda_factor_pays(const dlg_factor *f, char *why, size_t why_len)
{
  /* QR's panels are launch-bound (about ten launches a column): at
   * n = 384 it ran at 0.93x netlib on one core, from 512 at 1.4x and up */
  const double min_n = dlg_config_get()->lapack_min_n * (f->kind == DLG_GEQRF ? 4.0 / 3 : 1);
  const int64_t k = f->m < f->n ? f->m : f->n;
  const int pays = (double)k >= min_n;
  /* formatted for the verbose log only: every small call asks */
  if (dlg_config_get()->verbose)
    snprintf(why, why_len, "min(m,n) %s DLGEMM_LAPACK_MIN_N=%.0f", pays ? ">=" : "<", min_n);
  else
    dlg_copy_text(why, why_len, pays ? "large enough" : "below DLGEMM_LAPACK_MIN_N");
  return pays;
}
