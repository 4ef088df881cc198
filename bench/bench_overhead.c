/*
 * bench_overhead - what one small call costs the calling thread, for issue
 * 25: dlgemm_matmul against cublasSgemm_v2 on the same 64^3 float32 device
 * tensors on one stream, issued back to back (the GPU work is tiny, so the
 * host's time per call is the overhead), and the one driver query the
 * pointer checks add per operand (cuPointerGetAttributes, five attributes).
 * Then, for issue 54, the same cublasSgemm_v2 through dlgemm's cuBLAS name
 * (shims/cublas: what a framework's call meets under DLGEMM_TORCH=1),
 * routed (DLGEMM_CUBLAS=auto: the class's verdict looked up each call; run
 * with DLGEMM_VERBOSE=1 to see which side has it) and with routing switched
 * off (dlgemm_route_cublas(0): forwarded at once): where the class is
 * cuBLAS's, the difference is what routing costs a call it does not take.
 * Medians of 7 batches of 2,000 calls, wall clock.
 *
 * usage: bench_overhead [n]     (n: the square size, default 64)
 */
#include <string.h>
#include <time.h>
#include "bench_common.h"
#include "dlgemm.h"

typedef int (*cublas_sgemm_fn)(void *, int, int, int, int, int, const float *, const void *, int,
                               const void *, int, const float *, void *, int);
typedef CUresult (*pointer_attrs_fn)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

enum { CALLS = 2000, BATCHES = 7, WAYS = 5 };

int main(int argc, char **argv)
{
  const int n = argc > 1 ? atoi(argv[1]) : 64;
  void *cb = open_cublas(), *handle = NULL, *drv = dlopen("libcuda.so.1", RTLD_NOW);
  cublas_sgemm_fn sgemm = (cublas_sgemm_fn)dlsym(cb, "cublasSgemm_v2");
  pointer_attrs_fn attrs = (pointer_attrs_fn)dlsym(drv, "cuPointerGetAttributes");
  cudrv cu;
  CUcontext ctx;
  CUstream stream;
  CUdeviceptr d[3];
  int64_t shape[2] = {n, n};
  const float one = 1, zero = 0;
  /* dlgemm's own cublasSgemm_v2 (the first in the global scope: this
   * program links libdlgemm), where it is dlgemm's */
  cublas_sgemm_fn shim = (cublas_sgemm_fn)dlsym(RTLD_DEFAULT, "cublasSgemm_v2");
  int (*route)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "dlgemm_route_cublas");
  const int ways = shim && route && (void *)shim != (void *)sgemm ? WAYS : 3;
  double t[WAYS][BATCHES];
  dlgemm_options o;
  int b, i, w;
  cudrv_load(&cu, &ctx);
  CU(cu.StreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  for (i = 0; i < 3; i++) CU(cu.MemAlloc(&d[i], (size_t)n * n * 4));
  ((cublas_create_fn)dlsym(cb, "cublasCreate_v2"))(&handle);
  ((cublas_set_stream_fn)dlsym(cb, "cublasSetStream_v2"))(handle, stream);
  dlgemm_options_init(&o);
  o.stream = stream;
  {
    DLTensor A = {(void *)(uintptr_t)d[0], {kDLCUDA, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
    DLTensor B = A, C = A;
    CUpointer_attribute what[5] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                   CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    unsigned type;
    int dev, managed;
    CUdeviceptr start;
    size_t size;
    void *out[5] = {&type, &dev, &managed, &start, &size};
    B.data = (void *)(uintptr_t)d[1], C.data = (void *)(uintptr_t)d[2];
    for (b = -1; b < BATCHES; b++) /* batch -1 warms up */
      for (w = 0; w < ways; w++) {
        double t0;
        CU(cu.StreamSynchronize(stream));
        if (w >= 3) route(w == 3);
        t0 = now();
        for (i = 0; i < CALLS; i++) {
          if (w == 0 && dlgemm_matmul(&A, &B, &C, 1.0, 0.0, &o) != DLGEMM_OK) {
            fprintf(stderr, "dlgemm_matmul: %s\n", dlgemm_last_error());
            return 1;
          }
          if (w == 1) sgemm(handle, 0, 0, n, n, n, &one, (void *)(uintptr_t)d[0], n,
                            (void *)(uintptr_t)d[1], n, &zero, (void *)(uintptr_t)d[2], n);
          if (w == 2) attrs(5, what, out, d[i % 3]);
          if (w >= 3) shim(handle, 0, 0, n, n, n, &one, (void *)(uintptr_t)d[0], n,
                           (void *)(uintptr_t)d[1], n, &zero, (void *)(uintptr_t)d[2], n);
        }
        if (b >= 0) t[w][b] = (now() - t0) / CALLS * 1e6;
      }
  }
  if (ways > 3) route(1);
  for (w = 0; w < ways; w++) qsort(t[w], BATCHES, sizeof(double), cmp_double);
  printf("per call, %d^3 float32 on device, host time (median of %d x %d calls):\n", n, BATCHES,
         CALLS);
  printf("  dlgemm_matmul          %7.2f us\n", t[0][BATCHES / 2]);
  printf("  cublasSgemm_v2         %7.2f us\n", t[1][BATCHES / 2]);
  printf("  cuPointerGetAttributes %7.2f us (the pointer check asks it three times a call)\n",
         t[2][BATCHES / 2]);
  if (ways > 3) {
    printf("  cublasSgemm_v2 through dlgemm's name, routed    %7.2f us\n", t[3][BATCHES / 2]);
    printf("  cublasSgemm_v2 through dlgemm's name, route off %7.2f us (routed - off: %.2f us)\n",
           t[4][BATCHES / 2], t[3][BATCHES / 2] - t[4][BATCHES / 2]);
  } else {
    printf("  (dlgemm's cuBLAS names not in front of cuBLAS here: the routed call not measured)\n");
  }
  CU(cu.StreamSynchronize(stream));
  return 0;
}
