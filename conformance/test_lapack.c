/*
 * test_lapack.c - xGETRF, xPOTRF, xGEQRF and xORMQR through dlgemm against the reference
 * LAPACK, as a program linked with -llapack -lblas sees them (libdlgemm.so
 * comes first in its link order, as LD_PRELOAD would put it).
 *
 *   usage: test_lapack cpu|gpu [CASES]
 *
 * The reference is liblapack.so.3's own routine, called on a copy of the
 * same input through dlopen: in "cpu" mode (no GPU, or DLGEMM_FORCE=cpu)
 * every result must be bit for bit the reference's; in "gpu" mode
 * (DLGEMM_FORCE=gpu, skips without a usable GPU) the factors must
 * reconstruct A within LAPACK's own test threshold (30, in units of
 * n |A| eps), pivots must be legal and INFO equal; QR's Q (formed by the
 * reference's xORGQR from our reflectors) must be orthogonal to the same
 * threshold and R's diagonal have the reference's signs; xORMQR's product
 * must be the reference's within 30 (|C| nq eps).  Both modes check:
 *   - odd shapes (m != n, 1, primes, around the 32 leaf), lda > m with the
 *     rows beyond m poisoned and left bit for bit alone, uplo L and U with
 *     the other triangle left alone;
 *   - xORMQR from either side, transposed or not, with k all or some of the
 *     reflectors, A and TAU left alone, WORK(1) the reference's;
 *   - a zero column (INFO from GETRF, TAU = 0 from GEQRF), a matrix that is
 *     not positive definite (INFO from POTRF, and the reference's partial
 *     factor), a matrix so small that DLARFG rescales (GEQRF);
 *   - host writes between calls: in place, by memcpy, from another thread,
 *     and two matrices interleaved in one array (lda = 2n);
 *   - 200 more calls with the device memory and the process's resident
 *     memory flat (gpu mode).
 * DLGEMM_INJECT_FAULT (ctest runs oom, launch and copy faults) must change
 * nothing here: the faulted call ends on the CPU with the same checks.
 */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_probe.h"
#include "testutil.h"
#ifdef DLGEMM_HAVE_CUDA
#include "cudrv.h"
#endif

void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void sgetrf_(const int *, const int *, float *, const int *, int *, int *);
void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);
void spotrf_(const char *, const int *, float *, const int *, int *, size_t);
void dgeqrf_(const int *, const int *, double *, const int *, double *, double *, const int *,
             int *);
void sgeqrf_(const int *, const int *, float *, const int *, float *, float *, const int *, int *);
void dormqr_(const char *, const char *, const int *, const int *, const int *, const double *,
             const int *, const double *, double *, const int *, double *, const int *, int *,
             size_t, size_t);
void sormqr_(const char *, const char *, const int *, const int *, const int *, const float *,
             const int *, const float *, float *, const int *, float *, const int *, int *,
             size_t, size_t);

typedef void (*getrf_fn)(const int *, const int *, void *, const int *, int *, int *);
typedef void (*potrf_fn)(const char *, const int *, void *, const int *, int *, size_t);
typedef void (*geqrf_fn)(const int *, const int *, void *, const int *, void *, void *,
                         const int *, int *);
typedef void (*orgqr_fn)(const int *, const int *, const int *, void *, const int *, const void *,
                         void *, const int *, int *);
typedef void (*ormqr_fn)(const char *, const char *, const int *, const int *, const int *,
                         const void *, const int *, const void *, void *, const int *, void *,
                         const int *, int *, size_t, size_t);
static getrf_fn ref_getrf[2];
static potrf_fn ref_potrf[2];
static geqrf_fn ref_geqrf[2];
static orgqr_fn ref_orgqr[2];
static ormqr_fn ref_ormqr[2];
static int gpu_mode, failures, checks;
static rng r;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    checks++;                                                                                      \
    if (!(cond)) {                                                                                 \
      if (++failures <= 20) printf("FAIL: " __VA_ARGS__), printf("\n");                            \
    }                                                                                              \
  } while (0)

/* A matrix of either precision, kept as double for the checks. */
typedef struct mat {
  int d; /* double (1) or float (0) */
  int m, n, lda;
  void *x;
} mat;

static double get(const mat *a, int i, int j)
{
  size_t o = (size_t)i + (size_t)j * a->lda;
  return a->d ? ((double *)a->x)[o] : ((float *)a->x)[o];
}
static void put(mat *a, int i, int j, double v)
{
  size_t o = (size_t)i + (size_t)j * a->lda;
  if (a->d) ((double *)a->x)[o] = v;
  else ((float *)a->x)[o] = (float)v;
}
static size_t bytes(const mat *a) { return (size_t)a->lda * a->n * (a->d ? 8 : 4); }
static mat alloc_like(const mat *a)
{
  mat b = *a;
  b.x = malloc(bytes(a));
  memcpy(b.x, a->x, bytes(a));
  return b;
}

/* Random m x n with NaN in the padding rows (must stay as they are);
 * kind 'p': symmetric, diagonally dominant (positive definite). */
static mat make(int d, int m, int n, int pad, char kind)
{
  mat a = {d, m, n, m + pad, NULL};
  int i, j;
  a.x = malloc(bytes(&a) ? bytes(&a) : 8);
  for (j = 0; j < n; j++)
    for (i = 0; i < a.lda; i++) put(&a, i, j, i < m ? rng_unit(&r) : NAN);
  if (kind == 'p')
    for (j = 0; j < n; j++) {
      for (i = 0; i < j; i++) put(&a, i, j, get(&a, j, i));
      put(&a, j, j, n + 1.0);
    }
  return a;
}

static double eps(const mat *a) { return a->d ? DBL_EPSILON : FLT_EPSILON; }
static double norm1(const mat *a)
{
  double best = 0;
  int i, j;
  for (j = 0; j < a->n; j++) {
    double s = 0;
    for (i = 0; i < a->m; i++) s += fabs(get(a, i, j));
    if (s > best) best = s;
  }
  return best;
}

/* |P L U - A| / (n |A| eps), P from ipiv, in double. */
static double lu_residual(const mat *a0, const mat *f, const int *ipiv)
{
  const int m = a0->m, n = a0->n, k = m < n ? m : n;
  double *pa = malloc(sizeof(double) * m * n), worst = 0, an = norm1(a0);
  int i, j, l;
  for (j = 0; j < n; j++)
    for (i = 0; i < m; i++) pa[i + (size_t)j * m] = get(a0, i, j);
  for (i = 0; i < k; i++) /* P^T A: the interchanges in order */
    for (j = 0; j < n; j++) {
      double t = pa[i + (size_t)j * m];
      pa[i + (size_t)j * m] = pa[ipiv[i] - 1 + (size_t)j * m];
      pa[ipiv[i] - 1 + (size_t)j * m] = t;
    }
  for (j = 0; j < n; j++) {
    double col = 0;
    for (i = 0; i < m; i++) {
      double s = 0;
      for (l = 0; l <= (i < j ? i : j) && l < k; l++)
        s += (l == i ? 1.0 : get(f, i, l)) * get(f, l, j);
      col += fabs(s - pa[i + (size_t)j * m]);
    }
    if (col > worst) worst = col;
  }
  free(pa);
  return an > 0 ? worst / (an * (m > n ? m : n) * eps(a0)) : worst;
}

/* |L L^T - A| / (n |A| eps) over the referenced triangle (upper: U^T U). */
static double chol_residual(const mat *a0, const mat *f, int lower)
{
  const int n = a0->n;
  double worst = 0, an = norm1(a0);
  int i, j, l;
  for (j = 0; j < n; j++) {
    double col = 0;
    for (i = j; i < n; i++) {
      double s = 0;
      for (l = 0; l <= j; l++)
        s += lower ? get(f, i, l) * get(f, j, l) : get(f, l, i) * get(f, l, j);
      col += fabs(s - (lower ? get(a0, i, j) : get(a0, j, i)));
    }
    if (col > worst) worst = col;
  }
  return worst / (an * n * eps(a0));
}

/* Everything outside what the routine may write is bit for bit as before. */
static int untouched(const mat *before, const mat *after, char uplo)
{
  int i, j;
  for (j = 0; j < before->n; j++)
    for (i = 0; i < before->lda; i++) {
      int written = i < before->m && (uplo == 0 || (uplo == 'L' ? i >= j : i <= j));
      size_t o = (size_t)i + (size_t)j * before->lda, es = before->d ? 8 : 4;
      if (!written && memcmp((char *)before->x + o * es, (char *)after->x + o * es, es)) return 0;
    }
  return 1;
}

/* Ours (the program's dgetrf_) against the reference on a copy. */
static void check_getrf(mat *a, const char *what)
{
  mat ours = alloc_like(a), ref = alloc_like(a);
  const int k = a->m < a->n ? a->m : a->n;
  int *ip = calloc(k + 1, sizeof(int)), *ipr = calloc(k + 1, sizeof(int)), info = -7, infor = -7, i;
  if (a->d) dgetrf_(&a->m, &a->n, ours.x, &a->lda, ip, &info);
  else sgetrf_(&a->m, &a->n, ours.x, &a->lda, ip, &info);
  ref_getrf[a->d](&a->m, &a->n, ref.x, &a->lda, ipr, &infor);
  CHECK(info == infor, "%s %cgetrf m=%d n=%d lda=%d: info %d, reference %d", what, "sd"[a->d],
        a->m, a->n, a->lda, info, infor);
  CHECK(untouched(a, &ours, 0), "%s %cgetrf m=%d n=%d: rows beyond m were written", what,
        "sd"[a->d], a->m, a->n);
  if (!gpu_mode) {
    CHECK(!memcmp(ours.x, ref.x, bytes(a)) && !memcmp(ip, ipr, sizeof(int) * k),
          "%s %cgetrf m=%d n=%d: not bit for bit the reference's", what, "sd"[a->d], a->m, a->n);
  } else {
    double res = lu_residual(a, &ours, ip);
    int legal = 1;
    for (i = 0; i < k; i++) legal &= ip[i] >= i + 1 && ip[i] <= a->m;
    CHECK(legal, "%s %cgetrf m=%d n=%d: illegal pivot", what, "sd"[a->d], a->m, a->n);
    CHECK(res < 30, "%s %cgetrf m=%d n=%d lda=%d: residual %.3g", what, "sd"[a->d], a->m, a->n,
          a->lda, res);
  }
  free(ours.x), free(ref.x), free(ip), free(ipr);
}

static void check_potrf(mat *a, char uplo, const char *what)
{
  mat ours = alloc_like(a), ref = alloc_like(a);
  int info = -7, infor = -7;
  if (a->d) dpotrf_(&uplo, &a->n, ours.x, &a->lda, &info, 1);
  else spotrf_(&uplo, &a->n, ours.x, &a->lda, &info, 1);
  ref_potrf[a->d](&uplo, &a->n, ref.x, &a->lda, &infor, 1);
  CHECK(info == infor, "%s %cpotrf n=%d uplo=%c: info %d, reference %d", what, "sd"[a->d], a->n,
        uplo, info, infor);
  CHECK(untouched(a, &ours, uplo), "%s %cpotrf n=%d uplo=%c: wrote outside its triangle", what,
        "sd"[a->d], a->n, uplo);
  /* not positive definite: the reference's partial factor, from the reference */
  if (!gpu_mode || infor > 0)
    CHECK(!memcmp(ours.x, ref.x, bytes(a)), "%s %cpotrf n=%d uplo=%c: not bit for bit the "
          "reference's", what, "sd"[a->d], a->n, uplo);
  else {
    double res = chol_residual(a, &ours, uplo == 'L');
    CHECK(res < 30, "%s %cpotrf n=%d uplo=%c lda=%d: residual %.3g", what, "sd"[a->d], a->n, uplo,
          a->lda, res);
  }
  free(ours.x), free(ref.x);
}

/* Q R - A and Q^T Q - I, Q = the first k columns of H(1)...H(k) formed by
 * the reference's xORGQR from f's reflectors; both in units of m eps (the
 * first also of |A|), as LAPACK's xQRT01. */
static void qr_residuals(const mat *a0, const mat *f, const void *tau, double *res, double *orth)
{
  const int m = a0->m, n = a0->n, k = m < n ? m : n, es = a0->d ? 8 : 4;
  mat q = {a0->d, m, k, m, malloc((size_t)m * k * es + es)};
  const int lwork = 64 * (k + 1);
  void *work = malloc((size_t)lwork * es);
  double an = norm1(a0), worst = 0, o = 0;
  int i, j, l, info;
  for (j = 0; j < k; j++)
    for (i = 0; i < m; i++) put(&q, i, j, get(f, i, j));
  ref_orgqr[a0->d](&m, &k, &k, q.x, &m, tau, work, &lwork, &info);
  for (j = 0; j < n; j++) {
    double col = 0;
    for (i = 0; i < m; i++) {
      double s = 0;
      for (l = 0; l <= j && l < k; l++) s += get(&q, i, l) * get(f, l, j);
      col += fabs(s - get(a0, i, j));
    }
    if (col > worst) worst = col;
  }
  for (j = 0; j < k; j++) {
    double col = 0;
    for (i = 0; i < k; i++) {
      double s = 0;
      for (l = 0; l < m; l++) s += get(&q, l, i) * get(&q, l, j);
      col += fabs(s - (i == j));
    }
    if (col > o) o = col;
  }
  *res = an > 0 ? worst / (an * m * eps(a0)) : worst;
  *orth = o / (m * eps(a0));
  free(q.x), free(work);
}

static void check_geqrf(mat *a, const char *what)
{
  mat ours = alloc_like(a), ref = alloc_like(a);
  const int k = a->m < a->n ? a->m : a->n, es = a->d ? 8 : 4, lwork = 64 * (a->n + 1);
  char *tau = calloc(k + 1, es), *taur = calloc(k + 1, es);
  char *work = calloc(lwork, es), *workr = calloc(lwork, es);
  int info = -7, infor = -7, i, signs = 1;
  if (a->d) dgeqrf_(&a->m, &a->n, ours.x, &a->lda, (double *)tau, (double *)work, &lwork, &info);
  else sgeqrf_(&a->m, &a->n, ours.x, &a->lda, (float *)tau, (float *)work, &lwork, &info);
  ref_geqrf[a->d](&a->m, &a->n, ref.x, &a->lda, taur, workr, &lwork, &infor);
  CHECK(info == infor, "%s %cgeqrf m=%d n=%d lda=%d: info %d, reference %d", what, "sd"[a->d],
        a->m, a->n, a->lda, info, infor);
  CHECK(untouched(a, &ours, 0), "%s %cgeqrf m=%d n=%d: rows beyond m were written", what,
        "sd"[a->d], a->m, a->n);
  CHECK(!memcmp(work, workr, es), "%s %cgeqrf m=%d n=%d: WORK(1) is not the reference's", what,
        "sd"[a->d], a->m, a->n);
  if (!gpu_mode) {
    CHECK(!memcmp(ours.x, ref.x, bytes(a)) && !memcmp(tau, taur, (size_t)k * es),
          "%s %cgeqrf m=%d n=%d: not bit for bit the reference's", what, "sd"[a->d], a->m, a->n);
  } else {
    double res, orth;
    qr_residuals(a, &ours, tau, &res, &orth);
    for (i = 0; i < k; i++) /* the same reflectors: beta = -sign(alpha) |x| */
      signs &= (get(&ours, i, i) < 0) == (get(&ref, i, i) < 0);
    CHECK(res < 30 && orth < 30, "%s %cgeqrf m=%d n=%d lda=%d: residual %.3g, orthogonality %.3g",
          what, "sd"[a->d], a->m, a->n, a->lda, res, orth);
    CHECK(signs, "%s %cgeqrf m=%d n=%d: R's diagonal has other signs than the reference's", what,
          "sd"[a->d], a->m, a->n);
  }
  free(ours.x), free(ref.x), free(tau), free(taur), free(work), free(workr);
}

/* op(Q) C or C op(Q), Q from the first k reflectors of the reference's QR
 * of a, C `other` wide (from the left) or high (from the right) with NaN
 * padding rows: ours against the reference's xORMQR on the same C, with A,
 * TAU and the padding left bit for bit alone and WORK(1) the reference's.
 * GPU mode: |ours - reference|_1 / (|C|_1 nq eps) < 30 (xQRT03's measure). */
static void check_ormqr(const mat *a, char side, char trans, int other, int k, const char *what)
{
  const int es = a->d ? 8 : 4, nq = a->m, left = side == 'L';
  const int lwork = (left ? other : nq) * 64 + 65 * 64, kq = a->m < a->n ? a->m : a->n;
  mat f = alloc_like(a), c0 = make(a->d, left ? nq : other, left ? other : nq, 2, 'g');
  mat ours = alloc_like(&c0), ref = alloc_like(&c0), fkeep;
  char *tau = calloc(kq + 1, es), *taukeep = calloc(kq + 1, es);
  char *work = calloc(lwork, es), *workr = calloc(lwork, es);
  int info = -7, infor = -7, i, j;
  ref_geqrf[a->d](&a->m, &a->n, f.x, &a->lda, tau, work, &lwork, &info);
  fkeep = alloc_like(&f);
  memcpy(taukeep, tau, (size_t)kq * es);
  info = -7;
  if (a->d)
    dormqr_(&side, &trans, &c0.m, &c0.n, &k, f.x, &f.lda, (double *)tau, ours.x, &ours.lda,
            (double *)work, &lwork, &info, 1, 1);
  else
    sormqr_(&side, &trans, &c0.m, &c0.n, &k, f.x, &f.lda, (float *)tau, ours.x, &ours.lda,
            (float *)work, &lwork, &info, 1, 1);
  ref_ormqr[a->d](&side, &trans, &c0.m, &c0.n, &k, fkeep.x, &f.lda, taukeep, ref.x, &ref.lda,
                  workr, &lwork, &infor, 1, 1);
  CHECK(info == infor, "%s %cormqr %c%c m=%d n=%d k=%d: info %d, reference %d", what,
        "sd"[a->d], side, trans, c0.m, c0.n, k, info, infor);
  CHECK(!memcmp(work, workr, es), "%s %cormqr %c%c m=%d n=%d k=%d: WORK(1) is not the "
        "reference's", what, "sd"[a->d], side, trans, c0.m, c0.n, k);
  CHECK(!memcmp(f.x, fkeep.x, bytes(&f)) && !memcmp(tau, taukeep, (size_t)kq * es),
        "%s %cormqr %c%c m=%d n=%d k=%d: A or TAU was written", what, "sd"[a->d], side, trans,
        c0.m, c0.n, k);
  CHECK(untouched(&c0, &ours, 0), "%s %cormqr %c%c m=%d n=%d: rows beyond m were written", what,
        "sd"[a->d], side, trans, c0.m, c0.n);
  if (!gpu_mode) {
    CHECK(!memcmp(ours.x, ref.x, bytes(&c0)), "%s %cormqr %c%c m=%d n=%d k=%d: not bit for bit "
          "the reference's", what, "sd"[a->d], side, trans, c0.m, c0.n, k);
  } else {
    double worst = 0, res;
    for (j = 0; j < c0.n; j++) {
      double col = 0;
      for (i = 0; i < c0.m; i++) col += fabs(get(&ours, i, j) - get(&ref, i, j));
      if (!(col <= worst)) worst = col; /* NaN is the worst */
    }
    res = worst / (norm1(&c0) * nq * eps(a));
    CHECK(res < 30, "%s %cormqr %c%c m=%d n=%d k=%d ldc=%d: difference %.3g", what, "sd"[a->d],
          side, trans, c0.m, c0.n, k, c0.lda, res);
  }
  free(f.x), free(fkeep.x), free(c0.x), free(ours.x), free(ref.x);
  free(tau), free(taukeep), free(work), free(workr);
}

/* Every side and transpose, k all the reflectors or about two thirds. */
static void check_ormqr_all(const mat *a, int other, const char *what)
{
  static const char st[4][2] = {{'L', 'N'}, {'L', 'T'}, {'R', 'N'}, {'R', 'T'}};
  const int k = a->m < a->n ? a->m : a->n;
  int i;
  for (i = 0; i < 4; i++) check_ormqr(a, st[i][0], st[i][1], other, i % 2 ? k - k / 3 : k, what);
}

static void *writer(void *arg)
{
  mat *a = arg;
  int i, j;
  for (j = 0; j < a->n; j++)
    for (i = 0; i < a->m; i++) put(a, i, j, rng_unit(&r));
  return NULL;
}

/* A host write between two calls is never lost: in place, memcpy, another
 * thread; and two matrices sharing one array. */
static void host_writes(int d)
{
  const int n = 300;
  mat a = make(d, n, n, 0, 'g'), b = make(d, n, n, 0, 'g'), buf;
  int *ip = malloc(sizeof(int) * n), info, i, j;
  pthread_t t;
  mat work = alloc_like(&a);
  if (d) dgetrf_(&n, &n, work.x, &n, ip, &info); /* the first call */
  else sgetrf_(&n, &n, work.x, &n, ip, &info);
  memcpy(work.x, a.x, bytes(&a));
  put(&work, 7, 9, 5.0), put(&a, 7, 9, 5.0); /* in place, then again */
  check_getrf(&work, "after an in-place write");
  memcpy(work.x, b.x, bytes(&b));
  check_getrf(&work, "after a memcpy");
  pthread_create(&t, NULL, writer, &work);
  pthread_join(t, NULL);
  check_getrf(&work, "after another thread's writes");
  /* two n x n matrices interleaved column by column in one array; one
   * column more, so that the second matrix's view (lda 2n, starting n
   * rows in) ends inside the array: the checks copy and compare all of it */
  buf = make(d, 2 * n, n + 1, 0, 'g');
  {
    mat first = {d, n, n, 2 * n, buf.x}, second = {d, n, n, 2 * n, (char *)buf.x + (d ? 8 : 4) * n};
    mat keep = alloc_like(&buf);
    check_getrf(&first, "interleaved, first");
    if (d) dgetrf_(&n, &n, first.x, &first.lda, ip, &info);
    else sgetrf_(&n, &n, first.x, &first.lda, ip, &info);
    memcpy(keep.x, buf.x, bytes(&buf));
    check_getrf(&second, "interleaved, second");
    if (d) dgetrf_(&n, &n, second.x, &second.lda, ip, &info);
    else sgetrf_(&n, &n, second.x, &second.lda, ip, &info);
    for (j = 0; j < n; j++)
      for (i = 0; i < n; i++)
        CHECK(get(&buf, i, j) == get(&keep, i, j), "interleaved: the second call wrote the "
              "first matrix at (%d, %d)", i, j);
    free(keep.x);
  }
  free(a.x), free(b.x), free(buf.x), free(work.x), free(ip);
}

static void long_run(void)
{
  const int n = 400;
  mat a = make(1, n, n, 0, 'p'), w = alloc_like(&a);
  int *ip = malloc(sizeof(int) * n), info, i;
  long rss0 = 0;
  size_t free0 = 0, free1 = 0, total = 0;
#ifdef DLGEMM_HAVE_CUDA
  cudrv cu;
  CUcontext ctx;
  cudrv_load(&cu, &ctx);
#endif
  for (i = 0; i < 200; i++) {
    memcpy(w.x, a.x, bytes(&a));
    if (i % 2) dgetrf_(&n, &n, w.x, &n, ip, &info);
    else dpotrf_("L", &n, w.x, &n, &info, 1);
    if (i == 9) {
      rss0 = rss_kb();
#ifdef DLGEMM_HAVE_CUDA
      cu.MemGetInfo(&free0, &total);
#endif
    }
  }
#ifdef DLGEMM_HAVE_CUDA
  cu.MemGetInfo(&free1, &total);
#endif
  CHECK(free1 + (4u << 20) >= free0, "device memory fell by %.1f MB over 190 calls",
        ((double)free0 - (double)free1) / 1048576.0);
  CHECK(rss_kb() - rss0 < 16384, "resident memory grew by %ld kB over 190 calls", rss_kb() - rss0);
  printf("long run: 200 calls, device free %.1f -> %.1f MB, RSS +%ld kB\n", free0 / 1048576.0,
         free1 / 1048576.0, rss_kb() - rss0);
  free(a.x), free(w.x), free(ip);
}

int main(int argc, char **argv)
{
  static const int shapes[][2] = {{1, 1},   {2, 2},   {3, 5},     {5, 3},    {17, 17},
                                  {31, 64}, {64, 31}, {33, 33},   {65, 65},  {100, 37},
                                  {37, 100}, {127, 127}, {257, 200}, {300, 300}, {611, 577}};
  static const int orders[] = {1, 2, 17, 31, 32, 33, 64, 65, 100, 257, 300, 613};
  void *h = dlopen("liblapack.so.3", RTLD_NOW | RTLD_LOCAL);
  size_t s;
  int d;
  (void)argc;
  gpu_mode = argc > 1 && !strcmp(argv[1], "gpu");
  r.s = test_seed("test_lapack");
  if (!h || !(ref_getrf[0] = (getrf_fn)dlsym(h, "sgetrf_"))) {
    printf("SKIP: no reference LAPACK (liblapack.so.3): %s\n", dlerror());
    return 77;
  }
  ref_getrf[1] = (getrf_fn)dlsym(h, "dgetrf_");
  ref_potrf[0] = (potrf_fn)dlsym(h, "spotrf_");
  ref_potrf[1] = (potrf_fn)dlsym(h, "dpotrf_");
  ref_geqrf[0] = (geqrf_fn)dlsym(h, "sgeqrf_");
  ref_geqrf[1] = (geqrf_fn)dlsym(h, "dgeqrf_");
  ref_orgqr[0] = (orgqr_fn)dlsym(h, "sorgqr_");
  ref_orgqr[1] = (orgqr_fn)dlsym(h, "dorgqr_");
  ref_ormqr[0] = (ormqr_fn)dlsym(h, "sormqr_");
  ref_ormqr[1] = (ormqr_fn)dlsym(h, "dormqr_");
  if (gpu_mode && getenv("DLGEMM_INJECT_FAULT") && !driver_has_gpu()) {
    printf("SKIP: test_lapack gpu needs an NVIDIA GPU\n");
    return 77;
  }
  if (gpu_mode && !getenv("DLGEMM_INJECT_FAULT") && !cuda_backend_usable("test_lapack gpu"))
    return 77;
  for (d = 0; d < 2; d++) {
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      int pad;
      for (pad = 0; pad <= 3; pad += 3) {
        mat a = make(d, shapes[s][0], shapes[s][1], pad, 'g');
        check_getrf(&a, "random");
        check_geqrf(&a, "random");
        check_ormqr_all(&a, 1 + 40 * (int)(s % 3), "random");
        free(a.x);
      }
    }
    for (s = 0; s < sizeof orders / sizeof orders[0]; s++) {
      mat a = make(d, orders[s], orders[s], orders[s] % 2 ? 5 : 0, 'p');
      check_potrf(&a, 'L', "positive definite");
      check_potrf(&a, 'U', "positive definite");
      if (orders[s] > 40) { /* not positive definite from column 41 on */
        put(&a, 40, 40, -1.0);
        check_potrf(&a, 'L', "indefinite");
        check_potrf(&a, 'U', "indefinite");
      }
      free(a.x);
    }
    { /* an exactly singular matrix: column 6 zero */
      mat a = make(d, 90, 90, 1, 'g');
      int i;
      for (i = 0; i < 90; i++) put(&a, i, 5, 0.0);
      check_getrf(&a, "singular");
      check_geqrf(&a, "singular");
      check_ormqr_all(&a, 70, "singular");
      free(a.x);
    }
    { /* |x| below DLAMCH('S')/DLAMCH('E'): DLARFG scales x and beta up */
      mat a = make(d, 150, 120, 2, 'g');
      int i, j;
      for (j = 0; j < a.n; j++)
        for (i = 0; i < a.m; i++) put(&a, i, j, get(&a, i, j) * (d ? 1e-300 : 1e-33));
      check_geqrf(&a, "tiny");
      free(a.x);
    }
    host_writes(d);
  }
  if (gpu_mode) long_run();
  printf("%s: %d checks, %d failed (%s mode)\n", failures ? "FAIL" : "PASS", checks, failures,
         gpu_mode ? "gpu" : "cpu");
  return failures ? 1 : 0;
}
