/*
 * test_differential - dlgemm against netlib on random problems.
 *
 * Three entry points (sgemm_/dgemm_, cblas_sgemm, dlgemm_matmul) on shapes
 * drawn from 0, 1, primes and sizes around tile edges (for the BLAS calls,
 * one in four GEMV- or decode-like: a side of C of 16 or less against 256
 * or more, the GPU's narrow kernels), every transpose,
 * leading dimensions larger than the matrix, alpha and beta from {0, 1,
 * others}, C full of NaN when beta = 0.  Each result is checked against an
 * FP64 product with the rigorous bound (k+2)*eps*sum|terms|, which holds
 * for any summation order, so the same test judges CPU and GPU backends.
 * When DLGEMM_FORCE=cpu the answer must moreover be bit-identical to the
 * reference's, since dlgemm then only forwards.  Memory around every operand
 * is filled with a sentinel and must survive.
 *
 * usage: test_differential [cases]   (DLGEMM_TEST_SEED replays a run)
 * With DLGEMM_FORCE=gpu it first makes sure the CUDA backend is usable, and
 * exits 77 (skipped, reason printed) where it is not.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu/blas.h"
#include "dlgemm.h"
#include "gpu_probe.h"
#include "testutil.h"
#include "blas_symbols.h"

typedef void (*cblas_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                               const float *, int, float, float *, int);

static const int sizes[] = {0, 1, 2, 3, 5, 7, 13, 31, 32, 33, 64, 65, 127, 128, 129, 200, 257};
static const double scalars[] = {0, 1, -1, 0.7, 2.5};
static const float SENTINEL = -12345.5f;
static int bitwise; /* DLGEMM_FORCE=cpu: must equal the reference exactly */
static long failures;

#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define FAIL(...) (fprintf(stderr, __VA_ARGS__), failures++)

static int pick_size(rng *r, int cap)
{
  int s;
  do s = sizes[rng_int(r, NSIZES)]; while (s > cap);
  return s;
}

/* A buffer of n elements of es bytes: random values, or NaN, plus a guard. */
static void *fill(rng *r, size_t n, int is64, int nan)
{
  char *p = malloc((n + 64) * (is64 ? 8 : 4));
  size_t i;
  for (i = 0; i < n + 64; i++) {
    double v = i >= n ? SENTINEL : nan ? NAN : rng_unit(r);
    if (is64) ((double *)p)[i] = v;
    else ((float *)p)[i] = (float)v;
  }
  return p;
}

/* Elements of a rows x cols column-major matrix with leading dimension ld
 * that lie outside the matrix (padding rows, the guard) must be unchanged. */
static long count_overwrites(const void *c, const void *c0, size_t es, int rows, int cols,
                             int ld, size_t total)
{
  size_t i;
  long bad = 0;
  for (i = 0; i < total + 64; i++) {
    int inside = i < (size_t)ld * cols && (int)(i % (size_t)ld) < rows;
    if (!inside && memcmp((const char *)c + i * es, (const char *)c0 + i * es, es)) bad++;
  }
  return bad;
}

/* A side of C of at most 16 against k and the other side of 256 or more
 * (primes among them): what plugin/cuda/device/narrow.c takes. */
static void narrow_shape(rng *r, int *m, int *n, int *k)
{
  static const int lo[] = {1, 2, 3, 5, 8, 13, 16}, hi[] = {256, 257, 263, 300, 521};
  const int side = lo[rng_int(r, 7)], other = hi[rng_int(r, 5)];
  *k = hi[rng_int(r, 5)];
  if (rng_int(r, 2)) *m = side, *n = other;
  else *m = other, *n = side;
}

/* One BLAS-style call through sgemm_ or dgemm_ (or cblas_sgemm, row-major
 * or column-major), against the reference library `ref`. */
static void blas_case(rng *r, void *ref, int is64, int via_cblas)
{
  const char tch[] = "NTC";
  char ta = tch[rng_int(r, 3)], tb = tch[rng_int(r, 3)];
  int m = pick_size(r, 257), n = pick_size(r, 257), k = pick_size(r, 257);
  int row = via_cblas && rng_int(r, 2);
  if (rng_int(r, 4) == 0) narrow_shape(r, &m, &n, &k);
  /* Storage dimensions of A, B and C as seen by the caller. */
  int ar = (ta == 'N') ^ row ? m : k, ac = (ta == 'N') ^ row ? k : m;
  int br = (tb == 'N') ^ row ? k : n, bc = (tb == 'N') ^ row ? n : k;
  int cr = row ? n : m, cc = row ? m : n;
  int lda = (ar > 1 ? ar : 1) + rng_int(r, 3), ldb = (br > 1 ? br : 1) + rng_int(r, 3);
  int ldc = (cr > 1 ? cr : 1) + rng_int(r, 3);
  double alpha = scalars[rng_int(r, 5)], beta = scalars[rng_int(r, 5)];
  size_t na = (size_t)lda * ac, nb = (size_t)ldb * bc, nc = (size_t)ldc * cc;
  void *a = fill(r, na, is64, 0), *b = fill(r, nb, is64, 0);
  void *c = fill(r, nc, is64, beta == 0), *c0 = malloc((nc + 64) * 8), *cref = malloc((nc + 64) * 8);
  size_t es = is64 ? 8 : 4;
  const char *what = via_cblas ? "cblas_sgemm" : is64 ? "dgemm_" : "sgemm_";
  long bad;

  memcpy(c0, c, (nc + 64) * es);
  memcpy(cref, c, (nc + 64) * es);
  if (via_cblas) {
    int lay = row ? 101 : 102, t1 = ta == 'N' ? 111 : ta == 'T' ? 112 : 113;
    int t2 = tb == 'N' ? 111 : tb == 'T' ? 112 : 113;
    cblas_sgemm(lay, t1, t2, m, n, k, (float)alpha, a, lda, b, ldb, (float)beta, c, ldc);
    ((cblas_sgemm_fn)dlsym(ref, "cblas_sgemm"))(lay, t1, t2, m, n, k, (float)alpha, a, lda, b,
                                                ldb, (float)beta, cref, ldc);
  } else if (is64) {
    dgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
    ((dlg_dgemm_fn)dlsym(ref, "dgemm_"))(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta,
                                         cref, &ldc, 1, 1);
  } else {
    float fa = (float)alpha, fb = (float)beta;
    sgemm_(&ta, &tb, &m, &n, &k, &fa, a, &lda, b, &ldb, &fb, c, &ldc, 1, 1);
    ((dlg_sgemm_fn)dlsym(ref, "sgemm_"))(&ta, &tb, &m, &n, &k, &fa, a, &lda, b, &ldb, &fb, cref,
                                         &ldc, 1, 1);
  }
  /* In C's storage, C(i,j) = sum_l opA(i,l) opB(l,j) in the caller's view;
   * for row-major storage the stored matrix is C^T = opB^T opA^T. */
  if (!row)
    bad = check_product(is64, m, n, k, alpha, a, ta == 'N' ? 1 : lda, ta == 'N' ? lda : 1, b,
                        tb == 'N' ? 1 : ldb, tb == 'N' ? ldb : 1, beta, c0, c, 1, ldc, 1.0);
  else
    bad = check_product(is64, m, n, k, alpha, a, ta == 'N' ? lda : 1, ta == 'N' ? 1 : lda, b,
                        tb == 'N' ? ldb : 1, tb == 'N' ? 1 : ldb, beta, c0, c, ldc, 1, 1.0);
  if (bad)
    FAIL("%s %s %c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g: %ld wrong\n", what,
         row ? "row" : "col", ta, tb, m, n, k, lda, ldb, ldc, alpha, beta, bad);
  if ((bad = count_overwrites(c, c0, es, cr, cc, ldc, nc)))
    FAIL("%s %c%c m=%d n=%d k=%d ldc=%d: %ld elements outside C written\n", what, ta, tb, m, n, k,
         ldc, bad);
  if (bitwise && memcmp(c, cref, (nc + 64) * es))
    FAIL("%s %c%c m=%d n=%d k=%d: not bit-identical to the reference BLAS\n", what, ta, tb, m,
         n, k);
  free(a), free(b), free(c), free(c0), free(cref);
}

/* dlgemm_matmul on random layouts, batches, broadcasts and byte offsets. */
static void tensor_case(rng *r, int is64)
{
  int64_t batch = rng_int(r, 3) + 1, m = pick_size(r, 129), n = pick_size(r, 129);
  int64_t k = pick_size(r, 129), shp[3][3], str[3][3], rows[3] = {m, k, m}, cols[3] = {k, n, n};
  int64_t bcast[3] = {rng_int(r, 3) == 0, rng_int(r, 3) == 0, 0}, total[3];
  void *buf[3], *c0;
  DLTensor t[3];
  double alpha = scalars[rng_int(r, 5)], beta = scalars[rng_int(r, 5)];
  size_t es = is64 ? 8 : 4;
  int i, colmaj[3], flat = batch == 1 && rng_int(r, 2);
  int64_t p, off[3];
  dlgemm_status st;

  for (i = 0; i < 3; i++) {
    int64_t ld, matrix, nb = bcast[i] ? 1 : batch;
    colmaj[i] = rng_int(r, 2);
    ld = (colmaj[i] ? rows[i] : cols[i]) + rng_int(r, 3);
    if (ld < 1) ld = 1;
    matrix = ld * (colmaj[i] ? cols[i] : rows[i]) + rng_int(r, 4);
    off[i] = rng_int(r, 3);
    total[i] = off[i] + matrix * nb;
    buf[i] = fill(r, (size_t)total[i], is64, i == 2 && beta == 0);
    shp[i][0] = nb, shp[i][1] = rows[i], shp[i][2] = cols[i];
    str[i][0] = matrix;
    str[i][1] = colmaj[i] ? 1 : ld;
    str[i][2] = colmaj[i] ? ld : 1;
    t[i] = (DLTensor){buf[i], {kDLCPU, 0}, 3, {kDLFloat, is64 ? 64 : 32, 1}, shp[i], str[i],
                      (uint64_t)off[i] * es};
    if (flat || (i < 2 && bcast[i] && rng_int(r, 2))) { /* 2-D tensors as well */
      t[i].ndim = 2, t[i].shape = shp[i] + 1, t[i].strides = str[i] + 1;
    }
  }
  c0 = malloc((size_t)(total[2] + 64) * es);
  memcpy(c0, buf[2], (size_t)(total[2] + 64) * es);
  st = dlgemm_matmul(&t[0], &t[1], &t[2], alpha, beta, NULL);
  if (st != DLGEMM_OK) {
    FAIL("dlgemm_matmul batch=%lld m=%lld n=%lld k=%lld: %s\n", (long long)batch, (long long)m,
         (long long)n, (long long)k, dlgemm_last_error());
  } else {
    for (p = 0; p < batch; p++) {
      const char *pa = (char *)buf[0] + (off[0] + (bcast[0] ? 0 : p * str[0][0])) * es;
      const char *pb = (char *)buf[1] + (off[1] + (bcast[1] ? 0 : p * str[1][0])) * es;
      size_t oc = (size_t)(off[2] + p * str[2][0]) * es;
      long bad = check_product(is64, m, n, k, alpha, pa, str[0][1], str[0][2], pb, str[1][1],
                               str[1][2], beta, (char *)c0 + oc, (char *)buf[2] + oc,
                               str[2][1], str[2][2], 1.0);
      if (bad)
        FAIL("dlgemm_matmul f%d batch %lld/%lld m=%lld n=%lld k=%lld layouts %d%d%d "
             "alpha=%g beta=%g: %ld wrong\n", is64 ? 64 : 32, (long long)p, (long long)batch,
             (long long)m, (long long)n, (long long)k, colmaj[0], colmaj[1], colmaj[2], alpha,
             beta, bad);
    }
  }
  {
    /* Nothing outside C's elements may change. */
    char *mark = calloc((size_t)total[2] + 64, 1);
    int64_t q, j, idx;
    long bad = 0;
    for (p = 0; p < batch; p++)
      for (q = 0; q < m; q++)
        for (j = 0; j < n; j++) {
          idx = off[2] + p * str[2][0] + q * str[2][1] + j * str[2][2];
          mark[idx] = 1;
        }
    for (idx = 0; idx < total[2] + 64; idx++)
      if (!mark[idx] && memcmp((char *)buf[2] + idx * es, (char *)c0 + idx * es, es)) bad++;
    if (bad) FAIL("dlgemm_matmul m=%lld n=%lld: %ld elements outside C written\n", (long long)m,
                  (long long)n, bad);
    free(mark);
  }
  for (i = 0; i < 3; i++) free(buf[i]);
  free(c0);
}

int main(int argc, char **argv)
{
  int cases = argc > 1 ? atoi(argv[1]) : 300, i, failed_cases = 0;
  const char *force = getenv("DLGEMM_FORCE");
  rng r = {test_seed("test_differential")};
  /* Deep binding keeps the reference's cblas_sgemm calling its own sgemm_,
   * not the one dlgemm puts in front of it.  AddressSanitizer refuses deep
   * binding (tools/sanitize.sh): there the reference's CBLAS layer runs on
   * dlgemm's sgemm_, and its Fortran routines are still netlib's own. */
#if defined(__SANITIZE_ADDRESS__)
  void *ref = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
#else
  void *ref = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
#endif
  if (!ref) {
    fprintf(stderr, "libblas.so.3 (Debian libblas3) is needed: %s\n", dlerror());
    return 1;
  }
  bitwise = force && !strcmp(force, "cpu");
  if (force && !strcmp(force, "gpu") && !cuda_backend_usable("test_differential (gpu)")) return 77;
  for (i = 0; i < 4 * cases; i++) {
    long before = failures;
    switch (i % 4) {
    case 0: blas_case(&r, ref, 0, 0); break;
    case 1: blas_case(&r, ref, 1, 0); break;
    case 2: blas_case(&r, ref, 0, 1); break;
    default: tensor_case(&r, (i / 4) & 1); break;
    }
    failed_cases += failures != before;
  }
  printf("test_differential: %d cases through sgemm_, dgemm_, cblas_sgemm, dlgemm_matmul (%s)\n",
         4 * cases, bitwise ? "bit-identical to netlib required" : "FP64 error bound");
  printf("%d passed, %d failed\n", 4 * cases - failed_cases, failed_cases);
  return failed_cases != 0;
}
