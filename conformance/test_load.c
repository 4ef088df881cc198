/*
 * test_load - the GPU machine under load (issue 27): 64 host threads for a
 * given time, half of them calling dlgemm_matmul on device tensors on
 * their own streams, half calling sgemm_ / dgemm_ on host arrays (through
 * the host-array engine with DLGEMM_FORCE=gpu), every product checked on
 * sampled elements against an FP64 sum; device memory in use and the
 * process's resident memory sampled after the warm-up and at the end must
 * not grow.  Skips (77) where no CUDA backend is usable.
 *
 * usage: test_load [seconds [threads]]
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "blas_symbols.h"
#include "cudrv.h"
#include "dlgemm.h"
#include "gpu_probe.h"
#include "testutil.h"

static cudrv cu;
static CUcontext ctx;
static double stop_at;
static long wrong, calls[2];
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 16 sampled elements of column-major C = A B (m x k, k x n), in FP64. */
static int sampled_ok(const float *a, const float *b, const float *c, int m, int n, int k, rng *r)
{
  for (int s = 0; s < 16; s++) {
    int i = rng_int(r, m), j = rng_int(r, n);
    double sum = 0, mag = 0;
    for (int l = 0; l < k; l++) sum += (double)a[i + l * m] * b[l + j * k], mag += fabs((double)a[i + l * m] * b[l + j * k]);
    if (fabs(sum - c[i + j * m]) > 1e-5 * mag + 1e-30) return 0;
  }
  return 1;
}

static void *device_worker(void *arg)
{
  rng r = {(uint64_t)(size_t)arg * 7919 + 1};
  CUstream stream;
  const int cap = 384;
  CUdeviceptr d[3];
  float *h[3];
  CU(cu.CtxSetCurrent(ctx));
  CU(cu.StreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  for (int i = 0; i < 3; i++) {
    CU(cu.MemAlloc(&d[i], (size_t)cap * cap * 4));
    h[i] = malloc((size_t)cap * cap * 4);
  }
  while (now() < stop_at) {
    int m = 1 + rng_int(&r, cap), n = 1 + rng_int(&r, cap), k = 1 + rng_int(&r, cap);
    int64_t sa[2] = {k, m}, sb[2] = {n, k}, sc[2] = {n, m}; /* row-major views of column-major */
    DLTensor A = {(void *)(uintptr_t)d[0], {kDLCUDA, 0}, 2, {kDLFloat, 32, 1}, sa, NULL, 0};
    DLTensor B = {(void *)(uintptr_t)d[1], {kDLCUDA, 0}, 2, {kDLFloat, 32, 1}, sb, NULL, 0};
    DLTensor C = {(void *)(uintptr_t)d[2], {kDLCUDA, 0}, 2, {kDLFloat, 32, 1}, sc, NULL, 0};
    dlgemm_options o;
    for (int i = 0; i < m * k; i++) h[0][i] = (float)rng_unit(&r);
    for (int i = 0; i < k * n; i++) h[1][i] = (float)rng_unit(&r);
    CU(cu.MemcpyHtoD(d[0], h[0], (size_t)m * k * 4));
    CU(cu.MemcpyHtoD(d[1], h[1], (size_t)k * n * 4));
    CU(cu.StreamSynchronize(NULL));
    dlgemm_options_init(&o);
    o.stream = stream;
    /* C^T (n x m, row-major) = B^T A^T: the column-major C = A B */
    if (dlgemm_matmul(&B, &A, &C, 1.0, 0.0, &o) != DLGEMM_OK) {
      fprintf(stderr, "device call failed: %s\n", dlgemm_last_error());
      __atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED);
      continue;
    }
    CU(cu.StreamSynchronize(stream));
    CU(cu.MemcpyDtoH(h[2], d[2], (size_t)m * n * 4));
    if (!sampled_ok(h[0], h[1], h[2], m, n, k, &r)) __atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&count_lock);
    calls[0]++;
    pthread_mutex_unlock(&count_lock);
  }
  for (int i = 0; i < 3; i++) {
    CU(cu.MemFree(d[i]));
    free(h[i]);
  }
  CU(cu.StreamDestroy(stream));
  return NULL;
}

static void *host_worker(void *arg)
{
  rng r = {(uint64_t)(size_t)arg * 104729 + 3};
  const int cap = 1024;
  float *a = malloc((size_t)cap * cap * 4), *b = malloc((size_t)cap * cap * 4),
        *c = malloc((size_t)cap * cap * 4);
  const float one = 1, zero = 0;
  while (now() < stop_at) {
    int m = 64 + rng_int(&r, cap - 64), n = 64 + rng_int(&r, cap - 64), k = 1 + rng_int(&r, cap);
    for (int i = 0; i < m * k; i++) a[i] = (float)rng_unit(&r);
    for (int i = 0; i < k * n; i++) b[i] = (float)rng_unit(&r);
    sgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m, 1, 1);
    if (!sampled_ok(a, b, c, m, n, k, &r)) __atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&count_lock);
    calls[1]++;
    pthread_mutex_unlock(&count_lock);
  }
  free(a), free(b), free(c);
  return NULL;
}

int main(int argc, char **argv)
{
  const double seconds = argc > 1 ? atof(argv[1]) : 120;
  const int threads = argc > 2 ? atoi(argv[2]) : 64;
  pthread_t *t = calloc((size_t)threads, sizeof *t);
  size_t free0, free1, total;
  long rss0, rss1;
  double t0;
  if (!cuda_backend_usable("test_load")) return 77;
  cudrv_load(&cu, &ctx);
  /* the same threads throughout: the baseline after a tenth of the time (the
   * warm-up: pools, staging, calibration), the second sample just before
   * they stop, while their own buffers are all still allocated */
  t0 = now();
  stop_at = t0 + seconds;
  for (int i = 0; i < threads; i++)
    pthread_create(&t[i], NULL, i % 2 ? host_worker : device_worker, (void *)(size_t)i);
  usleep((useconds_t)(seconds * 0.1e6));
  CU(cu.MemGetInfo(&free0, &total));
  rss0 = rss_kb();
  usleep((useconds_t)(seconds * 0.85e6));
  CU(cu.MemGetInfo(&free1, &total));
  rss1 = rss_kb();
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  printf("test_load: %d threads, %.0f s: %ld device-tensor calls, %ld host-array calls, %ld wrong; "
         "device memory in use %+.1f MB, resident %+.1f MB from 10%% to 95%% of the run\n", threads,
         now() - t0, calls[0], calls[1], wrong, ((double)free0 - (double)free1) / 1048576.0,
         (double)(rss1 - rss0) / 1024.0);
  /* flat: within 64 MB (allocator slack), whatever the run's length */
  return wrong || (double)free0 - (double)free1 > 64.0 * 1048576 || rss1 - rss0 > 65536;
}
