/*
 * test_cuda - kDLCUDA tensors: random layouts, batches and broadcasts on a
 * non-default stream, with NaN in C when beta = 0, checked against an FP64
 * product after synchronising only that stream.  Also: the caller's current
 * context is left as it was, and guard memory around C is untouched.
 * Skips (77, reason printed) where no CUDA backend is usable.
 *
 *   test_cuda [cases [f64]]   float32 tensors, or float64 (the DMMA kernel)
 */
#include <stdlib.h>
#include <string.h>
#include "cudrv.h"
#include "dlgemm.h"
#include "gpu_probe.h"
#include "testutil.h"

int main(int argc, char **argv)
{
  int cases = argc > 1 ? atoi(argv[1]) : 100, t, failed = 0;
  const int is64 = argc > 2 && !strcmp(argv[2], "f64");
  const size_t es = is64 ? 8 : 4;
  rng r = {test_seed("test_cuda")};
  cudrv cu;
  CUcontext ctx, current;
  CUstream stream;
  if (!cuda_backend_usable("test_cuda")) return 77;
  cudrv_load(&cu, &ctx);
  CU(cu.StreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  for (t = 0; t < cases; t++) {
    static const int sizes[] = {1, 2, 7, 31, 64, 65, 127, 128, 129, 200, 255, 256, 257, 600};
    int64_t batch = 1 + rng_int(&r, 3), m = sizes[rng_int(&r, 14)], n = sizes[rng_int(&r, 14)];
    int64_t k = sizes[rng_int(&r, 14)] * (rng_int(&r, 4) == 0 ? 16 : 1);
    int64_t rows[3] = {m, k, m}, cols[3] = {k, n, n}, shp[3][3], str[3][3], total[3];
    double alpha = rng_int(&r, 2) ? 1.0 : -0.75, beta = (double)rng_int(&r, 3) * 0.5;
    char *host[3], *c0;
    CUdeviceptr d[3];
    DLTensor tt[3];
    dlgemm_options o;
    int i, bad = 0;
    int64_t p;
    for (i = 0; i < 3; i++) {
      int colmaj = rng_int(&r, 2), bcast = i < 2 && rng_int(&r, 3) == 0;
      int64_t ld = (colmaj ? rows[i] : cols[i]) + (rng_int(&r, 2) ? 0 : rng_int(&r, 5));
      int64_t matrix = ld * (colmaj ? cols[i] : rows[i]), e;
      total[i] = matrix * (bcast ? 1 : batch) + 64;
      host[i] = malloc((size_t)total[i] * es);
      for (e = 0; e < total[i]; e++) {
        const double v = i == 2 && beta == 0 ? NAN : rng_unit(&r);
        if (is64) ((double *)host[i])[e] = v;
        else ((float *)host[i])[e] = (float)v;
      }
      CU(cu.MemAlloc(&d[i], (size_t)total[i] * es));
      CU(cu.MemcpyHtoD(d[i], host[i], (size_t)total[i] * es));
      shp[i][0] = bcast ? 1 : batch, shp[i][1] = rows[i], shp[i][2] = cols[i];
      str[i][0] = matrix, str[i][1] = colmaj ? 1 : ld, str[i][2] = colmaj ? ld : 1;
      tt[i] = (DLTensor){(void *)(uintptr_t)d[i], {kDLCUDA, 0}, 3, {kDLFloat, (uint8_t)(es * 8), 1},
                         shp[i], str[i], 0};
    }
    /* a copy from pageable memory may return before its DMA lands, and the
     * product runs on a non-blocking stream: wait for the copies */
    CU(cu.StreamSynchronize(NULL));
    c0 = malloc((size_t)total[2] * es);
    memcpy(c0, host[2], (size_t)total[2] * es);
    dlgemm_options_init(&o);
    o.stream = stream;
    if (dlgemm_matmul(&tt[0], &tt[1], &tt[2], alpha, beta, &o) != DLGEMM_OK) {
      fprintf(stderr, "dlgemm_matmul failed: %s\n", dlgemm_last_error());
      return 1;
    }
    CU(cu.CtxGetCurrent(&current));
    if (current != ctx) fprintf(stderr, "the caller's current context changed\n"), bad++;
    CU(cu.StreamSynchronize(stream)); /* only the caller's stream */
    CU(cu.MemcpyDtoH(host[2], d[2], (size_t)total[2] * es));
    for (p = 0; p < batch; p++) {
      const char *pa = host[0] + (shp[0][0] == 1 ? 0 : p * str[0][0]) * es;
      const char *pb = host[1] + (shp[1][0] == 1 ? 0 : p * str[1][0]) * es;
      bad += check_product(is64, m, n, k, alpha, pa, str[0][1], str[0][2], pb, str[1][1],
                           str[1][2], beta, c0 + p * str[2][0] * es, host[2] + p * str[2][0] * es,
                           str[2][1], str[2][2], 1.0) != 0;
    }
    if (memcmp(host[2] + (total[2] - 64) * es, c0 + (total[2] - 64) * es, 64 * es))
      fprintf(stderr, "guard after C overwritten\n"), bad++;
    if (bad) {
      failed++;
      fprintf(stderr, "case %d: batch=%lld m=%lld n=%lld k=%lld alpha=%g beta=%g strides "
              "A(%lld,%lld) B(%lld,%lld) C(%lld,%lld) FAILED\n", t, (long long)batch,
              (long long)m, (long long)n, (long long)k, alpha, beta, (long long)str[0][1],
              (long long)str[0][2], (long long)str[1][1], (long long)str[1][2],
              (long long)str[2][1], (long long)str[2][2]);
    }
    for (i = 0; i < 3; i++) free(host[i]), cu.MemFree(d[i]);
    free(c0);
  }
  printf("test_cuda: kDLCUDA %s tensors on a non-default stream\n%d passed, %d failed\n",
         is64 ? "float64" : "float32", cases - failed, failed);
  return failed != 0;
}
