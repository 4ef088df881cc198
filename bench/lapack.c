/*
 * lapack.c - an unmodified reference-LAPACK program: xGETRF, xPOTRF and
 * xGEQRF on malloc'ed matrices, timed, each followed by a solve with the
 * factors and its scaled residual; and xORMQR, Q^T A with A's own QR.
 * Linked with -llapack -lblas only; dlgemm, NVBLAS or OpenBLAS come in from
 * outside (bench/lapack.sh runs them in one job), so the same binary
 * measures all of them.
 *
 *   usage: bench_lapack ROUTINES SIZES [SECONDS]
 *     ROUTINES  comma list of dgetrf sgetrf dpotrf spotrf dgeqrf sgeqrf dormqr sormqr
 *     SIZES     comma list of n (square matrices, lda = n)
 *     SECONDS   skip a size once the previous one predicts more than this
 *
 * Each line: routine n seconds GFLOP/s residual info, where residual is
 * |A x - b|_inf / (|A|_inf |x|_inf n eps) for the solve with the computed
 * factors (xGETRS, xPOTRS, xORMQR + xTRTRS): LAPACK's testers accept < 30.
 * xORMQR ('L', 'T', C = A, n columns; 2 n^3 flops) is timed on the factors
 * of an untimed xGEQRF; its residual is |Q^T A - R|_1 / (|A|_1 n eps).
 * Up to n = 2048 one untimed call comes first, then the factorization is
 * repeated (fresh copies) for at least 1 s (at most 400 times) and the
 * median reported: small sizes are CPU-noise-sized otherwise.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "testutil.h"

#define DECL(T, p)                                                                                 \
  void p##getrf_(const int *, const int *, T *, const int *, int *, int *);                       \
  void p##getrs_(const char *, const int *, const int *, const T *, const int *, const int *, T *, \
                 const int *, int *, size_t);                                                     \
  void p##potrf_(const char *, const int *, T *, const int *, int *, size_t);                     \
  void p##potrs_(const char *, const int *, const int *, const T *, const int *, T *, const int *, \
                 int *, size_t);                                                                  \
  void p##geqrf_(const int *, const int *, T *, const int *, T *, T *, const int *, int *);        \
  void p##ormqr_(const char *, const char *, const int *, const int *, const int *, const T *,    \
                 const int *, const T *, T *, const int *, T *, const int *, int *, size_t,       \
                 size_t);                                                                         \
  void p##trtrs_(const char *, const char *, const char *, const int *, const int *, const T *,    \
                 const int *, T *, const int *, int *, size_t, size_t, size_t);
DECL(double, d)
DECL(float, s)

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static rng gen = {88172645463325252ull}; /* fixed: every run factors the same matrices */
static double urand(void) { return rng_unit(&gen); }

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One routine in one precision: T and prefix p. */
#define BENCH(T, p, EPS)                                                                           \
  static double p##run(char kind, int n, T *a, const T *a0, int *ipiv, T *tau, T *work, int lwork,\
                       int *info)                                                                 \
  {                                                                                               \
    double t0;                                                                                    \
    /* xORMQR: a holds the factors, c (after a's n^2) takes Q^T A */                              \
    T *c = kind == 'o' ? a + (size_t)n * n : a;                                                   \
    memcpy(c, a0, sizeof(T) * (size_t)n * n);                                                     \
    t0 = now();                                                                                   \
    if (kind == 'g') p##getrf_(&n, &n, a, &n, ipiv, info);                                        \
    if (kind == 'p') p##potrf_("L", &n, a, &n, info, 1);                                          \
    if (kind == 'q') p##geqrf_(&n, &n, a, &n, tau, work, &lwork, info);                           \
    if (kind == 'o')                                                                              \
      p##ormqr_("L", "T", &n, &n, &n, a, &n, tau, c, &n, work, &lwork, info, 1, 1);               \
    return now() - t0;                                                                            \
  }                                                                                               \
  /* |Q^T A - R|_1 with R the upper triangle of f: xORMQR's result c */                           \
  static double p##qta_residual(int n, const T *f, const T *c)                                    \
  {                                                                                               \
    double worst = 0;                                                                             \
    int i, j;                                                                                     \
    for (j = 0; j < n; j++) {                                                                     \
      double s = 0;                                                                               \
      for (i = 0; i < n; i++)                                                                     \
        s += fabs((double)c[i + (size_t)j * n] - (i <= j ? (double)f[i + (size_t)j * n] : 0));    \
      if (!(s <= worst)) worst = s;                                                               \
    }                                                                                             \
    return worst;                                                                                 \
  }                                                                                               \
  static void p##bench(char kind, int n, double limit, double *t_prev, int *n_prev)              \
  {                                                                                               \
    const size_t nn = (size_t)n * n;                                                              \
    T *a0 = malloc(sizeof(T) * nn), *a = malloc(sizeof(T) * nn * (kind == 'o' ? 2 : 1));          \
    T *x = malloc(sizeof(T) * n);                                                                 \
    T *b = malloc(sizeof(T) * n), *tau = malloc(sizeof(T) * n), q;                                \
    int *ipiv = malloc(sizeof(int) * n), info = 0, one = 1, lwork = -1;                           \
    double times[400], flops, anorm = 0, xnorm = 0, rnorm = 0, total = 0;                          \
    int reps = 0, i, j;                                                                           \
    const char *name = kind == 'g'   ? #p "getrf"                                                 \
                       : kind == 'p' ? #p "potrf"                                                 \
                       : kind == 'q' ? #p "geqrf"                                                 \
                                     : #p "ormqr";                                                \
    T *work;                                                                                      \
    for (j = 0; j < n; j++)                                                                       \
      for (i = 0; i < n; i++) a0[i + (size_t)j * n] = (T)urand();                                 \
    if (kind == 'p')                                                                              \
      for (j = 0; j < n; j++) {                                                                   \
        for (i = 0; i < j; i++) a0[i + (size_t)j * n] = a0[j + (size_t)i * n];                    \
        a0[j + (size_t)j * n] = (T)n;                                                             \
      }                                                                                           \
    p##geqrf_(&n, &n, a, &n, tau, &q, &lwork, &info);                                             \
    lwork = (int)q > n ? (int)q : n;                                                              \
    work = malloc(sizeof(T) * (size_t)lwork);                                                     \
    flops = kind == 'g' ? 2.0 / 3 * n * (double)n * n                                             \
          : kind == 'p' ? 1.0 / 3 * n * (double)n * n                                             \
          : kind == 'q' ? 4.0 / 3 * n * (double)n * n : 2.0 * n * (double)n * n;                  \
    const double predicted = *t_prev * pow((double)n / (*n_prev ? *n_prev : n), 3);              \
    if (predicted > limit) {                                                                      \
      printf("%s n=%d skipped (predicted %.0f s)\n", name, n, predicted);                         \
      goto out;                                                                                   \
    }                                                                                             \
    if (kind == 'o') { /* the factors whose Q is applied, untimed */                              \
      memcpy(a, a0, sizeof(T) * nn);                                                              \
      p##geqrf_(&n, &n, a, &n, tau, work, &lwork, &info);                                         \
    }                                                                                             \
    if (n <= 2048) /* warm-up: caches, and the pools' first use at this size */                    \
      p##run(kind, n, a, a0, ipiv, tau, work, lwork, &info);                                      \
    do {                                                                                          \
      times[reps] = p##run(kind, n, a, a0, ipiv, tau, work, lwork, &info);                        \
      total += times[reps++];                                                                     \
    } while (total < 1.0 && reps < 400 && info == 0);                                              \
    qsort(times, reps, sizeof times[0], cmp);                                                     \
    *t_prev = times[reps / 2], *n_prev = n;                                                       \
    if (kind == 'o') { /* |Q^T A - R|_1 / (|A|_1 n eps) */                                        \
      rnorm = p##qta_residual(n, a, a + nn), xnorm = 1;                                           \
      for (j = 0; j < n; j++) {                                                                   \
        double col = 0;                                                                           \
        for (i = 0; i < n; i++) col += fabs((double)a0[i + (size_t)j * n]);                       \
        anorm = fmax(anorm, col);                                                                 \
      }                                                                                           \
    } else {                                                                                      \
      for (i = 0; i < n; i++) x[i] = (T)urand();                                                  \
      for (i = 0; i < n; i++) {                                                                   \
        double s = 0, r = 0;                                                                      \
        for (j = 0; j < n; j++) s += a0[i + (size_t)j * n] * (double)x[j],                        \
                                r += fabs((double)a0[i + (size_t)j * n]);                         \
        b[i] = (T)s;                                                                              \
        if (r > anorm) anorm = r;                                                                 \
      }                                                                                           \
      memcpy(x, b, sizeof(T) * n);                                                                \
      if (!info && kind == 'g') p##getrs_("N", &n, &one, a, &n, ipiv, x, &n, &info, 1);           \
      if (!info && kind == 'p') p##potrs_("L", &n, &one, a, &n, x, &n, &info, 1);                 \
      if (!info && kind == 'q') {                                                                 \
        p##ormqr_("L", "T", &n, &one, &n, a, &n, tau, x, &n, work, &lwork, &info, 1, 1);          \
        if (!info) p##trtrs_("U", "N", "N", &n, &one, a, &n, x, &n, &info, 1, 1, 1);              \
      }                                                                                           \
      for (i = 0; i < n; i++) {                                                                   \
        double s = -(double)b[i];                                                                 \
        for (j = 0; j < n; j++) s += a0[i + (size_t)j * n] * (double)x[j];                        \
        if (fabs(s) > rnorm) rnorm = fabs(s);                                                     \
        if (fabs((double)x[i]) > xnorm) xnorm = fabs((double)x[i]);                               \
      }                                                                                           \
    }                                                                                             \
    printf("%s n=%d seconds=%.4f gflops=%.2f residual=%.3g info=%d reps=%d\n",                    \
           name, n, times[reps / 2],                                                              \
           flops / times[reps / 2] * 1e-9, rnorm / (anorm * xnorm * n * (EPS)), info, reps);      \
    fflush(stdout);                                                                               \
  out:                                                                                            \
    free(a0), free(a), free(x), free(b), free(tau), free(ipiv), free(work);                       \
  }
BENCH(double, d, DBL_EPSILON / 2)
BENCH(float, s, FLT_EPSILON / 2)

/* The process's first factorization large enough for the GPU pays for its
 * setup (with dlgemm: the context, the kernels, the pools): one LU of the
 * identity at n = 512 before anything is timed, whichever size comes first. */
static void warm_up(void)
{
  const int n = 512;
  double *a = calloc((size_t)n * n, sizeof *a);
  int *ipiv = malloc(sizeof(int) * n), info, i;
  for (i = 0; i < n; i++) a[i + (size_t)i * n] = 1.0;
  dgetrf_(&n, &n, a, &n, ipiv, &info);
  free(a), free(ipiv);
}

int main(int argc, char **argv)
{
  char routines[256], sizes[256], *r, *s, *save1, *save2, *shift = NULL;
  double limit = argc > 3 ? atof(argv[3]) : 1e9;
  if (argc < 3) {
    fprintf(stderr, "usage: %s ROUTINES SIZES [SECONDS]\n", argv[0]);
    return 2;
  }
  snprintf(routines, sizeof routines, "%s", argv[1]);
  /* HEAP_SHIFT bytes held first: the matrices start elsewhere relative to
   * the stack (lapack.sh moves both between rounds) */
  if (getenv("HEAP_SHIFT")) shift = malloc((size_t)atol(getenv("HEAP_SHIFT")) + 1);
  warm_up();
  for (r = strtok_r(routines, ",", &save1); r; r = strtok_r(NULL, ",", &save1)) {
    double t_prev = 0;
    int n_prev = 0;
    char kind = strstr(r, "getrf")   ? 'g'
                : strstr(r, "potrf") ? 'p'
                : strstr(r, "geqrf") ? 'q'
                                     : 'o';
    snprintf(sizes, sizeof sizes, "%s", argv[2]);
    for (s = strtok_r(sizes, ",", &save2); s; s = strtok_r(NULL, ",", &save2)) {
      int n = atoi(s);
      if (r[0] == 'd') dbench(kind, n, limit, &t_prev, &n_prev);
      else sbench(kind, n, limit, &t_prev, &n_prev);
    }
  }
  free(shift);
  return 0;
}
