/*
 * qr.c - QR on device memory, and the application of its Q: DGEQRF's and
 * DORMQR's blocked algorithms, every flop but the reflectors' own in the
 * GEMM kernels.
 *
 * Block columns of NB: the panel is factored as DGEQRT3 does (Elmroth and
 * Gustavson's recursive QR): factor the left half, apply its block
 * reflector I - V1 T1 V1^T to the right half, factor the lower right half,
 * and join the two T factors, T12 = -T1 (V1^T V2) T2.  One column is
 * householder (lapack.cu: DLARFG).  The trailing matrix then takes the
 * panel's block reflector as DLARFB does, C -= V (T^T (V^T C)): three GEMMs.
 *
 * V is kept apart from A, in a workspace zeroed per panel, with its unit
 * diagonal written: A holds R above the diagonal where V's zeros are, and
 * with V explicit every product is a plain GEMM.  T, zero below its
 * diagonal, likewise.  The panel's extra flops (the T joins, products with
 * the zeros of V) are O(m NB^2) per panel against the update's O(m n NB).
 *
 * R, V and TAU come out as DGEQRF's (same reflectors, beta = -sign(alpha)
 * |x|); the order of the sums differs, so the last bits do.
 *
 * ORMQR gets A from the host and never gives it back, so its device copy
 * becomes V in place (unit_lower: one launch for every block), and each
 * block's T is DLARFT's from G = V^T V (one GEMM, then larft): five
 * launches a block of NB reflectors, against the ~10 a column that QR's
 * panel costs.
 */
#include <float.h>
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/lapack/qr.h"
#include "cuda/lapack/steps.h"
#include "kernels/cuda/lapack_args.h"

enum { NB = DLG_QR_NB }; /* panel width: LAPACK's NB is 32; the GEMMs like 64 better */

typedef struct qr_work {
  dlg_dview v;      /* the panel's V: ldv x NB */
  dlg_dview t;      /* its T: NB x NB */
  dlg_dview w1, w2; /* the products of a block reflector: NB x max(n, NB) each */
} qr_work;

static int64_t round32(int64_t n) { return (n + 31) / 32 * 32; }

size_t dlg_cuda_geqrf_work(int64_t m, int64_t n, size_t es)
{
  const int64_t wide = n > NB ? n : NB;
  return es * (size_t)(round32(m) * NB + NB * NB + 2 * NB * wide);
}

static qr_work carve(const dlg_factor_run *r, int64_t m, int64_t n)
{
  const size_t es = dlg_elem_size(r->dtype);
  const int64_t ldv = round32(m), wide = n > NB ? n : NB;
  qr_work w;
  w.v = (dlg_dview){r->work, m, NB, 1, ldv};
  w.t = (dlg_dview){w.v.p + (CUdeviceptr)(ldv * NB * es), NB, NB, 1, NB};
  w.w1 = (dlg_dview){w.t.p + (CUdeviceptr)(NB * NB * es), NB, wide, 1, NB};
  w.w2 = (dlg_dview){w.w1.p + (CUdeviceptr)(NB * wide * es), NB, wide, 1, NB};
  return w;
}

/* DLARFG on column 0 of a (its top element the diagonal), reflector j. */
static void householder(dlg_factor_run *r, dlg_dview a, dlg_dview v, dlg_dview t, int64_t j)
{
  const size_t es = dlg_elem_size(r->dtype);
  CUdeviceptr tau = r->tau + (CUdeviceptr)(j * (int64_t)es);
  long long m = a.rows;
  /* DLAMCH('S') / DLAMCH('E') and DLAMCH('O'), as DLARFG and DLAPY2 use */
  float sfmin_s = FLT_MIN / (FLT_EPSILON / 2), huge_s = FLT_MAX;
  double sfmin_d = DBL_MIN / (DBL_EPSILON / 2), huge_d = DBL_MAX;
  const int d = r->dtype == DLG_F64;
  void *params[] = {&a.p, &m, &v.p, &tau, &t.p, d ? (void *)&sfmin_d : (void *)&sfmin_s,
                    d ? (void *)&huge_d : (void *)&huge_s};
  dlg_step_launch(r, DLG_HOUSEHOLDER, 1, 1, DLG_LAPACK_COLUMN_THREADS, params);
}

/* The block reflector H = I - v t v^T, or H^T where trans, applied to c
 * from the left (c = H c: c -= v (t (v^T c))) or the right (c = c H:
 * c -= ((c v) t) v^T), three GEMMs through w1 and w2: v.cols x c.cols
 * from the left, c.rows x v.cols from the right, leading dimension ldw. */
static void apply(dlg_factor_run *r, CUdeviceptr w1, CUdeviceptr w2, int64_t ldw, dlg_dview v,
                  dlg_dview t, int right, int trans, dlg_dview c)
{
  const dlg_dview ot = trans ? dlg_step_transposed(t) : t;
  if (!right) {
    const dlg_dview x = {w1, v.cols, c.cols, 1, ldw}, y = {w2, v.cols, c.cols, 1, ldw};
    dlg_step_gemm(r, 1.0, dlg_step_transposed(v), c, 0.0, x);
    dlg_step_gemm(r, 1.0, ot, x, 0.0, y);
    dlg_step_gemm(r, -1.0, v, y, 1.0, c);
  } else {
    const dlg_dview x = {w1, c.rows, v.cols, 1, ldw}, y = {w2, c.rows, v.cols, 1, ldw};
    dlg_step_gemm(r, 1.0, c, v, 0.0, x);
    dlg_step_gemm(r, 1.0, x, ot, 0.0, y);
    dlg_step_gemm(r, -1.0, y, dlg_step_transposed(v), 1.0, c);
  }
}

/* c -= v (t^T (v^T c)): QR's update, H^T from the left. */
static void apply_left(dlg_factor_run *r, const qr_work *w, dlg_dview v, dlg_dview t,
                       dlg_dview c)
{
  apply(r, w->w1.p, w->w2.p, NB, v, t, 0, 1, c);
}

/* The panel a (rows from reflector j's diagonal down), its V in v and T in
 * t, as DGEQRT3. */
static void panel(dlg_factor_run *r, const qr_work *w, dlg_dview a, dlg_dview v, dlg_dview t,
                  int64_t j)
{
  const int64_t m = a.rows, n = a.cols;
  if (n == 1) {
    householder(r, a, v, t, j);
    return;
  }
  {
    const int64_t n1 = dlg_step_split(n), n2 = n - n1;
    const dlg_dview v1 = dlg_step_sub(r, v, 0, 0, m, n1), t11 = dlg_step_sub(r, t, 0, 0, n1, n1);
    const dlg_dview v2 = dlg_step_sub(r, v, n1, n1, m - n1, n2);
    const dlg_dview t22 = dlg_step_sub(r, t, n1, n1, n2, n2);
    dlg_dview s1 = {w->w1.p, n1, n2, 1, w->w1.cs}, s2 = {w->w2.p, n1, n2, 1, w->w2.cs};
    panel(r, w, dlg_step_sub(r, a, 0, 0, m, n1), v1, t11, j);
    apply_left(r, w, v1, t11, dlg_step_sub(r, a, 0, n1, m, n2));
    panel(r, w, dlg_step_sub(r, a, n1, n1, m - n1, n2), v2, t22, j + n1);
    /* T12 = -T11 (V1^T V2) T22; V2 is zero above row n1 */
    dlg_step_gemm(r, 1.0, dlg_step_transposed(dlg_step_sub(r, v1, n1, 0, m - n1, n1)), v2, 0.0,
                  s1);
    dlg_step_gemm(r, 1.0, t11, s1, 0.0, s2);
    dlg_step_gemm(r, -1.0, s2, t22, 0.0, dlg_step_sub(r, t, 0, n1, n1, n2));
  }
}

static void zero(dlg_factor_run *r, dlg_dview x)
{
  const size_t words = (size_t)(x.cs * x.cols) * dlg_elem_size(r->dtype) / 4;
  CUresult e;
  if (r->status) return;
  if ((e = r->cu->MemsetD32Async(x.p, 0, words, r->stream)))
    r->status = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA memset failed: %s", dlg_cuda_error(e));
}

void dlg_cuda_geqrf(dlg_factor_run *r, dlg_dview a)
{
  const int64_t m = a.rows, n = a.cols, k = m < n ? m : n;
  const qr_work w = carve(r, m, n);
  int64_t j0;
  for (j0 = 0; j0 < k && !r->status; j0 += NB) {
    const int64_t jb = k - j0 < NB ? k - j0 : NB, rows = m - j0;
    const dlg_dview v = {w.v.p, rows, jb, 1, w.v.cs}, t = {w.t.p, jb, jb, 1, w.t.cs};
    zero(r, w.v);
    zero(r, w.t);
    panel(r, &w, dlg_step_sub(r, a, j0, j0, rows, jb), v, t, j0);
    if (j0 + jb < n) apply_left(r, &w, v, t, dlg_step_sub(r, a, j0, j0 + jb, rows, n - j0 - jb));
  }
}

size_t dlg_cuda_ormqr_work(int64_t m, int64_t n, int right, size_t es)
{
  return es * (size_t)(2 * NB * NB + 2 * NB * (right ? round32(m) : n));
}

void dlg_cuda_ormqr(dlg_factor_run *r, dlg_dview a, dlg_dview c, int right, int trans)
{
  const size_t es = dlg_elem_size(r->dtype);
  const int64_t nq = a.rows, k = a.cols, blocks = (k + NB - 1) / NB;
  const int64_t ldw = right ? round32(c.rows) : NB;
  /* Q^T from the left and Q from the right take H(1) first */
  const int forward = right != trans;
  const CUdeviceptr g = r->work, t = g + NB * NB * es, w1 = t + NB * NB * es;
  const CUdeviceptr w2 = w1 + (CUdeviceptr)(ldw * (right ? NB : c.cols) * es);
  long long ld = a.cs;
  int rows = (int)nq, cols = (int)k, b;
  void *params[] = {&a.p, &ld, &rows, &cols};
  dlg_step_launch(r, DLG_UNIT_LOWER, (unsigned)(k < 4096 ? k : 4096), 1, 128, params);
  for (b = 0; b < blocks; b++) {
    const int64_t j0 = (forward ? b : blocks - 1 - b) * NB, jb = k - j0 < NB ? k - j0 : NB;
    const dlg_dview v = dlg_step_sub(r, a, j0, j0, nq - j0, jb);
    const dlg_dview gv = {g, jb, jb, 1, NB}, tv = {t, jb, jb, 1, NB};
    CUdeviceptr tau = r->tau + (CUdeviceptr)(j0 * (int64_t)es), tp = t, gp = g;
    int n = (int)jb;
    void *larft[] = {&tp, &gp, &tau, &n};
    dlg_step_gemm(r, 1.0, dlg_step_transposed(v), v, 0.0, gv);
    dlg_step_launch(r, DLG_LARFT, 1, 1, NB, larft);
    apply(r, w1, w2, ldw, v, tv, right, trans,
          right ? dlg_step_sub(r, c, 0, j0, c.rows, nq - j0)
                : dlg_step_sub(r, c, j0, 0, nq - j0, c.cols));
  }
}
