/*
 * test_ilp64 - the ILP64 entry points (sgemm_64_, dgemm_64_, cblas_sgemm64_,
 * cblas_dgemm64_) against netlib's ILP64 BLAS (Debian's libblas64.so.3, whose
 * routines keep the reference names and take 64-bit INTEGERs).
 *
 * - Products: sizes 0, 1, primes and others, every transpose, leading
 *   dimensions above the rows, alpha and beta of 0, 1 and others, beta = 0
 *   over NaN, C poisoned before each call; column- and row-major CBLAS.
 *   Where the next BLAS answers every call (DLGEMM_FORCE=cpu) the result must
 *   be the reference's bit for bit; otherwise (the cost model's routing, or
 *   DLGEMM_FORCE=gpu) within the dot-product bound.
 * - INTEGERs read as 64 bits: M = 2^31 with N = 0 is a legal quick return
 *   (an int32 reading would see M < 0 and report it).
 * - Argument errors go to xerbla_64_ (defined here, INFO an int64_t) with
 *   the reference's routine name and INFO.
 * - A lookup by name, as libblastrampoline does it: dlopen the library and
 *   dlsym every name of the routine list with its suffix.
 *
 * usage: test_ilp64 LIBDLGEMM [cases]     exit 77 without libblas64.so.3, or
 *                                          without a GPU under DLGEMM_FORCE=gpu
 */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shims/common/routines.h"

typedef void (*dgemm64_fn)(const char *, const char *, const int64_t *, const int64_t *,
                           const int64_t *, const double *, const double *, const int64_t *,
                           const double *, const int64_t *, const double *, double *,
                           const int64_t *, size_t, size_t);
typedef void (*sgemm64_fn)(const char *, const char *, const int64_t *, const int64_t *,
                           const int64_t *, const float *, const float *, const int64_t *,
                           const float *, const int64_t *, const float *, float *,
                           const int64_t *, size_t, size_t);

void sgemm_64_(const char *, const char *, const int64_t *, const int64_t *, const int64_t *,
               const float *, const float *, const int64_t *, const float *, const int64_t *,
               const float *, float *, const int64_t *, size_t, size_t);
void dgemm_64_(const char *, const char *, const int64_t *, const int64_t *, const int64_t *,
               const double *, const double *, const int64_t *, const double *,
               const int64_t *, const double *, double *, const int64_t *, size_t, size_t);
void cblas_dgemm64_(int, int, int, int64_t, int64_t, int64_t, double, const double *, int64_t,
                    const double *, int64_t, double, double *, int64_t);
void cblas_sgemm64_(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t,
                    const float *, int64_t, float, float *, int64_t);

static int passed, failed;
static char xerbla_name[16];
static int64_t xerbla_info;

void xerbla_64_(const char *srname, const int64_t *info, size_t len)
{
  snprintf(xerbla_name, sizeof xerbla_name, "%.*s", (int)len, srname);
  xerbla_info = *info;
}

static void check(int ok, const char *fmt, const char *what)
{
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL: ");
    printf(fmt, what);
    printf("\n");
  }
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double uniform(void)
{
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

/* One product in both precisions through dgemm_64_/sgemm_64_ and the
 * reference; exact: compare bits. */
static void product(dgemm64_fn ref_d, sgemm64_fn ref_s, char ta, char tb, int64_t m, int64_t n,
                    int64_t k, double alpha, double beta, int exact)
{
  const int64_t ra = ta == 'N' ? m : k, ca = ta == 'N' ? k : m;
  const int64_t rb = tb == 'N' ? k : n, cb = tb == 'N' ? n : k;
  const int64_t lda = ra + 3, ldb = rb + 1, ldc = m + 2;
  const size_t na = (size_t)(lda * (ca ? ca : 1)), nb = (size_t)(ldb * (cb ? cb : 1));
  const size_t nc = (size_t)(ldc * (n ? n : 1));
  double *a = malloc(na * 8), *b = malloc(nb * 8), *c0 = malloc(nc * 8), *c1 = malloc(nc * 8);
  float *fa = malloc(na * 4), *fb = malloc(nb * 4), *f0 = malloc(nc * 4), *f1 = malloc(nc * 4);
  const float falpha = (float)alpha, fbeta = (float)beta;
  char what[160];
  int same_d = 1, same_s = 1, close_d = 1, close_s = 1;
  for (size_t i = 0; i < na; i++) fa[i] = (float)(a[i] = uniform());
  for (size_t i = 0; i < nb; i++) fb[i] = (float)(b[i] = uniform());
  for (size_t i = 0; i < nc; i++) {
    const double v = beta == 0 ? NAN : uniform(); /* beta = 0: C must not be read */
    c0[i] = c1[i] = v;
    f0[i] = f1[i] = (float)v;
  }
  dgemm_64_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c1, &ldc, 1, 1);
  ref_d(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c0, &ldc, 1, 1);
  sgemm_64_(&ta, &tb, &m, &n, &k, &falpha, fa, &lda, fb, &ldb, &fbeta, f1, &ldc, 1, 1);
  ref_s(&ta, &tb, &m, &n, &k, &falpha, fa, &lda, fb, &ldb, &fbeta, f0, &ldc, 1, 1);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      const size_t p = (size_t)(i + j * ldc);
      const double tol = 2.0 * (double)(k + 2) * (fabs(alpha) + fabs(beta));
      same_d &= memcmp(&c0[p], &c1[p], 8) == 0;
      same_s &= memcmp(&f0[p], &f1[p], 4) == 0;
      close_d &= fabs(c0[p] - c1[p]) <= tol * 0x1p-52;
      close_s &= fabs((double)f0[p] - (double)f1[p]) <= tol * 0x1p-23;
    }
  for (size_t p = 0; p < nc; p++) { /* outside the m x n matrix: untouched */
    const int64_t i = (int64_t)(p % (size_t)ldc), j = (int64_t)(p / (size_t)ldc);
    if (i < m && j < n) continue;
    same_d &= memcmp(&c0[p], &c1[p], 8) == 0;
    same_s &= memcmp(&f0[p], &f1[p], 4) == 0;
    close_d &= memcmp(&c0[p], &c1[p], 8) == 0;
    close_s &= memcmp(&f0[p], &f1[p], 4) == 0;
  }
  snprintf(what, sizeof what, "%c%c m=%lld n=%lld k=%lld alpha=%g beta=%g", ta, tb,
           (long long)m, (long long)n, (long long)k, alpha, beta);
  check(exact ? same_d : close_d, "dgemm_64_ %s differs from libblas64's dgemm_", what);
  check(exact ? same_s : close_s, "sgemm_64_ %s differs from libblas64's sgemm_", what);
  free(a), free(b), free(c0), free(c1), free(fa), free(fb), free(f0), free(f1);
}

/* Row-major CBLAS: C^T = B^T A^T through the reference's column-major call. */
static void cblas_rows(dgemm64_fn ref_d, int exact)
{
  const int64_t m = 13, n = 7, k = 5, lda = k + 1, ldb = n + 2, ldc = n + 3;
  double a[13 * 6], b[5 * 9], c0[13 * 10], c1[13 * 10];
  float fa[13 * 6], fb[5 * 9], f0[13 * 10], f1[13 * 10];
  const double alpha = 1.5, beta = -0.5;
  int ok_d = 1, ok_s = 1;
  for (int i = 0; i < 13 * 6; i++) fa[i] = (float)(a[i] = uniform());
  for (int i = 0; i < 5 * 9; i++) fb[i] = (float)(b[i] = uniform());
  for (int i = 0; i < 13 * 10; i++) f0[i] = f1[i] = (float)(c0[i] = c1[i] = uniform());
  cblas_dgemm64_(101, 111, 111, m, n, k, alpha, a, lda, b, ldb, beta, c1, ldc);
  ref_d("N", "N", &n, &m, &k, &alpha, b, &ldb, a, &lda, &beta, c0, &ldc, 1, 1);
  cblas_sgemm64_(101, 111, 111, m, n, k, (float)alpha, fa, lda, fb, ldb, (float)beta, f1, ldc);
  for (int i = 0; i < 13 * 10; i++) {
    ok_d &= exact ? memcmp(&c0[i], &c1[i], 8) == 0 : fabs(c0[i] - c1[i]) < 1e-12;
    /* the single-precision reference: the double result rounded, loosely */
    ok_s &= fabs((double)f1[i] - c0[i]) < 1e-4;
  }
  check(ok_d, "%s: cblas_dgemm64_ row-major differs from the reference", "13x7x5");
  check(ok_s, "%s: cblas_sgemm64_ row-major differs from the reference", "13x7x5");
}

static void errors(void)
{
  const int64_t big = (int64_t)1 << 31, zero = 0, one = 1, neg = -1;
  double x = 0, alpha = 1, beta = 0;
  xerbla_name[0] = 0, xerbla_info = 0;
  dgemm_64_("N", "N", &big, &zero, &one, &alpha, &x, &big, &x, &one, &beta, &x, &big, 1, 1);
  check(xerbla_info == 0, "%s: M = 2^31, N = 0 was reported (INTEGER read as 32 bits?)", "dgemm_64_");
  dgemm_64_("N", "N", &neg, &one, &one, &alpha, &x, &one, &x, &one, &beta, &x, &one, 1, 1);
  check(xerbla_info == 3 && strcmp(xerbla_name, "DGEMM ") == 0,
        "%s: M = -1 not reported to xerbla_64_ as DGEMM parameter 3", "dgemm_64_");
  xerbla_info = 0;
  sgemm_64_("N", "T", &big, &one, &one, (float *)&alpha, (float *)&x, &one, (float *)&x, &one,
            (float *)&beta, (float *)&x, &big, 1, 1);
  check(xerbla_info == 8 && strcmp(xerbla_name, "SGEMM ") == 0,
        "%s: LDA < M (M = 2^31) not reported as SGEMM parameter 8", "sgemm_64_");
  xerbla_info = 0;
  cblas_dgemm64_(102, 111, 111, 2, 2, 2, 1.0, &x, 1, &x, 2, 0.0, &x, 2);
  check(xerbla_info == 8, "%s: LDA < M not reported as parameter 8", "cblas_dgemm64_");
}

/* Every level-3 name of the routine list, as a libblastrampoline-style
 * loader looks them up (dlsym by name, LP64 and 64_ alike). */
#define NAME(p, name, SUFFIX) #p #name "_" #SUFFIX, "cblas_" #p #name #SUFFIX,
#define REAL_NAMES(p, P, R, dtype, INT, SUFFIX, ilp64) DLG_REAL_ROUTINES(NAME, p, SUFFIX)
#define COMPLEX_NAMES(p, P, R, dtype, INT, SUFFIX, ilp64) DLG_COMPLEX_ROUTINES(NAME, p, SUFFIX)
static void lookup(const char *path)
{
  static const char *const names[] = {DLG_REAL_TYPES(REAL_NAMES) DLG_COMPLEX_TYPES(COMPLEX_NAMES)};
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  int found = 0, suffixed = 0;
  check(h != NULL, "%s cannot be opened", path);
  if (!h) return;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const int has = dlsym(h, names[i]) != NULL;
    found += has;
    suffixed += has && strstr(names[i], "64_") != NULL;
    check(has, "lookup by name: %s is not exported", names[i]);
  }
  printf("lookup by name: %d of %zu names found (%d with the 64_ suffix)\n", found,
         sizeof names / sizeof names[0], suffixed);
}

int main(int argc, char **argv)
{
  static const int64_t sizes[] = {0, 1, 2, 7, 13, 31, 64, 97};
  static const double scalars[][2] = {{1, 0}, {1, 1}, {0, 0.5}, {-1.5, 0.25}, {0.5, 0}};
  const char *force = getenv("DLGEMM_FORCE");
  /* Bit for bit only where the next BLAS answers every call: by default the
   * cost model may send the larger ones to a GPU. */
  const int exact = force && strcmp(force, "cpu") == 0;
  const int cases = argc > 2 ? atoi(argv[2]) : 200;
  void *ref = dlopen("libblas64.so.3", RTLD_NOW | RTLD_LOCAL);
  dgemm64_fn ref_d;
  sgemm64_fn ref_s;
  if (argc < 2) {
    fprintf(stderr, "usage: test_ilp64 LIBDLGEMM [cases]\n");
    return 2;
  }
  if (!ref) {
    printf("SKIP: libblas64.so.3 (Debian libblas64-3) is not installed: %s\n", dlerror());
    return 77;
  }
  if (force && strcmp(force, "gpu") == 0 && !dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    printf("SKIP: test_ilp64 with DLGEMM_FORCE=gpu needs an NVIDIA GPU (no libcuda.so.1)\n");
    return 77;
  }
  ref_d = (dgemm64_fn)dlsym(ref, "dgemm_");
  ref_s = (sgemm64_fn)dlsym(ref, "sgemm_");
  for (int c = 0; c < cases; c++) {
    const char t[] = "NTC";
    const int64_t m = sizes[c % 8], n = sizes[(c / 8) % 8], k = sizes[(c * 5 + 3) % 8];
    const double *s = scalars[c % 5];
    product(ref_d, ref_s, t[c % 3], t[(c / 3) % 3], m, n, k, s[0], s[1], exact);
  }
  cblas_rows(ref_d, exact);
  errors();
  lookup(argv[1]);
  printf("ilp64 (%s): %d passed, %d failed\n", exact ? "bit for bit" : "within the bound",
         passed, failed);
  return failed ? 1 : 0;
}
