/*
 * offload.c - a level-3 routine on host arrays, on the GPU (the first
 * device of host-array calls, hostarray/slots.h): the matrices it reads
 * copied over once (through the host-array engine's pinned chunks and copy
 * threads), the routine on the device (blas3.c), the matrix it writes
 * copied back.  Only what the routine reads goes over: C where beta reads
 * it (the rank-k updates' triangle, TRMM's and TRSM's B), A's triangle
 * where one is read.  The call is cut into at most eight steps (plan_of
 * says how for each routine), so that a step computes while the next one's
 * matrices cross and its result comes back while later ones compute.
 *
 * Failure.  Every launch is made before anything of the caller's is
 * written: up to there a failure returns a status and the shim hands the
 * call to the next BLAS.  A copy back that fails is tried again
 * (dlg_cuda_offload_matrix); one that still fails, or a kernel that faults
 * while its block waits to come back, cannot be undone: it is reported on
 * stderr (the caller's matrix is incomplete).
 */
#include <stdio.h>
#include <string.h>
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

/* Rows (dim 0) or columns (dim 1) [i0, i1) of m, then [j0, j1) of the
 * other dimension. */
static mat rect(const mat *m, int dim, int64_t i0, int64_t i1, int64_t j0, int64_t j1, size_t es)
{
  const mat b = block(m, dim, i0, i1, es);
  return block(&b, !dim, j0, j1, es);
}

/* At most this many steps (their events), and pieces of a triangle; each
 * at least DLGEMM_LEVEL3_BLOCK wide (1024: a TRSM's diagonal block of 1024
 * still runs its GEMMs near full speed). */
enum { MAX_STEPS = 8 };

static int64_t step_width(int64_t extent)
{
  int64_t nb = (int64_t)dlg_config_get()->level3_block;
  if (nb * MAX_STEPS < extent) nb = (extent + MAX_STEPS - 1) / MAX_STEPS;
  return nb;
}

/* A part of a matrix that goes over: all of it, or (tri) only the
 * triangle x reads of this square (A's, or a diagonal block of it), in
 * column blocks of step_width: a rectangle each, near half the square when
 * it is large (each copy costs 10-20 us besides its bytes). */
typedef struct piece {
  mat m;
  int tri;
} piece;

/* Copies p over; with bytes, only adds up what it would copy. */
static dlgemm_status copy_piece(const dlg_level3 *x, const piece *p, size_t es, CUstream s,
                                double *bytes)
{
  const int64_t n = p->m.cols, nb = p->tri ? step_width(n) : n;
  dlgemm_status st = DLGEMM_OK;
  for (int64_t j = 0; j < n && !st; j += nb) {
    const int64_t j1 = j + nb < n ? j + nb : n;
    mat col = block(&p->m, 1, j, j1, es);
    if (p->tri) col = x->upper ? block(&col, 0, 0, j1, es) : block(&col, 0, j, n, es);
    if (bytes)
      *bytes += (double)col.rows * (double)col.cols * (double)es;
    else
      st = copy(&col, es, 1, s);
  }
  return st;
}

/* How the call is cut: C's columns (1) or rows (0), blocks independent of
 * each other; k, each step a rank-k update adding to the last (SYRK and
 * the others: C is a triangle and cannot be cut into rectangles cheaply);
 * TRSM's solved rows, each step after the ones it depends on (blocks of B
 * are independent too, but each would repeat the whole recursion's few
 * hundred launches: eight of them took 72 ms against 26 of compute). */
enum { CUT_ROWS, CUT_COLS, CUT_K, CUT_SOLVE };

/* The pipeline: pre goes over first; then step by step, its pieces over
 * and its kernels queued on block [i0, i1) of the cut; then out[j] back
 * once step after[j] has finished. */
typedef struct plan {
  int cut, bdim, out_of; /* CUT_ROWS / CUT_COLS: B's dimension cut, the matrix written */
  int npre, nsteps, nout;
  piece pre[MAX_STEPS + 1];
  struct {
    piece in[3];
    int nin;
    int64_t i0, i1;
  } step[MAX_STEPS];
  struct {
    mat m;
    int after;
  } out[MAX_STEPS];
} plan;

static void add_step(plan *p, int64_t i0, int64_t i1)
{
  p->step[p->nsteps].i0 = i0, p->step[p->nsteps].i1 = i1, p->step[p->nsteps].nin = 0;
  p->nsteps++;
}

static void add_in(plan *p, mat m, int tri)
{
  if (!m.rows || !m.cols) return;
  p->step[p->nsteps - 1].in[p->step[p->nsteps - 1].nin].m = m;
  p->step[p->nsteps - 1].in[p->step[p->nsteps - 1].nin++].tri = tri;
}

static void add_out(plan *p, mat m, int after)
{
  p->out[p->nout].m = m, p->out[p->nout++].after = after;
}

/* The rank-k updates: C's triangle (column blocks of it, a rectangle each)
 * over where beta reads it, else only its diagonal blocks, whose other
 * triangle must come back as it was; then A's (and B's) k in steps, each
 * adding its rank-k part to C; C's triangle back at the end. */
static void plan_rank_k(const dlg_level3 *x, const mat *m, size_t es, plan *p)
{
  const int64_t n = m[2].cols, k = x->k, nbc = step_width(n);
  const int kdim = x->transa == 'N', c_in = x->beta[0] != 0 || x->beta[1] != 0;
  const int64_t nb = x->alpha[0] == 0 && x->alpha[1] == 0 ? k : step_width(k);
  int64_t i = 0, j;
  p->cut = CUT_K;
  do {
    const int64_t i1 = i + nb < k ? i + nb : k;
    add_step(p, i, i1);
    add_in(p, block(&m[0], kdim, i, i1, es), 0);
    if (m[1].in) add_in(p, block(&m[1], kdim, i, i1, es), 0);
    i = i1;
  } while (i < k);
  for (j = 0; j < n; j += nbc) {
    const int64_t j1 = j + nbc < n ? j + nbc : n;
    const mat c = x->upper ? rect(&m[2], 1, j, j1, 0, j1, es) : rect(&m[2], 1, j, j1, j, n, es);
    p->pre[p->npre].m = c_in ? c : rect(&m[2], 1, j, j1, j, j1, es);
    p->pre[p->npre++].tri = 0;
    add_out(p, c, p->nsteps - 1);
  }
}

/* TRSM: its solved rows (B's rows on the left, columns on the right) in
 * blocks, in the order they depend on each other; each step brings the
 * part of op(A) it reads (the rows of the block up to its diagonal block,
 * whose triangle only) and B's block, which comes back once solved. */
static void plan_trsm(const dlg_level3 *x, const mat *m, size_t es, plan *p)
{
  const int64_t na = m[0].cols, nb = step_width(na), nblocks = (na + nb - 1) / nb;
  const int forward = dlg_cuda_blas3_trsm_forward(x), transposed = dlg_level3_trsm_transposed(x);
  p->cut = CUT_SOLVE;
  for (int64_t s = 0; s < nblocks; s++) {
    const int64_t b = forward ? s : nblocks - 1 - s, i0 = b * nb, i1 = i0 + nb < na ? i0 + nb : na;
    const int64_t j0 = forward ? 0 : i1, j1 = forward ? i0 : na; /* the rows solved before */
    add_step(p, i0, i1);
    /* op(A)'s rows [i0, i1) by columns [j0, j1): A's columns by rows when transposed */
    add_in(p, rect(&m[0], transposed, i0, i1, j0, j1, es), 0);
    add_in(p, rect(&m[0], 0, i0, i1, i0, i1, es), 1);
    add_in(p, block(&m[2], x->right, i0, i1, es), 0);
    add_out(p, block(&m[2], x->right, i0, i1, es), p->nsteps - 1);
  }
}

/* GEMM, SYMM, HEMM, TRMM: A over first (its triangle where one is read),
 * then C's columns (its rows where A is on the right) in blocks, each with
 * B's and C's block, each independent of the others. */
static void plan_blocks(const dlg_level3 *x, const mat *m, size_t es, plan *p)
{
  const int cols = x->kind == DLG_L3_GEMM || !x->right;
  const int64_t extent = cols ? m[2].cols : m[2].rows, nb = step_width(extent);
  p->cut = cols ? CUT_COLS : CUT_ROWS;
  /* GEMM's op(B) columns are B's rows when it is transposed */
  p->bdim = x->kind == DLG_L3_GEMM && x->transb != 'N' ? 0 : cols;
  p->out_of = x->kind == DLG_L3_TRMM ? 3 : 2;
  p->pre[0].m = m[0], p->pre[0].tri = x->kind != DLG_L3_GEMM;
  p->npre = 1;
  for (int64_t i = 0; i < extent; i += nb) {
    const int64_t i1 = i + nb < extent ? i + nb : extent;
    add_step(p, i, i1);
    if (m[1].in) add_in(p, block(&m[1], p->bdim, i, i1, es), 0);
    if (m[2].in) add_in(p, block(&m[2], cols, i, i1, es), 0);
    add_out(p, block(&m[p->out_of], cols, i, i1, es), p->nsteps - 1);
  }
}

static void plan_of(const dlg_level3 *x, const mat *m, size_t es, plan *p)
{
  memset(p, 0, sizeof *p);
  if (x->kind >= DLG_L3_SYRK && x->kind <= DLG_L3_HER2K)
    plan_rank_k(x, m, es, p);
  else if (x->kind == DLG_L3_TRSM)
    plan_trsm(x, m, es, p);
  else
    plan_blocks(x, m, es, p);
}

/* Step s's kernels, on the device copies m. */
static void compute(dlg_factor_run *r, const dlg_level3 *x, const mat *m, const plan *p, int s,
                    size_t es)
{
  const int64_t i0 = p->step[s].i0, i1 = p->step[s].i1;
  dlg_level3 xb = *x;
  if (p->cut == CUT_SOLVE) {
    dlg_cuda_blas3_trsm_rows(r, x, m[0].dev, m[2].dev, i0, i1);
  } else if (p->cut == CUT_K) {
    const int kdim = x->transa == 'N';
    xb.k = i1 - i0;
    if (s) xb.beta[0] = 1, xb.beta[1] = 0; /* C holds the earlier steps' sums */
    dlg_cuda_blas3(r, &xb, block(&m[0], kdim, i0, i1, es).dev, block(&m[1], kdim, i0, i1, es).dev,
                   m[2].dev, m[3].dev);
  } else {
    const int cols = p->cut == CUT_COLS;
    const mat b = m[1].rows ? block(&m[1], p->bdim, i0, i1, es) : m[1];
    if (cols) xb.n = i1 - i0; else xb.m = i1 - i0;
    dlg_cuda_blas3(r, &xb, m[0].dev, b.dev, block(&m[2], cols, i0, i1, es).dev,
                   block(&m[3], cols, i0, i1, es).dev);
  }
}

/* The plan's copies in order, each synchronous on the host, the kernels
 * not: a step computes while the next one's pieces cross.  Every launch is
 * made before anything is written back, so that a failure up to there
 * leaves the caller's arrays untouched; then the pieces come back as their
 * steps finish, while the later ones run. */
static dlgemm_status run(dlg_level3 *x, dlg_cuda_device *dev, const dlg_cuda_api *cu, CUstream s,
                         CUstream s2, CUevent *done)
{
  const size_t es = dlg_elem_size(x->dtype);
  mat m[4] = {{0}};
  plan p;
  dlg_factor_run r = {0};
  CUdeviceptr base = 0;
  size_t total = 0;
  dlgemm_status st = DLGEMM_OK;
  CUresult e;
  double t0 = dlg_now(), t1 = 0, t2 = 0;
  int i, j;

  shapes(x, m);
  for (i = 0; i < 4; i++) total += bytes_of(&m[i], es);
  e = dlg_fault_injected(DLG_FAULT_OOM) ? CUDA_ERROR_OUT_OF_MEMORY
                                         : cu->MemAllocFromPoolAsync(&base, total, dev->pool, s);
  if (e) return cuda_failed("allocation", e);
  for (i = 0, total = 0; i < 4; i++) {
    m[i].dev.p = base + total;
    total += bytes_of(&m[i], es);
  }
  plan_of(x, m, es, &p);
  r.dev = dev, r.cu = cu, r.stream = s, r.dtype = x->dtype;
  r.precision = x->precision;
  for (i = 0; i < p.npre && !st; i++) st = copy_piece(x, &p.pre[i], es, s2, NULL);
  t1 = dlg_now();
  if (!st) dlg_cuda_blas3_prepare(&r, x, m[0].dev);
  for (i = 0; i < p.nsteps && !st && !r.status; i++) {
    for (j = 0; j < p.step[i].nin && !st; j++) st = copy_piece(x, &p.step[i].in[j], es, s2, NULL);
    if (st) break;
    compute(&r, x, m, &p, i, es);
    if (!r.status && (e = cu->EventRecord(done[i], s))) st = cuda_failed("event", e);
  }
  if (!st) st = r.status;
  t2 = dlg_now();
  for (i = 0; i < p.nout && !st; i++) {
    if ((e = cu->StreamWaitEvent(s2, done[p.out[i].after], 0)) || copy(&p.out[i].m, es, 0, s2)) {
      /* The caller's matrix may be half written: no fallback can undo it. */
      fprintf(stderr, "dlgemm: %s: copying the result back failed (%s); it is incomplete\n",
              x->origin, e ? dlg_cuda_error(e) : dlgemm_last_error());
      break;
    }
  }
  if (!st && dlg_config_get()->verbose)
    dlg_note("first copies %.1f ms, %d step(s) in and queued %.1f ms, out as they finish %.1f ms",
             (t1 - t0) * 1e3, p.nsteps, (t2 - t1) * 1e3, (dlg_now() - t2) * 1e3);
  cu->MemFreeAsync(base, s);
  cu->StreamSynchronize(s);
  cu->StreamSynchronize(s2);
  return st;
}

dlgemm_status dlg_cuda_level3(dlg_level3 *x)
{
  dlg_cuda_trip t;
  CUevent done[MAX_STEPS]; /* done[s]: step s's kernels finished */
  CUresult e = CUDA_SUCCESS;
  dlgemm_status st;
  int events;
  /* stream 0 computes, stream 1 copies */
  if ((st = dlg_cuda_trip_begin(&t, 2))) return st;
  for (events = 0; events < MAX_STEPS; events++)
    if ((e = t.cu->EventCreate(&done[events], CU_EVENT_DISABLE_TIMING))) break;
  st = e ? cuda_failed("event creation", e) : run(x, t.dev, t.cu, t.stream[0], t.stream[1], done);
  while (events-- > 0) t.cu->EventDestroy(done[events]);
  dlg_cuda_trip_end(&t);
  return st;
}

void dlg_cuda_level3_bytes(const dlg_level3 *x, double *in, double *out)
{
  const size_t es = dlg_elem_size(x->dtype);
  mat m[4] = {{0}};
  plan p;
  int i, j;
  shapes(x, m);
  plan_of(x, m, es, &p);
  *in = *out = 0;
  for (i = 0; i < p.npre; i++) copy_piece(x, &p.pre[i], es, 0, in);
  for (i = 0; i < p.nsteps; i++)
    for (j = 0; j < p.step[i].nin; j++) copy_piece(x, &p.step[i].in[j], es, 0, in);
  for (i = 0; i < p.nout; i++) *out += (double)p.out[i].m.rows * (double)p.out[i].m.cols * (double)es;
}
