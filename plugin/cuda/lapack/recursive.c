/*
 * recursive.c - LU and Cholesky on device memory: recursion that turns the
 * factorizations into GEMMs, with lapack.cu's small kernels at the leaves.
 *
 * LU is DGETRF2's recursion (Toledo's): factor the left half of the
 * columns, apply its interchanges to the right half, U12 = L11^-1 A12,
 * A22 -= A21 U12, factor A22, apply its interchanges to the left half.
 * Down to panels of 32 columns or fewer, which lu_panel factors in one
 * launch (DGETF2's order within the panel; its grid holds a row a thread),
 * or, where its grid would not fit the GPU at once, on down to one column,
 * where lu_column does IDAMAX, the swap and the scaling.  Nearly all flops
 * are in the A22 products, whose shapes halve from (m - n/2) x n/2 x n/2
 * down; no panel ever goes to the host, so pivots and INFO stay on the
 * device and nothing is synchronised.
 *
 * Cholesky (lower) is DPOTRF2's: L11 = chol(A11), L21 = A21 L11^-T,
 * A22 -= L21 L21^T (lower triangle only), L22 = chol(A22), with 32 x 32
 * leaves in one warp.  TRSM recurses the same way into GEMM down to
 * triangles of order 32.  SYRK recurses into GEMMs of its off-diagonal
 * blocks; its diagonal blocks (order <= DLG_SYRK_LEAF) are computed whole
 * into a workspace and only their lower triangle added: the other triangle
 * of the caller's matrix is never written.
 *
 * The views, products and launches are steps.c's; QR is qr.c's.
 */
#include <float.h>
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/lapack/recursive.h"
#include "cuda/lapack/steps.h"
#include "kernels/cuda/lapack_args.h"

enum {
  LEAF = DLG_LAPACK_LEAF,
  LEAF_THREADS = DLG_LAPACK_LEAF_THREADS,
  COLUMN_THREADS = DLG_LAPACK_COLUMN_THREADS,
  PANEL = DLG_LU_PANEL_COLS,
  PANEL_THREADS = DLG_LU_PANEL_THREADS
};

/* b = l^-1 b, l lower n x n (unit diagonal or not), b n x nb. */
static void trsm(dlg_factor_run *r, dlg_dview l, dlg_dview b, int unit)
{
  const int64_t n = l.rows;
  if (!n || !b.cols || (n == 1 && unit)) return; /* a unit 1 x 1 triangle changes nothing */
  if (n <= LEAF) {
    int nn = (int)n;
    long long lrs = l.rs, lcs = l.cs, xs = b.rs, vs = b.cs, nvec = b.cols;
    void *params[] = {&l.p, &lrs, &lcs, &nn, &unit, &b.p, &xs, &vs, &nvec};
    dlg_step_launch(r, DLG_TRSM_LEAF, dlg_step_blocks(nvec, LEAF_THREADS), 1, LEAF_THREADS, params);
    return;
  }
  {
    const int64_t n1 = dlg_step_split(n), n2 = n - n1;
    dlg_dview b1 = dlg_step_sub(r, b, 0, 0, n1, b.cols), b2 = dlg_step_sub(r, b, n1, 0, n2, b.cols);
    trsm(r, dlg_step_sub(r, l, 0, 0, n1, n1), b1, unit);
    dlg_step_gemm(r, -1.0, dlg_step_sub(r, l, n1, 0, n2, n1), b1, 1.0, b2);
    trsm(r, dlg_step_sub(r, l, n1, n1, n2, n2), b2, unit);
  }
}

/* Columns [c0, c0 + nc) of a: the interchanges of pivots [k1, k2), in order. */
static void laswp(dlg_factor_run *r, dlg_dview a, int64_t c0, int64_t nc, int64_t k1, int64_t k2)
{
  CUdeviceptr p = dlg_step_sub(r, a, 0, c0, a.rows, nc).p;
  long long ld = a.cs;
  int ncols = (int)nc, i1 = (int)k1, i2 = (int)k2;
  void *params[] = {&p, &ld, &ncols, &r->ipiv, &i1, &i2};
  if (nc > 0 && k2 > k1)
    dlg_step_launch(r, DLG_LASWP, dlg_step_blocks(nc, LEAF_THREADS), 1, LEAF_THREADS, params);
}

static void lu_column(dlg_factor_run *r, dlg_dview a, int64_t j)
{
  CUdeviceptr col = dlg_step_sub(r, a, 0, j, a.rows, 1).p;
  long long m = a.rows, jj = j;
  float sfmin_s = FLT_MIN; /* xLAMCH('S'): the smallest normal, since 1/huge is below it */
  double sfmin_d = DBL_MIN;
  void *sfmin = r->dtype == DLG_F64 ? (void *)&sfmin_d : (void *)&sfmin_s;
  void *params[] = {&col, &m, &jj, &r->ipiv, &r->info, sfmin};
  dlg_step_launch(r, DLG_LU_COLUMN, 1, 1, COLUMN_THREADS, params);
}

/* lu_panel's workspace in r->work (dlg_cuda_getrf_work): a slot a block
 * for each column parity, the row j of each, then a count a column. */
static size_t panel_slots(int64_t m)
{
  return 2 * (size_t)((m + PANEL_THREADS - 1) / PANEL_THREADS) * DLG_LU_SLOT_BYTES;
}

/* Where the counts begin: past the slots and the two rows j. */
static size_t panel_counts(int64_t m, size_t es) { return panel_slots(m) + 2 * PANEL * es; }

size_t dlg_cuda_getrf_work(int64_t m, int64_t n, size_t es)
{
  return panel_counts(m, es) + (size_t)(m < n ? m : n) * 4;
}

/* Columns [j0, j0 + n) (n <= PANEL) of rows [j0, m) of a on lu_panel: 1
 * where queued (or the run has failed), 0 where its grid would not fit
 * the GPU at once (the recursion's way then). */
static int lu_panel(dlg_factor_run *r, dlg_dview a, int64_t j0, int64_t n)
{
  const int64_t mm = a.rows - j0, blocks = (mm + PANEL_THREADS - 1) / PANEL_THREADS;
  const size_t es = dlg_elem_size(r->dtype);
  CUdeviceptr slots = r->work, rowj = slots + panel_slots(a.rows),
              arrived = slots + panel_counts(a.rows, es) + (CUdeviceptr)j0 * 4;
  float sfmin_s = FLT_MIN;
  double sfmin_d = DBL_MIN;
  long long lda = a.cs, m = a.rows;
  int jj = (int)j0, nn = (int)n;
  void *sfmin = r->dtype == DLG_F64 ? (void *)&sfmin_d : (void *)&sfmin_s;
  void *params[] = {&a.p, &lda, &m, &jj, &nn, &r->ipiv, &r->info, sfmin, &slots, &rowj, &arrived};
  if (!r->work || blocks > INT32_MAX) return 0;
  return dlg_step_launch_together(r, DLG_LU_PANEL, (unsigned)blocks, PANEL_THREADS, params) ==
         CUDA_SUCCESS;
}

/* Columns [j0, j0 + n) of rows [j0, m) of a, as DGETRF2 factors its block. */
static void getrf_block(dlg_factor_run *r, dlg_dview a, int64_t j0, int64_t n)
{
  const int64_t mm = a.rows - j0, kk = mm < n ? mm : n;
  int64_t n1, n2;
  if (mm == 1 || n == 1) {
    lu_column(r, a, j0);
    return;
  }
  if (n <= PANEL && lu_panel(r, a, j0, n)) return;
  n1 = dlg_step_split(kk), n2 = n - n1;
  getrf_block(r, a, j0, n1);
  laswp(r, a, j0 + n1, n2, j0, j0 + n1);
  trsm(r, dlg_step_sub(r, a, j0, j0, n1, n1), dlg_step_sub(r, a, j0, j0 + n1, n1, n2), 1);
  dlg_step_gemm(r, -1.0, dlg_step_sub(r, a, j0 + n1, j0, mm - n1, n1),
                dlg_step_sub(r, a, j0, j0 + n1, n1, n2), 1.0,
                dlg_step_sub(r, a, j0 + n1, j0 + n1, mm - n1, n2));
  getrf_block(r, a, j0 + n1, n2);
  laswp(r, a, j0, n1, j0 + n1, j0 + kk);
}

void dlg_cuda_getrf(dlg_factor_run *r, dlg_dview a)
{
  const int64_t k = a.rows < a.cols ? a.rows : a.cols;
  const CUdeviceptr counts = r->work + panel_counts(a.rows, dlg_elem_size(r->dtype));
  CUresult e;
  if (a.rows <= 0 || a.cols <= 0 || r->status) return;
  /* lu_panel's arrivals, a count a column, from zero */
  if (r->work && (e = r->cu->MemsetD32Async(counts, 0, (size_t)k, r->stream))) {
    r->status = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA memset failed: %s", dlg_cuda_error(e));
    return;
  }
  getrf_block(r, a, 0, a.cols);
}

/* The lower triangle of c -= a a^T (c n x n, a n x k). */
static void syrk(dlg_factor_run *r, dlg_dview c, dlg_dview a)
{
  const int64_t n = c.rows;
  if (!n || !a.cols) return;
  if (n <= DLG_SYRK_LEAF) {
    dlg_dview w = {r->work, n, n, 1, n};
    int nn = (int)n;
    long long rs = c.rs, cs = c.cs;
    void *params[] = {&c.p, &rs, &cs, &w.p, &nn};
    dlg_step_gemm(r, -1.0, a, dlg_step_transposed(a), 0.0, w);
    dlg_step_launch(r, DLG_TRI_ADD, dlg_step_blocks(n, LEAF_THREADS), (unsigned)n, LEAF_THREADS,
                    params);
    return;
  }
  {
    const int64_t n1 = dlg_step_split(n), n2 = n - n1;
    dlg_dview a1 = dlg_step_sub(r, a, 0, 0, n1, a.cols), a2 = dlg_step_sub(r, a, n1, 0, n2, a.cols);
    syrk(r, dlg_step_sub(r, c, 0, 0, n1, n1), a1);
    dlg_step_gemm(r, -1.0, a2, dlg_step_transposed(a1), 1.0, dlg_step_sub(r, c, n1, 0, n2, n1));
    syrk(r, dlg_step_sub(r, c, n1, n1, n2, n2), a2);
  }
}

static void potrf_block(dlg_factor_run *r, dlg_dview a, int64_t off)
{
  const int64_t n = a.rows;
  if (n <= LEAF) {
    int nn = (int)n, o = (int)off;
    long long rs = a.rs, cs = a.cs;
    void *params[] = {&a.p, &rs, &cs, &nn, &o, &r->info};
    if (n) dlg_step_launch(r, DLG_POTRF_LEAF, 1, 1, LEAF, params);
    return;
  }
  {
    const int64_t n1 = dlg_step_split(n), n2 = n - n1;
    dlg_dview a11 = dlg_step_sub(r, a, 0, 0, n1, n1), a21 = dlg_step_sub(r, a, n1, 0, n2, n1);
    potrf_block(r, a11, off);
    trsm(r, a11, dlg_step_transposed(a21), 0); /* L21 L11^T = A21 */
    syrk(r, dlg_step_sub(r, a, n1, n1, n2, n2), a21);
    potrf_block(r, dlg_step_sub(r, a, n1, n1, n2, n2), off + n1);
  }
}

void dlg_cuda_potrf(dlg_factor_run *r, dlg_dview a) { potrf_block(r, a, 0); }
