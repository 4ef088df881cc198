/*
 * offload.c - a factorization of a host array on the GPU (the first device
 * of host-array calls, hostarray/slots.h): one copy of the matrix in, the
 * whole recursion on the device (recursive.c, qr.c), one copy of the
 * factors, pivots (or TAU) and INFO out.  ORMQR likewise: A's
 * reflectors, TAU and C in, C out.  The copies go through the host-array
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
#include "cuda/hostarray/slots.h"
#include "cuda/lapack/offload.h"
#include "cuda/lapack/qr.h"
#include "cuda/lapack/recursive.h"

static dlgemm_status cuda_failed(const char *step, CUresult r)
{
  return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA %s failed: %s", step, dlg_cuda_error(r));
}

/* A host matrix and its copy on the device. */
typedef struct mat_copy {
  void *host;
  int64_t ld, rows, cols;
  CUdeviceptr dev;
  int64_t dld;
} mat_copy;

static size_t round256(size_t b) { return (b + 255) / 256 * 256; }

/* Through the engine of slot 0, the first device of host-array calls
 * (hostarray/slots.h): the one the factorization runs on. */
static dlgemm_status copy(const mat_copy *x, size_t es, int to_device, CUstream s)
{
  return dlg_cuda_offload_matrix(0, x->host, x->ld, x->dev, x->dld, x->rows, x->cols, es,
                                 to_device, s);
}

static size_t work_bytes(const dlg_factor *f, size_t es)
{
  switch (f->kind) {
  case DLG_POTRF: return (size_t)DLG_SYRK_LEAF * DLG_SYRK_LEAF * es;
  case DLG_GETRF: return dlg_cuda_getrf_work(f->m, f->n, es);
  case DLG_GEQRF: return dlg_cuda_geqrf_work(f->m, f->n, es);
  case DLG_ORMQR: return dlg_cuda_ormqr_work(f->m, f->n, f->right, es);
  default: return 0;
  }
}

/* The device part of the call: allocate, copy in, compute, copy back. */
static dlgemm_status run(dlg_factor *f, dlg_cuda_device *dev, const dlg_cuda_api *cu, CUstream s)
{
  const size_t es = dlg_elem_size(f->dtype);
  const int ormqr = f->kind == DLG_ORMQR;
  const int64_t k = ormqr ? f->k : f->m < f->n ? f->m : f->n;
  /* A (ORMQR: its nq x k reflectors, read only), and the matrix written
   * back: A itself, or ORMQR's C */
  mat_copy a = {f->a, f->lda, dlg_factor_a_rows(f), ormqr ? f->k : f->n, 0, 0};
  mat_copy c = {f->c, f->ldc, f->m, f->n, 0, 0};
  /* the vector beside them: GETRF's IPIV (out), GEQRF's TAU (out), ORMQR's (in) */
  void *const vec = f->kind == DLG_GETRF ? (void *)f->ipiv : f->tau;
  const size_t vbytes = f->kind == DLG_GETRF ? (size_t)k * 4 : f->tau ? (size_t)k * es : 0;
  size_t abytes, cbytes, ibytes;
  dlg_factor_run r = {0};
  CUdeviceptr base = 0;
  CUresult e = CUDA_SUCCESS;
  dlgemm_status st;
  int info = 0;
  double t0 = dlg_now(), t1 = 0, t2 = 0;

  /* A, C, then INFO and the vector, then the workspace, each 256-byte
   * aligned; leading dimensions rounded to 32 elements */
  a.dld = (a.rows + 31) / 32 * 32, c.dld = (c.rows + 31) / 32 * 32;
  abytes = round256((size_t)a.dld * (size_t)a.cols * es);
  cbytes = ormqr ? round256((size_t)c.dld * (size_t)c.cols * es) : 0;
  ibytes = round256(vbytes + 256);
  /* from the device's pool, as the GEMM workspaces: no cuMemAlloc (which
   * synchronises the device and maps gigabytes anew) per call */
  e = dlg_fault_injected(DLG_FAULT_OOM)
          ? CUDA_ERROR_OUT_OF_MEMORY
          : cu->MemAllocFromPoolAsync(&base, abytes + cbytes + ibytes + work_bytes(f, es),
                                      dev->pool, s);
  if (e) return cuda_failed("allocation", e);
  a.dev = base, c.dev = base + abytes;
  if (!ormqr) c = a;
  r.dev = dev, r.cu = cu, r.stream = s, r.dtype = f->dtype;
  r.precision = f->dtype == DLG_F32 ? dlg_config_get()->fp32_mode : DLGEMM_PRECISION_STRICT;
  r.info = base + abytes + cbytes, r.ipiv = r.tau = r.info + 256;
  r.work = r.info + ibytes;
  if ((e = cu->MemsetD32Async(r.info, 0, 1, s)) ||
      (ormqr && (e = cu->MemcpyHtoDAsync(r.tau, vec, vbytes, s)))) {
    st = cuda_failed("copy in", e);
  } else if (!(st = copy(&a, es, 1, s)) && !(st = ormqr ? copy(&c, es, 1, s) : 0)) {
    const dlg_dview av = {a.dev, a.rows, a.cols, 1, a.dld};
    t1 = dlg_now();
    if (f->kind == DLG_GETRF) {
      dlg_cuda_getrf(&r, av);
    } else if (f->kind == DLG_GEQRF) {
      dlg_cuda_geqrf(&r, av);
    } else if (ormqr) {
      dlg_cuda_ormqr(&r, av, (dlg_dview){c.dev, c.rows, c.cols, 1, c.dld}, f->right, f->trans);
    } else {
      /* U^T U: the lower case of A^T */
      dlg_cuda_potrf(&r, f->lower ? av : dlg_step_transposed(av));
    }
    st = r.status;
    if (!st && ((e = cu->MemcpyDtoHAsync(&info, r.info, sizeof info, s)) ||
                (e = cu->StreamSynchronize(s))))
      st = cuda_failed("factorization", e);
    if (!st && info > 0 && f->kind == DLG_POTRF)
      st = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "INFO=%d, not positive definite: the next "
                    "LAPACK writes the reference's partial factor", info);
    t2 = dlg_now();
    if (!st && ((vbytes && !ormqr &&
                 ((e = cu->MemcpyDtoHAsync(vec, r.ipiv, vbytes, s)) ||
                  (e = cu->StreamSynchronize(s)))) ||
                copy(&c, es, 0, s))) {
      /* The caller's matrix may be half written: no fallback can undo it. */
      fprintf(stderr, "dlgemm: %s: copying the result back failed (%s); it is incomplete\n",
              f->origin, e ? dlg_cuda_error(e) : dlgemm_last_error());
      f->info = -1;
      st = DLGEMM_OK;
    } else if (!st) {
      f->info = info;
      if (dlg_config_get()->verbose)
        dlg_note("copy in %.1f ms, compute %.1f ms, copy out %.1f ms", (t1 - t0) * 1e3,
                 (t2 - t1) * 1e3, (dlg_now() - t2) * 1e3);
    }
  }
  cu->MemFreeAsync(base, s);
  cu->StreamSynchronize(s);
  return st;
}

dlgemm_status dlg_cuda_factor(dlg_factor *f)
{
  dlg_cuda_trip t;
  dlgemm_status st;
  if (f->m > 0x7fffffff || f->n > 0x7fffffff)
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "m and n must fit in 32 bits");
  if ((st = dlg_cuda_trip_begin(&t, 1))) return st;
  st = run(f, t.dev, t.cu, t.stream[0]);
  dlg_cuda_trip_end(&t);
  return st;
}

int dlg_cuda_factor_pays(const dlg_factor *f, char *why, size_t why_len)
{
  /* QR's panels are launch-bound (about ten launches a column): at
   * n = 384 it ran at 0.93x netlib on one core, from 512 at 1.4x and up */
  const double min_n = dlg_config_get()->lapack_min_n * (f->kind == DLG_GEQRF ? 4.0 / 3 : 1);
  const int64_t k = f->m < f->n ? f->m : f->n;
  /* ORMQR, a product with k reflectors as thin as one vector: on the GPU
   * once it has the flops of an LU at DLGEMM_LAPACK_MIN_N (a vector at
   * m = k = 4343), where the copies (bandwidth-bound on both sides) and
   * five launches per 64 reflectors are far below one core's time */
  const int ormqr = f->kind == DLG_ORMQR;
  const int pays = ormqr ? dlg_factor_flops(f) >= 2.0 / 3 * min_n * min_n * min_n
                         : (double)k >= min_n;
  /* formatted for the verbose log only: every small call asks */
  if (!dlg_config_get()->verbose)
    dlg_copy_text(why, why_len, pays ? "large enough" : "below DLGEMM_LAPACK_MIN_N");
  else if (ormqr)
    snprintf(why, why_len, "%.3g flops %s an LU's at DLGEMM_LAPACK_MIN_N=%.0f",
             dlg_factor_flops(f), pays ? ">=" : "<", min_n);
  else
    snprintf(why, why_len, "min(m,n) %s DLGEMM_LAPACK_MIN_N=%.0f", pays ? ">=" : "<", min_n);
  return pays;
}
