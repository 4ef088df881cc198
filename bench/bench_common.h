/*
 * bench_common.h - what the device benchmarks share: cuBLAS opened with
 * dlopen (a benchmark dependency, not a library one; DLGEMM_BENCH_CUBLAS
 * names it when libcublas.so is not on the loader path) and the timing:
 * event-timed runs after three warm-ups, input sets rotated, the median.
 */
#ifndef DLG_BENCH_COMMON_H
#define DLG_BENCH_COMMON_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "cudrv.h"

static int cmp_float(const void *a, const void *b)
{
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

static void *open_cublas(void)
{
  const char *names[] = {getenv("DLGEMM_BENCH_CUBLAS"), "libcublas.so", "libcublas.so.13",
                         "libcublas.so.12"};
  size_t i;
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    void *h = names[i] ? dlopen(names[i], RTLD_NOW | RTLD_GLOBAL) : NULL;
    if (h) return h;
  }
  fprintf(stderr, "cuBLAS not found: set DLGEMM_BENCH_CUBLAS=/path/to/libcublas.so\n");
  exit(1);
}

/* One timed product on the stream, with input set `set`. */
typedef void (*bench_run_fn)(int set, void *ctx);

/* Median milliseconds of reps runs of run(), after three warm-ups, each
 * timed with the events ev0 / ev1 around it; the input set rotates through
 * sets so that L2 does not hold the operands from the run before. */
static float bench_median_ms(const cudrv *cu, CUstream stream, CUevent ev0, CUevent ev1, int reps,
                             int sets, bench_run_fn run, void *ctx)
{
  float *ms = malloc(sizeof(float) * (size_t)reps), med;
  int r;
  for (r = -3; r < reps; r++) {
    CU(cu->EventRecord(ev0, stream));
    run((r + 3) % sets, ctx);
    CU(cu->EventRecord(ev1, stream));
    CU(cu->EventSynchronize(ev1));
    if (r >= 0) CU(cu->EventElapsedTime(&ms[r], ev0, ev1));
  }
  qsort(ms, (size_t)reps, sizeof(float), cmp_float);
  med = ms[reps / 2];
  free(ms);
  return med;
}

#endif
