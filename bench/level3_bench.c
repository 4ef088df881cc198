/*
 * level3_bench - an ordinary BLAS program for the level-3 routines besides
 * real GEMM: each routine named on the command line on malloc'ed n x n
 * arrays, linked with -lblas only.  bench/level3_bench.sh runs it on the
 * BLAS alone, with libdlgemm.so and with NVBLAS LD_PRELOAD'ed.  The
 * routine is the one the loader resolves (dlsym(RTLD_DEFAULT)), as a
 * program's own call would be.
 *
 * usage: level3_bench <max seconds per call> <routine,routine...> n...
 *   routines: [sdcz]trsm [sdcz]trmm [sdcz]syrk [sdcz]syr2k [sdcz]symm
 *             [cz]gemm [cz]herk [cz]her2k [cz]hemm
 * Output per routine and n: one untimed call, then 1 to 15 timed calls
 * (B restored before each TRSM/TRMM), wall clock, median:
 *   <routine> n=<n> seconds=<median> tflops=<LAPACK's flop count / median>
 * Left side, lower, no transpose, non-unit, alpha 1, beta 1 throughout.
 *
 * With L3_BENCH_AB set to a BLAS library (libblas.so.3, the one dlgemm
 * forwards to), each timed call alternates with a call of that library's
 * routine on the same arrays in the same process, and both medians print:
 *   <routine> n=<n> seconds=... tflops=... direct_tflops=... ratio=...
 * Small calls on the CPU run at one of two speeds per process, whatever
 * library is preloaded (where the arrays fall in memory); alternating in one
 * process compares the two at the same layout.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blas_symbols.h"

/* A reference to the BLAS it is linked with, which --as-needed keeps. */
void (*volatile level3_bench_linked)(void) = (void (*)(void))dgemm_;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef void (*fn12)(const char *, const char *, const int *, const int *, const void *,
                     const void *, const int *, const void *, const int *, const void *, void *,
                     const int *, size_t, size_t);
typedef void (*fn13)(const char *, const char *, const int *, const int *, const int *,
                     const void *, const void *, const int *, const void *, const int *,
                     const void *, void *, const int *, size_t, size_t);
typedef void (*fn10)(const char *, const char *, const int *, const int *, const void *,
                     const void *, const int *, const void *, void *, const int *, size_t, size_t);
typedef void (*fn11)(const char *, const char *, const char *, const char *, const int *,
                     const int *, const void *, const void *, const int *, void *, const int *,
                     size_t, size_t, size_t, size_t);

/* A, B, C of n x n; A's diagonal 2, the rest in [-0.5, 0.5) / n, so a
 * triangular solve stays well scaled call after call. */
static void fill(char *p, size_t n, int parts, int dbl, unsigned long long seed)
{
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < n; i++)
      for (int q = 0; q < parts; q++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        double v = ((double)(seed >> 40) * (1.0 / 16777216.0) - 0.5) / (double)n;
        if (i == j) v = q ? 0 : 2;
        if (dbl)
          ((double *)p)[(j * n + i) * parts + q] = v;
        else
          ((float *)p)[(j * n + i) * parts + q] = (float)v;
      }
}

static double call(const char *r, void *fn, int n, const void *one, char *a, char *b, char *c)
{
  const double t0 = now();
  if (!strcmp(r + 1, "gemm"))
    ((fn13)fn)("N", "N", &n, &n, &n, one, a, &n, b, &n, one, c, &n, 1, 1);
  else if (!strcmp(r + 1, "symm") || !strcmp(r + 1, "hemm"))
    ((fn12)fn)("L", "L", &n, &n, one, a, &n, b, &n, one, c, &n, 1, 1);
  else if (!strcmp(r + 1, "syrk") || !strcmp(r + 1, "herk"))
    ((fn10)fn)("L", "N", &n, &n, one, a, &n, one, c, &n, 1, 1);
  else if (!strcmp(r + 1, "syr2k") || !strcmp(r + 1, "her2k"))
    ((fn12)fn)("L", "N", &n, &n, one, a, &n, b, &n, one, c, &n, 1, 1);
  else
    ((fn11)fn)("L", "L", "N", "N", &n, &n, one, a, &n, c, &n, 1, 1, 1, 1);
  return now() - t0;
}

static double flops(const char *r, double n)
{
  const double f = (r[0] == 'c' || r[0] == 'z') ? 4 : 1;
  if (!strcmp(r + 1, "syrk") || !strcmp(r + 1, "herk")) return f * n * n * (n + 1);
  if (!strcmp(r + 1, "syr2k") || !strcmp(r + 1, "her2k")) return f * 2 * n * n * (n + 1);
  if (!strcmp(r + 1, "trmm") || !strcmp(r + 1, "trsm")) return f * n * n * n;
  return f * 2 * n * n * n;
}

int main(int argc, char **argv)
{
  const double limit = argc > 1 ? atof(argv[1]) : 30;
  const char *ab = getenv("L3_BENCH_AB");
  void *direct_lib = ab && *ab ? dlopen(ab, RTLD_NOW | RTLD_LOCAL) : NULL;
  char list[512], *save = NULL, *r;
  if (argc < 4) {
    fprintf(stderr, "usage: level3_bench seconds routine[,routine...] n...\n");
    return 2;
  }
  snprintf(list, sizeof list, "%s", argv[2]);
  for (r = strtok_r(list, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
    char name[16];
    const int cplx = r[0] == 'c' || r[0] == 'z', dbl = r[0] == 'd' || r[0] == 'z';
    const int parts = cplx ? 2 : 1;
    const size_t es = (size_t)parts * (dbl ? 8 : 4);
    const double one_d[2] = {1, 0};
    const float one_f[2] = {1, 0};
    const int tri = !strcmp(r + 1, "trsm") || !strcmp(r + 1, "trmm");
    double rate = 0;
    void *fn, *direct;
    snprintf(name, sizeof name, "%s_", r);
    if (!(fn = dlsym(RTLD_DEFAULT, name))) {
      printf("%s missing\n", r);
      continue;
    }
    direct = direct_lib ? dlsym(direct_lib, name) : NULL;
    for (int i = 3; i < argc; i++) {
      const int n = atoi(argv[i]);
      const size_t len = (size_t)n * n * es;
      double t[15], u[15], first;
      int reps;
      char *a, *b, *c, *c0;
      if (rate > 0 && flops(r, n) / rate > limit) {
        printf("%s n=%d skipped predicted_seconds=%.0f\n", r, n, flops(r, n) / rate);
        fflush(stdout);
        continue;
      }
      a = malloc(len), b = malloc(len), c = malloc(len), c0 = malloc(len);
      if (!a || !b || !c || !c0) {
        printf("%s n=%d skipped out_of_memory\n", r, n);
        free(a), free(b), free(c), free(c0);
        continue;
      }
      fill(a, (size_t)n, parts, dbl, 1 + n), fill(b, (size_t)n, parts, dbl, 2 + n);
      fill(c0, (size_t)n, parts, dbl, 3 + n);
      memcpy(c, c0, len);
      first = call(r, fn, n, dbl ? (void *)one_d : (void *)one_f, a, b, c);
      reps = first > limit / 3 ? 1 : first * 5 > 2.0 ? 3 : first > 0.05 ? 5 : 15;
      for (int k = 0; k < reps; k++) {
        if (tri) memcpy(c, c0, len);
        t[k] = call(r, fn, n, dbl ? (void *)one_d : (void *)one_f, a, b, c);
        if (!direct) continue;
        if (tri) memcpy(c, c0, len);
        u[k] = call(r, direct, n, dbl ? (void *)one_d : (void *)one_f, a, b, c);
      }
      qsort(t, (size_t)reps, sizeof t[0], cmp);
      rate = flops(r, n) / t[reps / 2];
      printf("%s n=%d seconds=%.6f tflops=%.4f reps=%d first=%.4f", r, n, t[reps / 2],
             rate * 1e-12, reps, first);
      if (direct) {
        qsort(u, (size_t)reps, sizeof u[0], cmp);
        printf(" direct_tflops=%.4f ratio=%.3f", flops(r, n) / u[reps / 2] * 1e-12,
               u[reps / 2] / t[reps / 2]);
      }
      printf("\n");
      fflush(stdout);
      free(a), free(b), free(c), free(c0);
    }
  }
  return 0;
}
