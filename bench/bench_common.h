/*
 * bench_common.h - what the device benchmarks share: cuBLAS opened with
 * dlopen (a benchmark dependency, not a library one; DLGEMM_BENCH_CUBLAS
 * names it when libcublas.so is not on the loader path) and the timing:
 * event-timed runs after three warm-ups, input sets rotated, the median;
 * dlgemm and cuBLAS alternately.
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

typedef int (*cublas_create_fn)(void **);
typedef int (*cublas_set_stream_fn)(void *, CUstream);

/* What a GEMM benchmark starts with: the driver and its primary context, a
 * non-blocking stream, the two events that time each run, and a cuBLAS
 * handle on that stream.  Returns cuBLAS's library, for the caller's own
 * GEMM symbol; exits on any failure. */
static void *bench_open(cudrv *cu, CUstream *stream, CUevent *ev0, CUevent *ev1, void **handle)
{
  void *cublas = open_cublas();
  CUcontext ctx;
  cudrv_load(cu, &ctx);
  CU(cu->StreamCreate(stream, CU_STREAM_NON_BLOCKING));
  CU(cu->EventCreate(ev0, 0));
  CU(cu->EventCreate(ev1, 0));
  if (((cublas_create_fn)dlsym(cublas, "cublasCreate_v2"))(handle) ||
      ((cublas_set_stream_fn)dlsym(cublas, "cublasSetStream_v2"))(*handle, *stream)) {
    fprintf(stderr, "cuBLAS setup failed\n");
    exit(1);
  }
  return cublas;
}

/* One timed product on the stream, with input set `set`. */
typedef void (*bench_run_fn)(int set, void *ctx);

/* Median milliseconds of reps runs each of two products, after three
 * warm-ups, each run timed with the events ev0 / ev1 around it.  The two
 * are timed alternately, run with *which = 0 then 1 in each round (medians
 * into ms[0], ms[1]), so both see the same clocks and temperature, which
 * drift (at 8192^3 TF32 cuBLAS's median moved by 10% between back-to-back
 * runs).  Each run takes the next input set, so neither finds the other's
 * operands in L2. */
static void bench_median_pair_ms(const cudrv *cu, CUstream stream, CUevent ev0, CUevent ev1,
                                 int reps, int sets, bench_run_fn run, void *ctx, int *which,
                                 float ms[2])
{
  float *t[2] = {malloc(sizeof(float) * (size_t)reps), malloc(sizeof(float) * (size_t)reps)};
  int r, w;
  for (r = -3; r < reps; r++)
    for (w = 0; w < 2; w++) {
      *which = w;
      CU(cu->EventRecord(ev0, stream));
      run((2 * (r + 3) + w) % sets, ctx);
      CU(cu->EventRecord(ev1, stream));
      CU(cu->EventSynchronize(ev1));
      if (r >= 0) CU(cu->EventElapsedTime(&t[w][r], ev0, ev1));
    }
  for (w = 0; w < 2; w++) {
    qsort(t[w], (size_t)reps, sizeof(float), cmp_float);
    ms[w] = t[w][reps / 2];
    free(t[w]);
  }
  *which = 0;
}

#endif
