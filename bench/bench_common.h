/*
 * bench_common.h - what the device benchmarks share: cuBLAS opened with
 * dlopen (a benchmark dependency, not a library one; DLGEMM_BENCH_CUBLAS
 * names it when libcublas.so is not on the loader path) and the median's
 * comparison.
 */
#ifndef DLG_BENCH_COMMON_H
#define DLG_BENCH_COMMON_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

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

#endif
