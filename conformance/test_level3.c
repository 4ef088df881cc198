/*
 * test_level3 - every level-3 routine dlgemm answers besides real GEMM
 * (xSYMM, xSYRK, xSYR2K, xTRMM, xTRSM in S/D/C/Z; CGEMM, ZGEMM, xHEMM,
 * xHERK, xHER2K), against netlib's own routine of the same name on the
 * same poisoned inputs.
 *
 * usage: test_level3 [cases]   (DLGEMM_FORCE=cpu: answers bit for bit the
 * reference's, since the next BLAS is the reference; DLGEMM_FORCE=gpu: the
 * whole routine on the GPU, within a multiple of eps of the reference's,
 * exits 77 where no GPU is usable.)
 *
 * Each case draws a routine, a type, every character argument, sizes from
 * 1 to past the GPU's recursion leaves (32, 256), leading dimensions larger
 * than the matrices, and alpha and beta from {0, 1, other}.  What the
 * reference does not read is poisoned with NaN: the unreferenced triangle
 * of A, a unit diagonal, the imaginary parts of a Hermitian diagonal, all of
 * A and B when alpha is 0, all of C when beta is 0.  What it does not write
 * must come back bit for bit: C's other triangle, the padding rows.  Any
 * NaN, or any difference outside the bound, fails.
 */
#include <complex.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_probe.h"
#include "testutil.h"

enum { GEMM, SYMM, HEMM, SYRK, HERK, SYR2K, HER2K, TRMM, TRSM, ROUTINES };
static const char *const names[ROUTINES] = {"gemm",  "symm",  "hemm", "syrk", "herk",
                                            "syr2k", "her2k", "trmm", "trsm"};

typedef void (*fn13)(const char *, const char *, const int *, const int *, const int *,
                     const void *, const void *, const int *, const void *, const int *,
                     const void *, void *, const int *, size_t, size_t);
typedef void (*fn12)(const char *, const char *, const int *, const int *, const void *,
                     const void *, const int *, const void *, const int *, const void *, void *,
                     const int *, size_t, size_t);
typedef void (*fn10)(const char *, const char *, const int *, const int *, const void *,
                     const void *, const int *, const void *, void *, const int *, size_t, size_t);
typedef void (*fn11)(const char *, const char *, const char *, const char *, const int *,
                     const int *, const void *, const void *, const int *, void *, const int *,
                     size_t, size_t, size_t, size_t);

typedef struct tcase {
  int routine, type; /* type 0..3: s d c z */
  char c1, c2, c3, c4; /* the routine's characters, in its order */
  int m, n, k;
  double alpha[2], beta[2];
} tcase;

static int failures;

static size_t esize(int type) { return type == 0 ? 4 : type == 3 ? 16 : 8; }
static int cplx(int type) { return type >= 2; }
static int is_double(int type) { return type & 1; }

/* Part p (0 real, 1 imaginary) of element i of x. */
static double get(const void *x, int type, size_t i, int p)
{
  const size_t j = cplx(type) ? 2 * i + p : i;
  return is_double(type) ? ((const double *)x)[j] : (double)((const float *)x)[j];
}
static void set(void *x, int type, size_t i, int p, double v)
{
  const size_t j = cplx(type) ? 2 * i + p : i;
  if (is_double(type))
    ((double *)x)[j] = v;
  else
    ((float *)x)[j] = (float)v;
}

/* A rows x cols matrix (leading dimension rows + 3) of random values, its
 * padding rows a sentinel. */
typedef struct mat {
  void *p;
  int rows, cols, ld;
} mat;

static mat make(rng *r, int type, int rows, int cols)
{
  mat x = {NULL, rows, cols, rows + 3};
  const size_t n = (size_t)x.ld * (size_t)(cols ? cols : 1);
  x.p = malloc(n * esize(type));
  for (size_t i = 0; i < n; i++)
    for (int p = 0; p < 1 + cplx(type); p++)
      set(x.p, type, i, p, (int)(i % (size_t)x.ld) >= rows ? 777.0 : rng_unit(r));
  return x;
}

static void poison(mat *x, int type, int i, int j, int part)
{
  set(x->p, type, (size_t)j * x->ld + i, part, NAN);
}

/* Element (i, j) is in the triangle uplo (diagonal included). */
static int in_triangle(char uplo, int i, int j) { return uplo == 'U' ? i <= j : i >= j; }

static void call(void *fn, const tcase *t, const mat *a, const mat *b, void *c, int ldc)
{
  const char *s1 = &t->c1, *s2 = &t->c2, *s3 = &t->c3, *s4 = &t->c4;
  const int m = t->m, n = t->n, k = t->k, lda = a->ld, ldb = b ? b->ld : 1;
  double al[2] = {t->alpha[0], t->alpha[1]}, be[2] = {t->beta[0], t->beta[1]};
  float fal[2] = {(float)al[0], (float)al[1]}, fbe[2] = {(float)be[0], (float)be[1]};
  const void *alpha = is_double(t->type) ? (void *)al : (void *)fal;
  const void *beta = is_double(t->type) ? (void *)be : (void *)fbe;
  switch (t->routine) {
  case GEMM:
    ((fn13)fn)(s1, s2, &m, &n, &k, alpha, a->p, &lda, b->p, &ldb, beta, c, &ldc, 1, 1);
    break;
  case SYMM:
  case HEMM: ((fn12)fn)(s1, s2, &m, &n, alpha, a->p, &lda, b->p, &ldb, beta, c, &ldc, 1, 1); break;
  case SYRK:
  case HERK: ((fn10)fn)(s1, s2, &n, &k, alpha, a->p, &lda, beta, c, &ldc, 1, 1); break;
  case SYR2K:
  case HER2K: ((fn12)fn)(s1, s2, &n, &k, alpha, a->p, &lda, b->p, &ldb, beta, c, &ldc, 1, 1); break;
  default: ((fn11)fn)(s1, s2, s3, s4, &m, &n, alpha, a->p, &lda, c, &ldc, 1, 1, 1, 1);
  }
}

static char pick(rng *r, const char *set) { return set[rng_int(r, (int)strlen(set))]; }

static tcase draw(rng *r, int i)
{
  static const int sizes[] = {1, 2, 7, 31, 33, 64, 100, 257, 300};
  static const double scalars[][2] = {{0, 0}, {1, 0}, {-0.7, 0.4}, {1.3, -0.2}};
  tcase t;
  memset(&t, 0, sizeof t);
  t.routine = i % ROUTINES;
  t.type = (t.routine == HEMM || t.routine == HERK || t.routine == HER2K || t.routine == GEMM)
               ? 2 + rng_int(r, 2)
               : rng_int(r, 4);
  t.m = sizes[rng_int(r, 9)], t.n = sizes[rng_int(r, 9)], t.k = sizes[rng_int(r, 9)];
  memcpy(t.alpha, scalars[rng_int(r, 4)], sizeof t.alpha);
  memcpy(t.beta, scalars[rng_int(r, 4)], sizeof t.beta);
  if (!cplx(t.type)) t.alpha[1] = t.beta[1] = 0;
  if (t.routine == HERK || t.routine == HER2K) t.beta[1] = 0;
  if (t.routine == HERK) t.alpha[1] = 0;
  switch (t.routine) {
  case GEMM: t.c1 = pick(r, "NTC"), t.c2 = pick(r, "NTC"); break;
  case SYMM:
  case HEMM: t.c1 = pick(r, "LR"), t.c2 = pick(r, "UL"); break;
  case SYRK:
  case SYR2K: t.c1 = pick(r, "UL"), t.c2 = pick(r, cplx(t.type) ? "NT" : "NTC"); break;
  case HERK:
  case HER2K: t.c1 = pick(r, "UL"), t.c2 = pick(r, "NC"); break;
  default: t.c1 = pick(r, "LR"), t.c2 = pick(r, "UL"), t.c3 = pick(r, "NTC"), t.c4 = pick(r, "UN");
  }
  if (t.routine >= SYRK && t.routine <= HER2K) t.m = t.n;
  return t;
}

/* The case's matrices, poisoned where the reference does not read. */
static void inputs(rng *r, const tcase *t, mat *a, mat *b, mat *c)
{
  const int rank_k = t->routine >= SYRK && t->routine <= HER2K, tri = t->routine >= TRMM;
  const int na = (t->routine == GEMM || rank_k) ? 0 : t->c1 == 'L' ? t->m : t->n;
  const char uplo = rank_k ? t->c1 : t->c2;
  const int alpha0 = t->alpha[0] == 0 && t->alpha[1] == 0;
  const int beta0 = t->beta[0] == 0 && t->beta[1] == 0;
  int i, j;
  if (t->routine == GEMM) {
    *a = make(r, t->type, t->c1 == 'N' ? t->m : t->k, t->c1 == 'N' ? t->k : t->m);
    *b = make(r, t->type, t->c2 == 'N' ? t->k : t->n, t->c2 == 'N' ? t->n : t->k);
  } else if (rank_k) {
    *a = make(r, t->type, t->c2 == 'N' ? t->n : t->k, t->c2 == 'N' ? t->k : t->n);
    *b = make(r, t->type, a->rows, a->cols);
  } else {
    *a = make(r, t->type, na, na);
    *b = make(r, t->type, t->m, t->n);
  }
  *c = tri ? *b : make(r, t->type, t->m, t->n);
  if (tri) *b = make(r, t->type, 0, 0);
  if (tri) /* well conditioned, unit diagonal or not: off-diagonal parts scaled by 1/na, a
             * diagonal of 2 */
    for (j = 0; j < na; j++)
      for (i = 0; i < na; i++)
        for (int p = 0; p < 1 + cplx(t->type); p++) {
          const size_t e = (size_t)j * a->ld + i;
          set(a->p, t->type, e, p, i == j ? 2.0 * !p : get(a->p, t->type, e, p) / na);
        }
  if (na)
    for (j = 0; j < na; j++)
      for (i = 0; i < na; i++) {
        if (!in_triangle(uplo, i, j)) poison(a, t->type, i, j, 0);
        if (i == j && tri && t->c4 == 'U') poison(a, t->type, i, j, 0);
        if (i == j && t->routine == HEMM) poison(a, t->type, i, j, 1);
      }
  if (rank_k)
    for (j = 0; j < t->n; j++)
      for (i = 0; i < t->n; i++) {
        if (!in_triangle(uplo, i, j)) poison(c, t->type, i, j, 0);
        if (i == j && (t->routine == HERK || t->routine == HER2K)) poison(c, t->type, i, j, 1);
      }
  if (alpha0) {
    for (j = 0; j < a->cols; j++)
      for (i = 0; i < a->rows; i++) poison(a, t->type, i, j, 0);
    for (j = 0; j < b->cols; j++)
      for (i = 0; i < b->rows; i++) poison(b, t->type, i, j, 0);
  }
  if ((beta0 && !tri) || (tri && alpha0))
    for (j = 0; j < c->cols; j++)
      for (i = 0; i < c->rows; i++)
        if (!rank_k || in_triangle(uplo, i, j)) poison(c, t->type, i, j, 0);
}

static void *routine(void *h, const tcase *t)
{
  char name[16];
  snprintf(name, sizeof name, "%c%s_", "sdcz"[t->type], names[t->routine]);
  return dlsym(h, name);
}

static void run_case(void *ref, int gpu, rng *r, int index)
{
  const tcase t = draw(r, index);
  mat a, b, c;
  void *mine, *theirs;
  inputs(r, &t, &a, &b, &c);
  {
    const size_t bytes = (size_t)c.ld * (size_t)c.cols * esize(t.type);
    void *c_ref = malloc(bytes ? bytes : 1);
    const int parts = 1 + cplx(t.type);
    const double eps = is_double(t.type) ? 1.1e-16 : 6e-8;
    /* the products each element sums: k, 2k for the rank-2k updates, A's order */
    const int depth = t.routine == GEMM                            ? t.k
                      : t.routine >= SYRK && t.routine <= HER2K   ? 2 * t.k
                      : t.c1 == 'L'                               ? t.m
                                                                  : t.n;
    int bad = 0;
    memcpy(c_ref, c.p, bytes);
    mine = routine(RTLD_DEFAULT, &t);
    theirs = routine(ref, &t);
    call(theirs, &t, &a, &b, c_ref, c.ld);
    call(mine, &t, &a, &b, c.p, c.ld);
    for (size_t i = 0; i < (size_t)c.ld * (size_t)c.cols && !bad; i++)
      for (int p = 0; p < parts; p++) {
        const double x = get(c.p, t.type, i, p), y = get(c_ref, t.type, i, p);
        const double tol =
            gpu ? 8.0 * (depth + 2) * eps * (1.0 + fabs(y)) * (t.routine == TRSM ? 4 : 1) : 0;
        if (isnan(x) != isnan(y) || (!isnan(y) && !(fabs(x - y) <= tol))) {
          const int row = (int)(i % (size_t)c.ld), col = (int)(i / (size_t)c.ld);
          printf("FAIL: %c%s %c%c%c%c m=%d n=%d k=%d alpha=(%g,%g) beta=(%g,%g): (%d,%d)%s "
                 "%.17g, reference %.17g\n",
                 "sdcz"[t.type], names[t.routine], t.c1, t.c2, t.c3 ? t.c3 : ' ',
                 t.c4 ? t.c4 : ' ', t.m, t.n, t.k, t.alpha[0], t.alpha[1], t.beta[0],
                 t.beta[1], row, col, p ? " imag" : "", x, y);
          bad = 1;
          break;
        }
      }
    failures += bad;
    free(c_ref);
  }
  free(a.p), free(b.p), free(c.p);
}

int main(int argc, char **argv)
{
  const int cases = argc > 1 ? atoi(argv[1]) : 360;
  const char *force = getenv("DLGEMM_FORCE");
  const int gpu = force && !strcmp(force, "gpu");
  void *ref = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
  rng r = {test_seed("test_level3")};
  if (!ref) {
    printf("SKIP: netlib's libblas.so.3 is not installed\n");
    return 77;
  }
  if (gpu && !cuda_backend_usable("test_level3 (gpu)")) return 77;
  for (int i = 0; i < cases; i++) run_case(ref, gpu, &r, i);
  printf("%s: %d of %d cases %s (%s)\n", failures ? "FAIL" : "PASS", failures ? failures : cases,
         cases, failures ? "failed" : "passed",
         gpu ? "GPU, within bounds of netlib" : "bit for bit netlib's");
  return failures ? 1 : 0;
}
