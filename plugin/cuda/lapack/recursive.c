/*
 * recursive.c - LU and Cholesky on device memory: recursion that turns the
 * factorizations into GEMMs, with lapack.cu's small kernels at the leaves.
 *
 * LU is DGETRF2's recursion (Toledo's): factor the left half of the
 * columns, apply its interchanges to the right half, U12 = L11^-1 A12,
 * A22 -= A21 U12, factor A22, apply its interchanges to the left half.
 * Down to one column, where lu_column does IDAMAX, the swap and the
 * scaling.  Nearly all flops are in the A22 products, whose shapes halve
 * from (m - n/2) x n/2 x n/2 down; no panel ever goes to the host, so
 * pivots and INFO stay on the device and nothing is synchronised.
 *
 * Cholesky (lower) is DPOTRF2's: L11 = chol(A11), L21 = A21 L11^-T,
 * A22 -= L21 L21^T (lower triangle only), L22 = chol(A22), with 32 x 32
 * leaves in one warp.  TRSM recurses the same way into GEMM down to
 * triangles of order 32.  SYRK recurses into GEMMs of its off-diagonal
 * blocks; its diagonal blocks (order <= DLG_SYRK_LEAF) are computed whole
 * into a workspace and only their lower triangle added: the other triangle
 * of the caller's matrix is never written.
 *
 * Splits are rounded to multiples of 32 so that every block the GEMM
 * kernels see starts 32 elements from the previous one (16-byte aligned
 * operands keep their wide loads).
 */
#include <float.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/device/gemm.h"
#include "cuda/lapack/recursive.h"
#include "kernels/cuda/lapack_args.h"

enum {
  LEAF = DLG_LAPACK_LEAF,
  LEAF_THREADS = DLG_LAPACK_LEAF_THREADS,
  COLUMN_THREADS = DLG_LAPACK_COLUMN_THREADS
};

static size_t es_of(const dlg_factor_run *r) { return dlg_elem_size(r->dtype); }

static dlg_dview sub(const dlg_factor_run *r, dlg_dview v, int64_t i, int64_t j, int64_t rows,
                     int64_t cols)
{
  dlg_dview s = v;
  s.p = v.p + (CUdeviceptr)((i * v.rs + j * v.cs) * (int64_t)es_of(r));
  s.rows = rows, s.cols = cols;
  return s;
}

static dlg_dview transposed(dlg_dview v)
{
  dlg_dview t = {v.p, v.cols, v.rows, v.cs, v.rs};
  return t;
}

/* Where to cut n: near the middle, on a multiple of 32 once that is
 * possible, so that leaves are exactly 32 wide. */
static int64_t split(int64_t n)
{
  int64_t h = (n / 2 + LEAF - 1) / LEAF * LEAF;
  return n >= 2 * LEAF ? (h < n ? h : n - LEAF) : n / 2;
}

static void launch(dlg_factor_run *r, int kernel, unsigned gx, unsigned gy, unsigned threads,
                   void **params)
{
  CUresult e;
  if (r->status) return;
  e = dlg_fault_injected(DLG_FAULT_LAUNCH)
          ? CUDA_ERROR_LAUNCH_FAILED
          : r->cu->LaunchKernel(r->dev->lapack[r->dtype == DLG_F64][kernel], gx, gy, 1, threads, 1,
                                1, 0, r->stream, params, NULL);
  if (e)
    r->status = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed: %s",
                         dlg_cuda_error(e));
}

static dlg_matrix matrix_of(dlg_dview v)
{
  dlg_matrix x = {(void *)(uintptr_t)v.p, v.rows, v.cols, v.rs, v.cs, 0};
  return x;
}

/* c = alpha a b + beta c, on our GEMM kernels. */
static void gemm(dlg_factor_run *r, double alpha, dlg_dview a, dlg_dview b, double beta,
                 dlg_dview c)
{
  dlg_gemm g;
  if (r->status || !c.rows || !c.cols || (!a.cols && beta == 1)) return;
  memset(&g, 0, sizeof g);
  g.dtype = g.dtype_in = r->dtype;
  g.place = DLG_CUDA;
  g.device_id = r->dev->ordinal;
  g.m = c.rows, g.n = c.cols, g.k = a.cols, g.batch = 1;
  g.alpha = alpha, g.beta = beta;
  g.a = matrix_of(a), g.b = matrix_of(b), g.c = matrix_of(c);
  g.precision = r->dtype == DLG_F32 ? r->precision : DLGEMM_PRECISION_STRICT;
  g.stream = (void *)r->stream;
  g.origin = "lapack";
  r->status = dlg_cuda_gemm(r->dev, &g, r->stream);
}

static unsigned blocks(int64_t n, int per) { return (unsigned)((n + per - 1) / per); }

/* b = l^-1 b, l lower n x n (unit diagonal or not), b n x nb. */
static void trsm(dlg_factor_run *r, dlg_dview l, dlg_dview b, int unit)
{
  const int64_t n = l.rows;
  if (!n || !b.cols || (n == 1 && unit)) return; /* a unit 1 x 1 triangle changes nothing */
  if (n <= LEAF) {
    int nn = (int)n;
    long long lrs = l.rs, lcs = l.cs, xs = b.rs, vs = b.cs, nvec = b.cols;
    void *params[] = {&l.p, &lrs, &lcs, &nn, &unit, &b.p, &xs, &vs, &nvec};
    launch(r, DLG_TRSM_LEAF, blocks(nvec, LEAF_THREADS), 1, LEAF_THREADS, params);
    return;
  }
  {
    const int64_t n1 = split(n), n2 = n - n1;
    dlg_dview b1 = sub(r, b, 0, 0, n1, b.cols), b2 = sub(r, b, n1, 0, n2, b.cols);
    trsm(r, sub(r, l, 0, 0, n1, n1), b1, unit);
    gemm(r, -1.0, sub(r, l, n1, 0, n2, n1), b1, 1.0, b2);
    trsm(r, sub(r, l, n1, n1, n2, n2), b2, unit);
  }
}

/* Columns [c0, c0 + nc) of a: the interchanges of pivots [k1, k2), in order. */
static void laswp(dlg_factor_run *r, dlg_dview a, int64_t c0, int64_t nc, int64_t k1, int64_t k2)
{
  CUdeviceptr p = sub(r, a, 0, c0, a.rows, nc).p;
  long long ld = a.cs;
  int ncols = (int)nc, i1 = (int)k1, i2 = (int)k2;
  void *params[] = {&p, &ld, &ncols, &r->ipiv, &i1, &i2};
  if (nc > 0 && k2 > k1) launch(r, DLG_LASWP, blocks(nc, LEAF_THREADS), 1, LEAF_THREADS, params);
}

static void lu_column(dlg_factor_run *r, dlg_dview a, int64_t j)
{
  CUdeviceptr col = sub(r, a, 0, j, a.rows, 1).p;
  long long m = a.rows, jj = j;
  float sfmin_s = FLT_MIN; /* xLAMCH('S'): the smallest normal, since 1/huge is below it */
  double sfmin_d = DBL_MIN;
  void *sfmin = r->dtype == DLG_F64 ? (void *)&sfmin_d : (void *)&sfmin_s;
  void *params[] = {&col, &m, &jj, &r->ipiv, &r->info, sfmin};
  launch(r, DLG_LU_COLUMN, 1, 1, COLUMN_THREADS, params);
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
  n1 = split(kk), n2 = n - n1;
  getrf_block(r, a, j0, n1);
  laswp(r, a, j0 + n1, n2, j0, j0 + n1);
  trsm(r, sub(r, a, j0, j0, n1, n1), sub(r, a, j0, j0 + n1, n1, n2), 1);
  gemm(r, -1.0, sub(r, a, j0 + n1, j0, mm - n1, n1), sub(r, a, j0, j0 + n1, n1, n2), 1.0,
       sub(r, a, j0 + n1, j0 + n1, mm - n1, n2));
  getrf_block(r, a, j0 + n1, n2);
  laswp(r, a, j0, n1, j0 + n1, j0 + kk);
}

void dlg_cuda_getrf(dlg_factor_run *r, dlg_dview a)
{
  if (a.rows > 0 && a.cols > 0) getrf_block(r, a, 0, a.cols);
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
    gemm(r, -1.0, a, transposed(a), 0.0, w);
    launch(r, DLG_TRI_ADD, blocks(n, LEAF_THREADS), (unsigned)n, LEAF_THREADS, params);
    return;
  }
  {
    const int64_t n1 = split(n), n2 = n - n1;
    dlg_dview a1 = sub(r, a, 0, 0, n1, a.cols), a2 = sub(r, a, n1, 0, n2, a.cols);
    syrk(r, sub(r, c, 0, 0, n1, n1), a1);
    gemm(r, -1.0, a2, transposed(a1), 1.0, sub(r, c, n1, 0, n2, n1));
    syrk(r, sub(r, c, n1, n1, n2, n2), a2);
  }
}

static void potrf_block(dlg_factor_run *r, dlg_dview a, int64_t off)
{
  const int64_t n = a.rows;
  if (n <= LEAF) {
    int nn = (int)n, o = (int)off;
    long long rs = a.rs, cs = a.cs;
    void *params[] = {&a.p, &rs, &cs, &nn, &o, &r->info};
    if (n) launch(r, DLG_POTRF_LEAF, 1, 1, LEAF, params);
    return;
  }
  {
    const int64_t n1 = split(n), n2 = n - n1;
    dlg_dview a11 = sub(r, a, 0, 0, n1, n1), a21 = sub(r, a, n1, 0, n2, n1);
    potrf_block(r, a11, off);
    trsm(r, a11, transposed(a21), 0); /* L21 L11^T = A21 */
    syrk(r, sub(r, a, n1, n1, n2, n2), a21);
    potrf_block(r, sub(r, a, n1, n1, n2, n2), off + n1);
  }
}

void dlg_cuda_potrf(dlg_factor_run *r, dlg_dview a) { potrf_block(r, a, 0); }
