/*
 * soak_calls.c - the soak's calls (soak.h): each draws its sizes, layout and
 * scalars, makes its operands, calls the library the way a program does,
 * and checks sampled entries of the answer against a long-double sum with
 * the classic error bound of its precision; C's entries outside the
 * product (ldc past m, the other triangle) must be untouched.  The checks
 * cost O(samples x k), so the soak spends its time in the library.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "blas_symbols.h"
#include "gpu_probe.h"
#include "soak.h"

void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *,
            const double *, const double *, const int *, double *, const int *, size_t, size_t,
            size_t, size_t);
void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *,
            const int *, const double *, double *, const int *, size_t, size_t);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);

const char *const soak_kind_name[SOAK_KINDS] = {"gemm", "trsm", "syrk", "factor", "device"};

enum { SAMPLES = 24 };
static const double EPS32 = 5.9604644775390625e-08, EPS64 = 1.1102230246251565e-16;

static double pick(rng *r, const double *v, int n) { return v[rng_int(r, n)]; }

static int dim(rng *r, int most) { return 1 + rng_int(r, most); }

/* |got - ref| within slack * (steps * eps + eps_in) * mag, NaN never. */
static int near(const char *what, long double got, long double ref, long double mag, double steps,
                double eps, double eps_in, double slack)
{
  const long double bound = slack * (steps * eps + eps_in) * mag + 1e-300L;
  if (fabsl(got - ref) <= bound) return 1;
  fprintf(stderr, "soak: %s: %.17Lg, expected %.17Lg (bound %.3Lg)\n", what, got, ref, bound);
  return 0;
}

static double *doubles(size_t n, rng *r)
{
  double *x = malloc((n ? n : 1) * sizeof *x);
  size_t i;
  for (i = 0; i < n; i++) x[i] = rng_unit(r);
  return x;
}

/* --- sgemm_ / dgemm_ on host arrays -------------------------------------------------- */

/* One product of the given shape, its inputs drawn from r, checked. */
static int gemm_of(rng *r, int is64, int m, int n, int k, char ta, char tb, double alpha,
                   double beta)
{
  const int lda = (ta == 'N' ? m : k) + rng_int(r, 3), ldb = (tb == 'N' ? k : n) + rng_int(r, 3);
  const int ldc = m + 1 + rng_int(r, 3);
  const size_t es = is64 ? 8 : 4, na = (size_t)lda * (ta == 'N' ? k : m),
               nb = (size_t)ldb * (tb == 'N' ? n : k), nc = (size_t)ldc * n;
  char *a = malloc(na * es + 8), *b = malloc(nb * es + 8), *c = malloc(nc * es),
       *c0 = malloc(nc * es);
  size_t i;
  int s, bad = 0;
  for (i = 0; i < na; i++) problem_set(a, is64, i, rng_unit(r));
  for (i = 0; i < nb; i++) problem_set(b, is64, i, rng_unit(r));
  for (i = 0; i < nc; i++) /* beta = 0: C is not read, NaN must not show */
    problem_set(c, is64, i, (int)(i % (size_t)ldc) >= m ? -777.25 : beta == 0 ? NAN : rng_unit(r));
  memcpy(c0, c, nc * es);
  if (is64) dgemm_(&ta, &tb, &m, &n, &k, &alpha, (double *)a, &lda, (double *)b, &ldb, &beta,
                   (double *)c, &ldc, 1, 1);
  else {
    const float fa = (float)alpha, fb = (float)beta;
    sgemm_(&ta, &tb, &m, &n, &k, &fa, (float *)a, &lda, (float *)b, &ldb, &fb, (float *)c, &ldc,
           1, 1);
  }
  for (s = 0; s < SAMPLES && !bad; s++) {
    const int64_t ii = rng_int(r, m), jj = rng_int(r, n);
    long double ref = 0, mag = 0;
    int l;
    for (l = 0; l < k; l++) {
      const long double x =
          (long double)elem(a, is64, ta == 'N' ? 1 : lda, ta == 'N' ? lda : 1, ii, l) *
          elem(b, is64, tb == 'N' ? 1 : ldb, tb == 'N' ? ldb : 1, l, jj);
      ref += x, mag += fabsl(x);
    }
    ref *= alpha, mag *= fabs(alpha);
    if (beta != 0) {
      ref += beta * elem(c0, is64, 1, ldc, ii, jj);
      mag += fabsl(beta * elem(c0, is64, 1, ldc, ii, jj));
    }
    bad = !near(is64 ? "dgemm_" : "sgemm_", elem(c, is64, 1, ldc, ii, jj), ref, mag, k + 2,
                is64 ? EPS64 : EPS32, 0, 3);
    if (!bad && elem(c, is64, 1, ldc, m, jj) != -777.25)
      bad = 1, fprintf(stderr, "soak: gemm wrote C past m\n");
  }
  if (bad) fprintf(stderr, "soak: %cgemm_ %c%c m=%d n=%d k=%d alpha=%g beta=%g WRONG\n",
                   is64 ? 'd' : 's', ta, tb, m, n, k, alpha, beta);
  free(a), free(b), free(c), free(c0);
  return bad;
}

static int gemm(rng *r, int most)
{
  static const double alphas[] = {1, -0.5, 2, 0}, betas[] = {0, 1, -1.5};
  const int is64 = rng_int(r, 2), m = dim(r, most), n = dim(r, most), k = dim(r, most);
  const char ta = "NT"[rng_int(r, 2)], tb = "NT"[rng_int(r, 2)];
  const double alpha = pick(r, alphas, 4), beta = pick(r, betas, 3);
  return gemm_of(r, is64, m, n, k, ta, tb, alpha, beta);
}

/* The host-array engine page-locks more of its chunks once, on the first
 * call that moves over four times what it has (16 MB at first, 256 MB in
 * all: engine.c, grow).  Among the soak's random calls only a dgemm_ near
 * 1536 with beta != 0 moves that much, so that one-time step came at a
 * random point of a run and counted as growth after the first third in
 * some processes (+190 to +260 MB, 4 and 8 processes on an H200, session
 * 30).  A dgemm_ of 2048 with beta = 1 (134 MB) takes it before the run. */
int soak_warm(rng *r, const cudrv *cu)
{
  return cu ? gemm_of(r, 1, 2048, 2048, 2048, 'N', 'N', 1, 1) : 0;
}

/* --- dtrsm_: X = alpha inv(L) B, L lower, diagonally dominant ------------------------- */

static int trsm(rng *r, int most)
{
  const int m = dim(r, most), n = dim(r, most), lda = m + rng_int(r, 3), ldb = m + rng_int(r, 3);
  const double alpha = rng_int(r, 2) ? 1.0 : -0.75;
  double *a = doubles((size_t)lda * m, r), *b = doubles((size_t)ldb * n, r), *b0;
  int i, s, bad = 0;
  for (i = 0; i < m; i++) a[i + (size_t)i * lda] = m + 1.0;
  b0 = malloc((size_t)ldb * n * sizeof *b0);
  memcpy(b0, b, (size_t)ldb * n * sizeof *b0);
  dtrsm_("L", "L", "N", "N", &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
  for (s = 0; s < SAMPLES && !bad; s++) { /* (L X)_ij = alpha B_ij */
    const int ii = rng_int(r, m), jj = rng_int(r, n);
    long double sum = 0, mag = fabsl(alpha * b0[ii + (size_t)jj * ldb]);
    int l;
    for (l = 0; l <= ii; l++) {
      const long double x = (long double)a[ii + (size_t)l * lda] * b[l + (size_t)jj * ldb];
      sum += x, mag += fabsl(x);
    }
    bad = !near("dtrsm_", sum, alpha * b0[ii + (size_t)jj * ldb], mag, m + 2, EPS64, 0, 4);
  }
  if (bad) fprintf(stderr, "soak: dtrsm_ m=%d n=%d WRONG\n", m, n);
  free(a), free(b), free(b0);
  return bad;
}

/* --- dsyrk_: C = alpha A A^T + beta C, the lower triangle ------------------------------ */

static int syrk(rng *r, int most)
{
  static const double betas[] = {0, 1, -1.5};
  const int n = dim(r, most), k = dim(r, most), lda = n + rng_int(r, 3), ldc = n + rng_int(r, 3);
  const double alpha = rng_int(r, 2) ? 1.0 : 0.5, beta = pick(r, betas, 3);
  double *a = doubles((size_t)lda * k, r), *c = doubles((size_t)ldc * n, r), *c0;
  int i, j, s, bad = 0;
  for (j = 0; j < n; j++) /* beta = 0: the triangle is not read */
    for (i = j; i < n && beta == 0; i++) c[i + (size_t)j * ldc] = NAN;
  c0 = malloc((size_t)ldc * n * sizeof *c0);
  memcpy(c0, c, (size_t)ldc * n * sizeof *c0);
  dsyrk_("L", "N", &n, &k, &alpha, a, &lda, &beta, c, &ldc, 1, 1);
  for (s = 0; s < SAMPLES && !bad; s++) {
    const int x = rng_int(r, n), y = rng_int(r, n), ii = x > y ? x : y, jj = x > y ? y : x;
    long double ref = 0, mag = 0;
    int l;
    for (l = 0; l < k; l++) {
      const long double p = (long double)a[ii + (size_t)l * lda] * a[jj + (size_t)l * lda];
      ref += p, mag += fabsl(p);
    }
    ref *= alpha, mag *= alpha;
    if (beta != 0) {
      const double was = c0[ii + (size_t)jj * ldc];
      ref += beta * was, mag += fabs(beta * was);
    }
    bad = !near("dsyrk_", c[ii + (size_t)jj * ldc], ref, mag, k + 2, EPS64, 0, 3);
    if (!bad && ii != jj && memcmp(&c[jj + (size_t)ii * ldc], &c0[jj + (size_t)ii * ldc], 8))
      bad = 1, fprintf(stderr, "soak: dsyrk_ wrote the upper triangle\n");
  }
  if (bad) fprintf(stderr, "soak: dsyrk_ n=%d k=%d beta=%g WRONG\n", n, k, beta);
  free(a), free(c), free(c0);
  return bad;
}

/* --- dgetrf_ (P A = L U) or dpotrf_ (A = L L^T) ------------------------------------------ */

static int factor(rng *r, int most)
{
  const int n = dim(r, most), lda = n + rng_int(r, 3), lu = rng_int(r, 2);
  double *a = doubles((size_t)lda * n, r), *a0 = malloc((size_t)lda * n * sizeof *a0);
  int *ipiv = malloc((size_t)n * sizeof *ipiv), *perm = malloc((size_t)n * sizeof *perm);
  int i, j, s, info = -1, bad = 0;
  if (!lu) /* symmetric and diagonally dominant: positive definite */
    for (j = 0; j < n; j++) {
      a[j + (size_t)j * lda] = n + 1.0;
      for (i = j + 1; i < n; i++) a[j + (size_t)i * lda] = a[i + (size_t)j * lda];
    }
  memcpy(a0, a, (size_t)lda * n * sizeof *a0);
  if (lu) dgetrf_(&n, &n, a, &lda, ipiv, &info);
  else dpotrf_("L", &n, a, &lda, &info, 1);
  if (info) {
    fprintf(stderr, "soak: %s n=%d: info %d\n", lu ? "dgetrf_" : "dpotrf_", n, info);
    bad = 1;
  }
  for (i = 0; i < n; i++) perm[i] = i;
  for (i = 0; lu && !bad && i < n; i++) { /* the rows' order after the swaps */
    const int p = ipiv[i] - 1, t = perm[i];
    if (p < i || p >= n) {
      fprintf(stderr, "soak: dgetrf_: ipiv(%d) = %d\n", i + 1, ipiv[i]);
      bad = 1;
      break;
    }
    perm[i] = perm[p], perm[p] = t;
  }
  for (s = 0; s < SAMPLES && !bad; s++) {
    int ii = rng_int(r, n), jj = rng_int(r, n), l;
    long double sum = 0, mag = 0;
    if (!lu && ii < jj) i = ii, ii = jj, jj = i;
    for (l = 0; l <= (ii < jj ? ii : jj); l++) {
      const double lo = lu && l == ii ? 1.0 : a[ii + (size_t)l * lda];
      const double up = lu ? a[l + (size_t)jj * lda] : a[jj + (size_t)l * lda];
      sum += (long double)lo * up, mag += fabsl((long double)lo * up);
    }
    bad = !near(lu ? "dgetrf_" : "dpotrf_", sum, a0[(lu ? perm[ii] : ii) + (size_t)jj * lda], mag,
                n + 2, EPS64, 0, 8);
  }
  if (bad) fprintf(stderr, "soak: %s n=%d WRONG\n", lu ? "dgetrf_" : "dpotrf_", n);
  free(a), free(a0), free(ipiv), free(perm);
  return bad;
}

/* --- dlgemm_matmul on device tensors -------------------------------------------------------- */

static int device(rng *r, const cudrv *cu, int most)
{
  static const double betas[] = {0, 1, -1.5};
  const int is64 = rng_int(r, 3) == 0, m = dim(r, most), n = dim(r, most), k = dim(r, most);
  const int precision = is64 ? DLGEMM_PRECISION_STRICT : rng_int(r, 3);
  const double alpha = rng_int(r, 2) ? 1.0 : -2.0, beta = pick(r, betas, 3);
  const size_t es = is64 ? 8 : 4, na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
  char *a = malloc(na * es), *b = malloc(nb * es), *c = malloc(nc * es), *c0 = malloc(nc * es);
  int64_t sa[2] = {m, k}, sb[2] = {k, n}, sc[2] = {m, n}, ta[2] = {1, m}, tb[2] = {1, k},
          tc[2] = {1, m};
  CUdeviceptr da = 0, db = 0, dc = 0;
  dlgemm_options o;
  dlgemm_status st = DLGEMM_OK;
  size_t i;
  int s, bad = 0;
  for (i = 0; i < na; i++) problem_set(a, is64, i, rng_unit(r));
  for (i = 0; i < nb; i++) problem_set(b, is64, i, rng_unit(r));
  for (i = 0; i < nc; i++) problem_set(c, is64, i, beta == 0 ? NAN : rng_unit(r));
  memcpy(c0, c, nc * es);
  if (cu->MemAlloc(&da, na * es) || cu->MemAlloc(&db, nb * es) || cu->MemAlloc(&dc, nc * es) ||
      cu->MemcpyHtoD(da, a, na * es) || cu->MemcpyHtoD(db, b, nb * es) ||
      cu->MemcpyHtoD(dc, c, nc * es)) {
    fprintf(stderr, "soak: device operands could not be made (not counted)\n");
  } else {
    const DLDataType t = {kDLFloat, (uint8_t)(es * 8), 1};
    DLTensor A = {(void *)(uintptr_t)da, {kDLCUDA, 0}, 2, t, sa, ta, 0};
    DLTensor B = {(void *)(uintptr_t)db, {kDLCUDA, 0}, 2, t, sb, tb, 0};
    DLTensor C = {(void *)(uintptr_t)dc, {kDLCUDA, 0}, 2, t, sc, tc, 0};
    dlgemm_options_init(&o);
    o.precision = (dlgemm_precision)precision;
    st = dlgemm_matmul(&A, &B, &C, alpha, beta, &o);
    if (cu->MemcpyDtoH(c, dc, nc * es)) bad = 1, fprintf(stderr, "soak: C could not be read\n");
    if (st == DLGEMM_ERR_OUT_OF_MEMORY) { /* allowed, with C as it was */
      if (memcmp(c, c0, nc * es)) bad = 1, fprintf(stderr, "soak: out of memory, C changed\n");
    } else if (st) {
      bad = 1;
      fprintf(stderr, "soak: dlgemm_matmul: %s\n", dlgemm_last_error());
    }
  }
  for (s = 0; s < SAMPLES && !bad && st == DLGEMM_OK && da && db && dc; s++) {
    const int ii = rng_int(r, m), jj = rng_int(r, n);
    long double ref = 0, mag = 0;
    int l;
    for (l = 0; l < k; l++) {
      const long double x = (long double)elem(a, is64, 1, m, ii, l) * elem(b, is64, 1, k, l, jj);
      ref += x, mag += fabsl(x);
    }
    ref *= alpha, mag *= fabs(alpha);
    if (beta != 0) {
      const double was = elem(c0, is64, 1, m, ii, jj);
      ref += beta * was, mag += fabs(beta * was);
    }
    /* TF32 rounds each input to 11 bits; 3xTF32 keeps about FP32's */
    bad = !near("dlgemm_matmul", elem(c, is64, 1, m, ii, jj), ref, mag, k + 2, is64 ? EPS64 : EPS32,
                precision == DLGEMM_PRECISION_TF32 ? 1.0 / 1024 : 0,
                precision == DLGEMM_PRECISION_3XTF32 ? 8 : 3);
  }
  if (bad) fprintf(stderr, "soak: device %s precision %d m=%d n=%d k=%d beta=%g WRONG\n",
                   is64 ? "f64" : "f32", precision, m, n, k, beta);
  if (da) cu->MemFree(da);
  if (db) cu->MemFree(db);
  if (dc) cu->MemFree(dc);
  free(a), free(b), free(c), free(c0);
  return bad;
}

double soak_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

uint64_t soak_seed(void)
{
  static uint64_t seed;
  if (!seed) seed = test_seed("soak");
  return seed;
}

int soak_has_gpu(void)
{
  int status = 0;
  const pid_t pid = fork();
  if (pid == 0) _exit(driver_has_gpu() ? 0 : 1);
  return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status);
}

int soak_call(int kind, rng *r, const cudrv *cu)
{
  /* big enough for the GPU's paths where there is one; small on the CPU */
  const int most = cu ? 1536 : 160;
  switch (kind) {
  case SOAK_GEMM: return gemm(r, most);
  case SOAK_TRSM: return trsm(r, cu ? 1024 : 96);
  case SOAK_SYRK: return syrk(r, most);
  case SOAK_FACTOR: return factor(r, cu ? 2048 : 128);
  default: return cu ? device(r, cu, 2048) : 0;
  }
}
