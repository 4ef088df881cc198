/*
 * cold_start.c - process start to first result (issue 53): an unmodified
 * BLAS / LAPACK program's first dgemm_ or dgetrf_ on host arrays, and a
 * cuBLAS program's whole way to its first DGEMM (context, handle, copies
 * in and out), so that bench/cold_start.sh can time them side by side.
 *
 *   usage: cold_start dgemm|dgetrf|cublas N
 *
 * COLD_T0 (environment): the wall clock in ns just before the shell started
 * the process (date +%s%N).  Prints one line:
 *   MODE n N: first result after T ms (in main T ms), check OK
 * where the first figure counts from COLD_T0 (the loader and every library
 * constructor included) and the second from main's entry.  The result is
 * checked: C(i, j) against a dot product in long double for a few (i, j),
 * or the LU factors' product against A for one column; a wrong result
 * exits 1.  Linked with -llapack -lblas only, like bench/lapack.c, so the
 * BLAS is whatever the loader or LD_PRELOAD gives it.  The cuBLAS program
 * loads libcudart and libcublas itself (dlopen: what a program linked
 * against them pays at its start), so the binary builds without a GPU
 * toolkit; without them it exits 77.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *, size_t, size_t);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);

static double now(clockid_t clock)
{
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A(i, j) and B(i, j): small, exact in double, A diagonally dominant (LU
 * without growth). */
static double a_of(int i, int j, int n) { return i == j ? n : (double)((i * 7 + j * 3) % 11) / 16; }
static double b_of(int i, int j) { return (double)((i * 5 + j * 9) % 13) / 8 - 0.75; }

/* C = A B (column-major, ld n) checked at a few places. */
static int check_product(const double *c, int n)
{
  const int at[][2] = {{0, 0}, {n - 1, n - 1}, {n / 2, n / 3}, {n / 3, n - 1}};
  size_t t;
  for (t = 0; t < sizeof at / sizeof at[0]; t++) {
    const int i = at[t][0], j = at[t][1];
    long double ref = 0, mag = 0;
    int l;
    for (l = 0; l < n; l++) {
      ref += (long double)a_of(i, l, n) * b_of(l, j);
      mag += fabsl((long double)a_of(i, l, n) * b_of(l, j));
    }
    if (!(fabsl(c[i + (size_t)j * n] - ref) <= 1e-13L * mag + 1e-300L)) {
      fprintf(stderr, "cold_start: C(%d,%d) = %.17g, expected %.17Lg\n", i, j, c[i + (size_t)j * n],
              ref);
      return 0;
    }
  }
  return 1;
}

/* P L U = A, checked on column j: (L U)(:, j) against A's rows as pivoted. */
static int check_lu(const double *lu, const int *ipiv, int n, int j)
{
  double *col = malloc((size_t)n * sizeof *col);
  int *row = malloc((size_t)n * sizeof *row), i, l, ok = 1;
  for (i = 0; i < n; i++) row[i] = i;
  for (i = 0; i < n; i++) { /* the row swaps dgetrf made, in order */
    const int p = ipiv[i] - 1, t = row[i];
    row[i] = row[p], row[p] = t;
  }
  for (i = 0; i < n && ok; i++) {
    long double s = 0;
    for (l = 0; l <= (i < j ? i : j); l++)
      s += (long double)(l == i ? 1.0 : lu[i + (size_t)l * n]) * lu[l + (size_t)j * n];
    col[i] = (double)s;
    if (!(fabs(col[i] - a_of(row[i], j, n)) <= 1e-10 * n)) {
      fprintf(stderr, "cold_start: (LU)(%d,%d) = %.17g, A = %.17g\n", i, j, col[i],
              a_of(row[i], j, n));
      ok = 0;
    }
  }
  free(col), free(row);
  return ok;
}

typedef int (*malloc_fn)(void **, size_t);
typedef int (*memcpy_fn)(void *, const void *, size_t, int);
typedef int (*free_fn)(void *);
typedef int (*create_fn)(void **);
typedef int (*destroy_fn)(void *);
typedef int (*dgemm_fn)(void *, int, int, int, int, int, const double *, const double *, int,
                        const double *, int, const double *, double *, int);

static void *open_first(const char *const *names)
{
  void *h = NULL;
  for (; *names && !h; names++) h = dlopen(*names, RTLD_NOW | RTLD_GLOBAL);
  return h;
}

/* The cuBLAS program: runtime and handle, A and B in, DGEMM, C out. */
static int cublas_path(const double *a, const double *b, double *c, int n)
{
  static const char *const rt_names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so", NULL};
  static const char *const blas_names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so", NULL};
  void *rt = open_first(rt_names), *bl = rt ? open_first(blas_names) : NULL, *h = NULL;
  const size_t bytes = (size_t)n * n * sizeof(double);
  const double one = 1, zero = 0;
  malloc_fn cmalloc;
  memcpy_fn cmemcpy;
  free_fn cfree;
  create_fn create;
  destroy_fn destroy;
  dgemm_fn gemm;
  void *da = NULL, *db = NULL, *dc = NULL;
  if (!bl) {
    fprintf(stderr, "SKIP: cold_start cublas: no libcudart / libcublas (%s)\n", dlerror());
    exit(77);
  }
  cmalloc = (malloc_fn)dlsym(rt, "cudaMalloc"), cmemcpy = (memcpy_fn)dlsym(rt, "cudaMemcpy");
  cfree = (free_fn)dlsym(rt, "cudaFree");
  create = (create_fn)dlsym(bl, "cublasCreate_v2"), destroy = (destroy_fn)dlsym(bl, "cublasDestroy_v2");
  gemm = (dgemm_fn)dlsym(bl, "cublasDgemm_v2");
  if (!cmalloc || !cmemcpy || !cfree || !create || !destroy || !gemm) {
    fprintf(stderr, "SKIP: cold_start cublas: a symbol is missing\n");
    exit(77);
  }
  if (create(&h) || cmalloc(&da, bytes) || cmalloc(&db, bytes) || cmalloc(&dc, bytes) ||
      cmemcpy(da, a, bytes, 1) || cmemcpy(db, b, bytes, 1) ||
      gemm(h, 0, 0, n, n, n, &one, da, n, db, n, &zero, dc, n) || cmemcpy(c, dc, bytes, 2)) {
    fprintf(stderr, "cold_start cublas: a CUDA or cuBLAS call failed\n");
    exit(77);
  }
  cfree(da), cfree(db), cfree(dc), destroy(h);
  return 0;
}

int main(int argc, char **argv)
{
  const double entry = now(CLOCK_MONOTONIC);
  const char *mode = argc > 2 ? argv[1] : "", *t0s = getenv("COLD_T0");
  const int n = argc > 2 ? atoi(argv[2]) : 0;
  const double one = 1, zero = 0;
  double *a, *b, *c, done, wall;
  int *ipiv, i, j, info = 0, ok;
  if (n < 1 || (strcmp(mode, "dgemm") && strcmp(mode, "dgetrf") && strcmp(mode, "cublas"))) {
    fprintf(stderr, "usage: cold_start dgemm|dgetrf|cublas N\n");
    return 2;
  }
  a = malloc((size_t)n * n * sizeof *a), b = malloc((size_t)n * n * sizeof *b);
  c = malloc((size_t)n * n * sizeof *c), ipiv = malloc((size_t)n * sizeof *ipiv);
  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++) a[i + (size_t)j * n] = a_of(i, j, n), b[i + (size_t)j * n] = b_of(i, j);
  if (!strcmp(mode, "dgemm"))
    dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
  else if (!strcmp(mode, "cublas"))
    cublas_path(a, b, c, n);
  else
    dgetrf_(&n, &n, a, &n, ipiv, &info);
  done = now(CLOCK_MONOTONIC);
  wall = t0s ? now(CLOCK_REALTIME) - 1e-9 * strtod(t0s, NULL) : -1;
  ok = !strcmp(mode, "dgetrf") ? info == 0 && check_lu(a, ipiv, n, n / 2) : check_product(c, n);
  printf("%s n %d: first result after %.1f ms (in main %.1f ms), check %s\n", mode, n,
         wall >= 0 ? wall * 1e3 : NAN, (done - entry) * 1e3, ok ? "OK" : "FAILED");
  free(a), free(b), free(c), free(ipiv);
  return ok ? 0 : 1;
}
