/*
 * blas3.c - the level-3 routines on device memory, as GEMMs on our kernels
 * plus level3.cu's small kernels.
 *
 * Every routine is first made canonical with views, which cost nothing: a
 * transposed operand is the transposed view, an upper triangle is the
 * lower one of the transposed view, and a matrix on the right is the
 * transposed problem (X op(A) = B is op(A)^T X^T = B^T).  Then:
 *
 *   GEMM (complex)  one real GEMM (cgemm.c: the operand that weighs least
 *                   packed, the others read in place as the real matrices
 *                   their interleaved storage already is)
 *   SYMM, HEMM      A's device copy made the full matrix (the other
 *                   triangle mirrored, conjugated for HEMM), then one GEMM
 *   TRMM            A's copy made the full triangular matrix (zeros, ones on
 *                   a unit diagonal), then one GEMM into a second matrix:
 *                   twice the flops of an in-place TRMM at full GEMM speed
 *   TRSM            recursive halving into GEMMs (X1 = A11^-1 B1,
 *                   B2 -= A21 X1, X2 = A22^-1 B2) down to triangles of 32,
 *                   which trsm_leaf solves, one vector per thread; a host
 *                   pipeline runs it as blocks of rows, each one GEMM with
 *                   the rows solved before and the recursion on its
 *                   diagonal block (dlg_cuda_blas3_trsm_rows)
 *   rank-k          the lower triangle of C as a sum of terms alpha P Q^T,
 *                   recursive halving: off-diagonal blocks are GEMMs
 *                   straight into C, diagonal blocks of 256 to 1024 are
 *                   computed whole into a workspace and merged into their
 *                   lower triangle, so the other triangle is never written
 *
 * alpha = 0 reads neither A nor B, beta = 0 never reads C, as the
 * reference; the Hermitian routines' diagonals come out real.
 */
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/device/kernels.h"
#include "cuda/level3/blas3.h"
#include "cuda/level3/cgemm.h"
#include "cuda/level3/launch.h"
#include "kernels/cuda/level3_args.h"

static const double one[2] = {1, 0}, zero[2] = {0, 0};

static int is(const double v[2], double re) { return v[0] == re && v[1] == 0; }

static void launch(dlg_factor_run *r, int kernel, int64_t rows, int64_t cols, void **params)
{
  dlg_l3_launch(r, kernel, rows, cols, 1, params);
}

/* c = alpha c (alpha 0: zeros, c not read). */
static void scale(dlg_factor_run *r, dlg_dview c, const double alpha[2])
{
  dlg_l3_scalar s;
  long long rs = c.rs, cs = c.cs, m = c.rows, n = c.cols;
  void *params[] = {&c.p, &rs, &cs, &m, &n, dlg_l3_scalar_of(r, alpha, &s)};
  if (m && n) launch(r, DLG_L3_SCALE, m, n, params);
}

/* A complex product on views: c = alpha a' b' + beta c, a' = conj(a) where
 * ca (b' likewise); c column-major (rs 1).  The batch of one above, after
 * a complex beta's scaling (a real GEMM takes a real beta). */
static void complex_gemm(dlg_factor_run *r, const double alpha[2], dlg_dview a, int ca, dlg_dview b,
                         int cb, const double beta[2], dlg_dview c)
{
  double beta_re = beta[0];
  if (beta[1] != 0) {
    scale(r, c, beta);
    beta_re = 1;
  }
  dlg_cuda_blas3_complex_batch(r, alpha, a, 0, ca, b, 0, cb, beta_re, c, 0, 1);
}

/* c = alpha a' b' + beta c on views of the run's type. */
static void gemm(dlg_factor_run *r, const double alpha[2], dlg_dview a, int ca, dlg_dview b, int cb,
                 const double beta[2], dlg_dview c)
{
  if (r->status || !c.rows || !c.cols) return;
  if (!dlg_is_complex(r->dtype)) {
    dlg_step_gemm(r, alpha[0], a, b, beta[0], c);
  } else if (!a.cols || is(alpha, 0)) {
    scale(r, c, beta);
  } else if (c.rs != 1) { /* c^T = b'^T a'^T, with c^T column-major */
    complex_gemm(r, alpha, dlg_step_transposed(b), cb, dlg_step_transposed(a), ca, beta,
                 dlg_step_transposed(c));
  } else {
    complex_gemm(r, alpha, a, ca, b, cb, beta, c);
  }
}

/* b = op(a)^-1 b, a n x n lower (or upper) as viewed, conjugated where conj. */
static void trsm(dlg_factor_run *r, dlg_dview a, int lower, int unit, int conj, dlg_dview b)
{
  static const double minus_one[2] = {-1, 0};
  const int64_t n = a.rows;
  if (!n || !b.cols || r->status) return;
  if (n <= DLG_L3_LEAF) {
    dlg_dview l = a, x = b;
    if (!lower) { /* an upper triangle read backwards is a lower one */
      l = dlg_step_sub(r, a, n - 1, n - 1, n, n), l.rs = -a.rs, l.cs = -a.cs;
      x = dlg_step_sub(r, b, n - 1, 0, n, b.cols), x.rs = -b.rs;
    }
    {
      long long lrs = l.rs, lcs = l.cs, xs = x.rs, vs = x.cs, nvec = b.cols;
      int nn = (int)n, u = unit, c = conj;
      void *params[] = {&l.p, &lrs, &lcs, &nn, &u, &c, &x.p, &xs, &vs, &nvec};
      launch(r, DLG_L3_TRSM_LEAF, nvec, 1, params);
    }
    return;
  }
  {
    const int64_t n1 = dlg_step_split(n), n2 = n - n1;
    const dlg_dview b1 = dlg_step_sub(r, b, 0, 0, n1, b.cols);
    const dlg_dview b2 = dlg_step_sub(r, b, n1, 0, n2, b.cols);
    const dlg_dview a11 = dlg_step_sub(r, a, 0, 0, n1, n1);
    const dlg_dview a22 = dlg_step_sub(r, a, n1, n1, n2, n2);
    if (lower) {
      trsm(r, a11, 1, unit, conj, b1);
      gemm(r, minus_one, dlg_step_sub(r, a, n1, 0, n2, n1), conj, b1, 0, one, b2);
      trsm(r, a22, 1, unit, conj, b2);
    } else {
      trsm(r, a22, 0, unit, conj, b2);
      gemm(r, minus_one, dlg_step_sub(r, a, 0, n1, n1, n2), conj, b2, 0, one, b1);
      trsm(r, a11, 0, unit, conj, b1);
    }
  }
}

/* One term alpha p' q'^T of a rank-k update (p, q n x k). */
typedef struct term {
  double alpha[2];
  dlg_dview p, q;
  int cp, cq;
} term;

static term rows_of(const dlg_factor_run *r, term t, int64_t i, int64_t n)
{
  t.p = dlg_step_sub(r, t.p, i, 0, n, t.p.cols);
  t.q = dlg_step_sub(r, t.q, i, 0, n, t.q.cols);
  return t;
}

/* The lower triangle of c = sum of the terms + beta c; w holds a diagonal
 * block of up to leaf^2 elements. */
static void rank_k(dlg_factor_run *r, dlg_dview c, const term *t, int nt, const double beta[2],
                   int herm, CUdeviceptr w, int64_t leaf)
{
  const int64_t n = c.rows;
  int i;
  if (r->status || !n) return;
  if (n <= leaf) {
    dlg_dview wv = {w, n, n, 1, n};
    dlg_l3_scalar s;
    long long rs = c.rs, cs = c.cs;
    int nn = (int)n, h = herm;
    void *params[] = {&c.p, &rs, &cs, &wv.p, &nn, dlg_l3_scalar_of(r, beta, &s), &h};
    for (i = 0; i < nt; i++)
      gemm(r, t[i].alpha, t[i].p, t[i].cp, dlg_step_transposed(t[i].q), t[i].cq, i ? one : zero,
           wv);
    launch(r, DLG_L3_TRI_MERGE, n, n, params);
    return;
  }
  {
    const int64_t n1 = dlg_step_split(n), n2 = n - n1;
    term top[2], bottom[2];
    for (i = 0; i < nt; i++) top[i] = rows_of(r, t[i], 0, n1), bottom[i] = rows_of(r, t[i], n1, n2);
    rank_k(r, dlg_step_sub(r, c, 0, 0, n1, n1), top, nt, beta, herm, w, leaf);
    for (i = 0; i < nt; i++)
      gemm(r, t[i].alpha, bottom[i].p, t[i].cp, dlg_step_transposed(top[i].q), t[i].cq,
           i ? one : beta, dlg_step_sub(r, c, n1, 0, n2, n1));
    rank_k(r, dlg_step_sub(r, c, n1, n1, n2, n2), bottom, nt, beta, herm, w, leaf);
  }
}

/* op(v) as the routine reads it: transposed unless 'N', conjugated for 'C'. */
static dlg_dview op(dlg_dview v, char trans) { return trans == 'N' ? v : dlg_step_transposed(v); }

static void rank_k_update(dlg_factor_run *r, const dlg_level3 *x, dlg_dview a, dlg_dview b,
                          dlg_dview c)
{
  const int herm = x->kind == DLG_L3_HERK || x->kind == DLG_L3_HER2K;
  const int two = x->kind == DLG_L3_SYR2K || x->kind == DLG_L3_HER2K;
  const int ca = x->transa == 'C';
  const dlg_dview pa = op(a, x->transa), pb = two ? op(b, x->transa) : pa;
  term t[2] = {{{x->alpha[0], x->alpha[1]}, pa, pb, ca, ca ^ herm},
               {{x->alpha[0], herm ? -x->alpha[1] : x->alpha[1]}, pb, pa, ca, ca ^ herm}};
  const int nt = two ? 2 : 1;
  /* Diagonal blocks of up to an eighth of C, 256 to 1024 rows: one
   * computed whole does twice its flops, but a GEMM on a 256-block fills
   * only a few SMs, and n = 8192 has 48 of them per update */
  const int64_t unit = DLG_L3_RANK_LEAF, eighths = (c.rows / 8 + unit - 1) / unit;
  const int64_t leaf = unit * (eighths < 1 ? 1 : eighths > 4 ? 4 : eighths);
  CUdeviceptr w;
  int i;
  if (x->upper) { /* the lower triangle of C^T: each term's factors swap */
    c = dlg_step_transposed(c);
    for (i = 0; i < nt; i++) {
      const dlg_dview p = t[i].p;
      const int cp = t[i].cp;
      t[i].p = t[i].q, t[i].cp = t[i].cq, t[i].q = p, t[i].cq = cp;
    }
  }
  if (!x->k || is(x->alpha, 0)) {
    dlg_l3_scalar s;
    long long rs = c.rs, cs = c.cs, n = c.rows;
    int h = herm;
    void *params[] = {&c.p, &rs, &cs, &n, dlg_l3_scalar_of(r, x->beta, &s), &h};
    launch(r, DLG_L3_TRI_SCALE, n, n, params);
    return;
  }
  w = dlg_l3_scratch(r, (size_t)(leaf * leaf) * dlg_elem_size(r->dtype));
  rank_k(r, c, t, nt, x->beta, herm, w, leaf);
  dlg_l3_release(r, w);
}

/* The triangle of a (lower as viewed) made a full matrix: kernel
 * DLG_L3_SYMMETRIZE (flag: Hermitian) or DLG_L3_TRI_FILL (flag: unit). */
static void fill(dlg_factor_run *r, int kernel, dlg_dview a, int flag)
{
  long long rs = a.rs, cs = a.cs, n = a.rows;
  void *params[] = {&a.p, &rs, &cs, &n, &flag};
  launch(r, kernel, n, n, params);
}

void dlg_cuda_blas3_prepare(dlg_factor_run *r, const dlg_level3 *x, dlg_dview a)
{
  const dlg_dview lower_a = x->upper ? dlg_step_transposed(a) : a;
  if (x->kind == DLG_L3_SYMM || x->kind == DLG_L3_HEMM)
    fill(r, DLG_L3_SYMMETRIZE, lower_a, x->kind == DLG_L3_HEMM);
  else if (x->kind == DLG_L3_TRMM)
    fill(r, DLG_L3_TRI_FILL, lower_a, x->unit);
}

/* TRSM's canonical form: left, op(A) X = B; right, op(A)^T X^T = B^T,
 * where op(A)^T is A^T for 'N' and A itself (conjugated for 'C')
 * otherwise; the triangle as viewed is then lower (solved forward) or
 * upper. */
int dlg_cuda_blas3_trsm_forward(const dlg_level3 *x)
{
  return dlg_level3_trsm_transposed(x) ? x->upper : !x->upper;
}

void dlg_cuda_blas3_trsm_rows(dlg_factor_run *r, const dlg_level3 *x, dlg_dview a, dlg_dview c,
                              int64_t i0, int64_t i1)
{
  static const double minus_one[2] = {-1, 0};
  const int lower = dlg_cuda_blas3_trsm_forward(x), ca = x->transa == 'C';
  const dlg_dview at = dlg_level3_trsm_transposed(x) ? dlg_step_transposed(a) : a;
  const dlg_dview b = x->right ? dlg_step_transposed(c) : c;
  const int64_t n = at.rows, w = i1 - i0, nrhs = b.cols;
  const dlg_dview bi = dlg_step_sub(r, b, i0, 0, w, nrhs);
  if (!w || !nrhs) return;
  if (!is(x->alpha, 1)) scale(r, bi, x->alpha);
  if (is(x->alpha, 0)) return;
  /* the rows already solved: above the block (lower), below it (upper) */
  if (lower && i0)
    gemm(r, minus_one, dlg_step_sub(r, at, i0, 0, w, i0), ca, dlg_step_sub(r, b, 0, 0, i0, nrhs),
         0, one, bi);
  else if (!lower && i1 < n)
    gemm(r, minus_one, dlg_step_sub(r, at, i0, i1, w, n - i1), ca,
         dlg_step_sub(r, b, i1, 0, n - i1, nrhs), 0, one, bi);
  trsm(r, dlg_step_sub(r, at, i0, i0, w, w), lower, x->unit, ca, bi);
}

void dlg_cuda_blas3(dlg_factor_run *r, const dlg_level3 *x, dlg_dview a, dlg_dview b, dlg_dview c,
                    dlg_dview w)
{
  const int ca = x->transa == 'C';
  switch (x->kind) {
  case DLG_L3_GEMM:
    gemm(r, x->alpha, op(a, x->transa), ca, op(b, x->transb), x->transb == 'C', x->beta, c);
    break;
  case DLG_L3_SYMM:
  case DLG_L3_HEMM:
    if (is(x->alpha, 0)) {
      scale(r, c, x->beta);
      break;
    }
    if (x->right)
      gemm(r, x->alpha, b, 0, a, 0, x->beta, c);
    else
      gemm(r, x->alpha, a, 0, b, 0, x->beta, c);
    break;
  case DLG_L3_TRMM:
    if (is(x->alpha, 0)) {
      scale(r, w, zero);
      break;
    }
    if (x->right)
      gemm(r, x->alpha, c, 0, op(a, x->transa), ca, zero, w);
    else
      gemm(r, x->alpha, op(a, x->transa), ca, c, 0, zero, w);
    break;
  case DLG_L3_TRSM:
    dlg_cuda_blas3_trsm_rows(r, x, a, c, 0, x->right ? x->n : x->m);
    break;
  default: rank_k_update(r, x, a, b, c);
  }
}
