/*
 * host_bench - an ordinary BLAS program: sgemm_ and dgemm_ on malloc'ed
 * arrays, linked with -lblas and nothing else.  bench/host_bench.sh runs it
 * three times, on the BLAS alone, with libdlgemm.so and with NVBLAS
 * LD_PRELOAD'ed, and sets the three side by side.
 *
 * usage: host_bench [max seconds per call] [n...]
 * For each n and type: one untimed call, then timed calls (51 under a
 * millisecond, down to 1 for a call near the limit), wall clock, median:
 *   <s|d>gemm n=<n> seconds=<median> tflops=<rate>
 * A call whose predicted time (from the previous size's rate) exceeds the
 * limit is skipped and printed as skipped, with the prediction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blas_symbols.h"

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fill(void *p, size_t n, int is64, unsigned long long seed)
{
  size_t i;
  for (i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const double v = (double)(seed >> 40) * (1.0 / 16777216.0) - 0.5;
    if (is64) ((double *)p)[i] = v;
    else ((float *)p)[i] = (float)v;
  }
}

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double one_call(int is64, int n, void *a, void *b, void *c)
{
  const double t0 = now();
  if (is64) {
    const double one = 1, zero = 0;
    dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
  } else {
    const float one = 1, zero = 0;
    sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
  }
  return now() - t0;
}

int main(int argc, char **argv)
{
  static const int defaults[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  const double limit = argc > 1 ? atof(argv[1]) : 30;
  int is64, i, nsizes = argc > 2 ? argc - 2 : 9;
  for (is64 = 0; is64 < 2; is64++) {
    double rate = 0; /* flops/s at the previous size */
    for (i = 0; i < nsizes; i++) {
      const int n = argc > 2 ? atoi(argv[i + 2]) : defaults[i];
      const size_t es = is64 ? 8 : 4, len = (size_t)n * n;
      const double flops = 2.0 * n * (double)n * n;
      double t[51], first;
      int reps, r;
      char *a, *b, *c;
      if (rate > 0 && flops / rate > limit) {
        printf("%cgemm n=%d skipped predicted_seconds=%.0f\n", is64 ? 'd' : 's', n, flops / rate);
        fflush(stdout);
        continue;
      }
      a = malloc(len * es), b = malloc(len * es), c = malloc(len * es);
      if (!a || !b || !c) {
        printf("%cgemm n=%d skipped out_of_memory\n", is64 ? 'd' : 's', n);
        free(a), free(b), free(c);
        continue;
      }
      fill(a, len, is64, 1 + n), fill(b, len, is64, 2 + n), fill(c, len, is64, 3 + n);
      first = one_call(is64, n, a, b, c); /* warm-up: libraries load, calibrate, pin */
      reps = first > limit / 3 ? 1 : first * 5 > 2.0 ? 3 : first > 0.05 ? 5 : first > 1e-3 ? 15 : 51;
      for (r = 0; r < reps; r++) t[r] = one_call(is64, n, a, b, c);
      qsort(t, (size_t)reps, sizeof t[0], cmp);
      rate = flops / t[reps / 2];
      printf("%cgemm n=%d seconds=%.6f tflops=%.4f reps=%d first=%.4f\n", is64 ? 'd' : 's', n,
             t[reps / 2], rate * 1e-12, reps, first);
      fflush(stdout);
      free(a), free(b), free(c);
    }
  }
  return 0;
}
