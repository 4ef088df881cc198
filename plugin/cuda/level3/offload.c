/*
 * offload.c - a level-3 routine on host arrays, on the GPU (the first
 * device of host-array calls, hostarray/slots.h): the matrices it reads
 * copied over once (through the host-array engine's pinned chunks and copy
 * threads), the routine on the device (blas3.c), the matrix it writes
 * copied back.  C goes over only where the routine reads it (beta
 * not 0, TRMM's and TRSM's B, the rank-k updates' other triangle, which
 * must come back as it was); A only as far as it is read (one triangle).
 * B and C cross in blocks (run() says how), so that a block computes while
 * the next one crosses and comes back while later ones compute.
 *
 * Failure.  Every launch is made before anything of the caller's is
 * written: up to there a failure returns a status and the shim hands the
 * call to the next BLAS.  A failure after (a copy back, or a kernel that
 * faults while its block waits to come back) cannot be undone; it is
 * reported on stderr (the caller's matrix is incomplete).
 */
#include <stdio.h>
#include "core/calllog.h"
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/device.h"
#include "cuda/device/driver.h"
#include "cuda/hostarray/engine.h"
#include "cuda/hostarray/slots.h"
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
    m[0] = x->transa == 'N' ? host_mat(x->a, x->lda, x->m, x->k, 1)
                            : host_mat(x->a, x->lda, x->k, x->m, 1);
    m[1] = x->transb == 'N' ? host_mat(x->b, x->ldb, x->k, x->n, 1)
                            : host_mat(x->b, x->ldb, x->n, x->k, 1);
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

/* Through the engine of slot 0, the first device of host-array calls
 * (hostarray/slots.h): the one this routine runs on. */
static dlgemm_status copy(const mat *m, size_t es, int to_device, CUstream s)
{
  if (!m->rows || !m->cols) return DLGEMM_OK;
  return dlg_cuda_offload_matrix(0, (void *)m->host, m->ld, m->dev.p, m->dev.cs, m->rows,
                                 m->cols, es, to_device, s);
}

/* Rows (dim 0) or columns (dim 1) [i0, i1) of m, host and device alike. */
static mat block(const mat *m, int dim, int64_t i0, int64_t i1, size_t es)
{
  mat b = *m;
  const int64_t step = dim ? m->ld : 1, dstep = dim ? m->dev.cs : 1;
  if (b.host) b.host = (const char *)m->host + (size_t)(i0 * step) * es;
  b.dev.p += (CUdeviceptr)(i0 * dstep) * es;
  if (dim)
    b.cols = b.dev.cols = i1 - i0;
  else
    b.rows = b.dev.rows = i1 - i0;
  return b;
}

/* A over, only the triangle read where the routine reads one (in column
 * blocks: a rectangle each, about half of A in all). */
static dlgemm_status copy_a(const dlg_level3 *x, const mat *a, size_t es, CUstream s)
{
  const int tri = x->kind == DLG_L3_SYMM || x->kind == DLG_L3_HEMM || x->kind == DLG_L3_TRMM ||
                  x->kind == DLG_L3_TRSM;
  const int64_t n = a->cols, nb = tri ? (n + 7) / 8 : n;
  dlgemm_status st = DLGEMM_OK;
  for (int64_t j = 0; j < n && !st && n; j += nb) {
    const int64_t j1 = j + nb < n ? j + nb : n;
    mat col = block(a, 1, j, j1, es);
    if (tri) col = x->upper ? block(&col, 0, 0, j1, es) : block(&col, 0, j, n, es);
    st = copy(&col, es, 1, s);
  }
  return st;
}

/* How the output is cut for the pipeline: 1 its columns, 0 its rows (A on
 * the right), -1 not at all (the rank-k updates). */
static int split_of(const dlg_level3 *x)
{
  if (x->kind >= DLG_L3_SYRK && x->kind <= DLG_L3_HER2K) return -1;
  return x->kind != DLG_L3_GEMM && x->right ? 0 : 1;
}

/* At most this many blocks (their events); each at least DLGEMM_LEVEL3_BLOCK
 * wide (1024: a TRSM on 1024 columns still runs its GEMMs near full
 * speed). */
enum { MAX_BLOCKS = 8 };

/* A over first; then block by block, B's and C's block over while the
 * previous block computes (the copies are synchronous on the host, the
 * kernels are not); every launch made before anything is written back, so
 * that a failure up to there leaves the caller's arrays untouched; then the
 * blocks back as each one's kernels finish, while the later ones run. */
static dlgemm_status run(dlg_level3 *x, dlg_cuda_device *dev, const dlg_cuda_api *cu, CUstream s,
                         CUstream s2, CUevent *done)
{
  const size_t es = dlg_elem_size(x->dtype);
  const int split = split_of(x), out = x->kind == DLG_L3_TRMM ? 3 : 2;
  /* B's blocks: GEMM's op(B) columns are B's rows when it is transposed */
  const int bsplit = x->kind == DLG_L3_GEMM && x->transb != 'N' ? 0 : split;
  /* TRSM is a few hundred launches whatever its width, made by this thread
   * between its copies: in eight blocks, at n = 8192, the launches alone
   * took 72 ms against 26 of compute in one (H100); two keep the overlap */
  const int max_blocks = x->kind == DLG_L3_TRSM ? 2 : MAX_BLOCKS;
  mat m[4] = {{0}};
  dlg_factor_run r = {0};
  CUdeviceptr base = 0;
  size_t total = 0;
  dlgemm_status st = DLGEMM_OK;
  CUresult e;
  double t0 = dlg_now(), t1 = 0, t2 = 0;
  int64_t extent, nb, i;
  int nblocks = 0;

  shapes(x, m);
  for (i = 0; i < 4; i++) total += bytes_of(&m[i], es);
  e = dlg_fault_injected(DLG_FAULT_OOM) ? CUDA_ERROR_OUT_OF_MEMORY
                                         : cu->MemAllocFromPoolAsync(&base, total, dev->pool, s);
  if (e) return cuda_failed("allocation", e);
  for (i = 0, total = 0; i < 4; i++) {
    m[i].dev.p = base + total;
    total += bytes_of(&m[i], es);
  }
  r.dev = dev, r.cu = cu, r.stream = s, r.dtype = x->dtype;
  r.precision = x->precision;
  /* the extent cut, and the blocks: at least DLGEMM_LEVEL3_BLOCK wide, at
   * most MAX_BLOCKS of them */
  extent = split < 0 ? 1 : split ? m[2].cols : m[2].rows;
  nb = (int64_t)dlg_config_get()->level3_block;
  if (nb * max_blocks < extent) nb = (extent + max_blocks - 1) / max_blocks;
  st = copy_a(x, &m[0], es, s2);
  if (!st && split < 0 && m[1].in) st = copy(&m[1], es, 1, s2);
  t1 = dlg_now();
  if (!st) dlg_cuda_blas3_prepare(&r, x, m[0].dev);
  for (i = 0; i < extent && !st && !r.status; i += nb, nblocks++) {
    const int64_t i1 = i + nb < extent ? i + nb : extent;
    dlg_level3 xb = *x;
    mat b = m[1], c = m[2], w = m[3];
    if (split >= 0) {
      if (m[1].rows) b = block(&m[1], bsplit, i, i1, es);
      c = block(&m[2], split, i, i1, es), w = block(&m[3], split, i, i1, es);
      if (split) xb.n = i1 - i; else xb.m = i1 - i;
    }
    if ((split >= 0 && b.in && (st = copy(&b, es, 1, s2))) ||
        (c.in && (st = copy(&c, es, 1, s2))))
      break;
    dlg_cuda_blas3(&r, &xb, m[0].dev, b.dev, c.dev, w.dev);
    if (!r.status && (e = cu->EventRecord(done[nblocks], s))) st = cuda_failed("event", e);
  }
  if (!st) st = r.status;
  t2 = dlg_now();
  for (i = 0; i < extent && !st; i += nb) {
    const int64_t i1 = i + nb < extent ? i + nb : extent;
    const mat o = split < 0 ? m[out] : block(&m[out], split, i, i1, es);
    if ((e = cu->StreamWaitEvent(s2, done[i / nb], 0)) || copy(&o, es, 0, s2)) {
      /* The caller's matrix may be half written: no fallback can undo it. */
      fprintf(stderr, "dlgemm: %s: copying the result back failed (%s); it is incomplete\n",
              x->origin, e ? dlg_cuda_error(e) : dlgemm_last_error());
      break;
    }
  }
  if (!st && dlg_config_get()->verbose)
    dlg_note("A in %.1f ms, %d block(s) in and queued %.1f ms, out as they finish %.1f ms",
             (t1 - t0) * 1e3, nblocks, (t2 - t1) * 1e3, (dlg_now() - t2) * 1e3);
  cu->MemFreeAsync(base, s);
  cu->StreamSynchronize(s);
  cu->StreamSynchronize(s2);
  return st;
}

dlgemm_status dlg_cuda_level3(dlg_level3 *x)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  dlg_cuda_device *dev = cu ? dlg_cuda_slot_device(0) : NULL;
  CUstream s, s2;
  CUevent done[MAX_BLOCKS + 1];
  CUresult e;
  dlgemm_status st;
  int events;
  if (!cu) return dlg_fail(DLGEMM_ERR_NO_BACKEND, "%s", why);
  if (!dev) return DLGEMM_ERR_NO_BACKEND;
  dlg_cuda_say_slots(1);
  if ((e = cu->CtxPushCurrent(dev->ctx))) return cuda_failed("context", e);
  /* s computes, s2 copies; done[b]: block b's kernels finished */
  if ((e = cu->StreamCreate(&s, CU_STREAM_NON_BLOCKING))) {
    st = cuda_failed("stream creation", e);
  } else {
    if ((e = cu->StreamCreate(&s2, CU_STREAM_NON_BLOCKING))) {
      st = cuda_failed("stream creation", e);
    } else {
      for (events = 0; events < MAX_BLOCKS + 1; events++)
        if ((e = cu->EventCreate(&done[events], CU_EVENT_DISABLE_TIMING))) break;
      st = e ? cuda_failed("event creation", e) : run(x, dev, cu, s, s2, done);
      while (events-- > 0) cu->EventDestroy(done[events]);
      cu->StreamDestroy(s2);
    }
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
