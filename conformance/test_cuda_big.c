/*
 * test_cuda_big - float64 products that fill the GPU wave after wave over a
 * long k, in every layout, on device tensors.  Some errors show only there:
 * a stage of shared memory refilled under fragment loads still in flight
 * (dgemm_tma.cu) corrupted a few tiles of fp64 NT 4096^3 in every run,
 * while test_cuda's products, a few tiles each, passed.  The whole of C is
 * checked, cheaply, by Freivalds' projection: C x against alpha A (B x) +
 * beta C0 x for a random x, in long double, each row within the bound of
 * check_product summed over the row.  C starts as NaN where beta is 0.
 * Skips (77, reason printed) where no CUDA backend is usable.
 *
 *   test_cuda_big [rounds]
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cudrv.h"
#include "dlgemm.h"
#include "gpu_probe.h"
#include "testutil.h"

enum { M = 4096, N = 4096, K = 2048 };

/* The rows of C x that miss alpha A (B x) + beta C0 x (A M x K, B K x N,
 * strides as given, C and C0 column-major M x N). */
static long projection_misses(const double *a, int64_t ars, int64_t acs, const double *b,
                              int64_t brs, int64_t bcs, double alpha, double beta,
                              const double *c0, const double *c, const double *x)
{
  const double eps = 1.1102230246251565e-16;
  long double *bx = malloc(sizeof *bx * 2 * K), *babs = bx + K;
  long bad = 0;
  int64_t i, j, l;
  for (l = 0; l < K; l++) {
    long double s = 0, t = 0;
    for (j = 0; j < N; j++) {
      const long double v = (long double)b[l * brs + j * bcs] * x[j];
      s += v, t += fabsl(v);
    }
    bx[l] = s, babs[l] = t;
  }
  for (i = 0; i < M; i++) {
    long double ref = 0, mag = 0, got = 0, bound;
    for (l = 0; l < K; l++) {
      const double v = a[i * ars + l * acs];
      ref += v * bx[l], mag += fabs(v) * babs[l];
    }
    ref *= alpha, mag *= fabs(alpha);
    for (j = 0; j < N; j++) {
      got += (long double)c[i + j * M] * x[j];
      if (beta != 0) {
        ref += beta * (long double)c0[i + j * M] * x[j];
        mag += fabsl(beta * (long double)c0[i + j * M] * x[j]);
      }
    }
    bound = (long double)(K + 2) * eps * mag + 1e-300L;
    if (!(fabsl(got - ref) <= bound)) {
      if (bad < 3)
        fprintf(stderr, "  row %lld: C x = %.17Lg, expected %.17Lg (bound %.3Lg)\n",
                (long long)i, got, ref, bound);
      bad++;
    }
  }
  free(bx);
  return bad;
}

int main(int argc, char **argv)
{
  const int rounds = argc > 1 ? atoi(argv[1]) : 1;
  const size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
  rng r = {test_seed("test_cuda_big")};
  double *a = malloc(na * 8), *b = malloc(nb * 8), *c0 = malloc(nc * 8), *c = malloc(nc * 8);
  double *x = malloc(N * 8);
  int failed = 0, runs = 0, round, lay, bi;
  size_t e;
  cudrv cu;
  CUcontext ctx;
  CUstream stream;
  CUdeviceptr da, db, dc;
  if (!cuda_backend_usable("test_cuda_big")) return 77;
  cudrv_load(&cu, &ctx);
  CU(cu.StreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CU(cu.MemAlloc(&da, na * 8));
  CU(cu.MemAlloc(&db, nb * 8));
  CU(cu.MemAlloc(&dc, nc * 8));
  for (round = 0; round < rounds; round++)
    for (lay = 0; lay < 4; lay++) /* A, B column-major (N) or row-major (T): NN NT TN TT */
      for (bi = 0; bi < 2; bi++) {
        const int a_t = lay / 2, b_t = lay % 2;
        const double alpha = bi ? 0.5 : 1.0, beta = bi ? -1.0 : 0.0;
        /* element (i, l) of A at i * ars + l * acs; the tensors' strides */
        const int64_t ars = a_t ? K : 1, acs = a_t ? 1 : M, brs = b_t ? N : 1, bcs = b_t ? 1 : K;
        int64_t sa[2] = {M, K}, sb[2] = {K, N}, sc[2] = {M, N};
        int64_t ta[2] = {ars, acs}, tb[2] = {brs, bcs}, tc[2] = {1, M};
        DLTensor ta_ = {(void *)(uintptr_t)da, {kDLCUDA, 0}, 2, {kDLFloat, 64, 1}, sa, ta, 0};
        DLTensor tb_ = {(void *)(uintptr_t)db, {kDLCUDA, 0}, 2, {kDLFloat, 64, 1}, sb, tb, 0};
        DLTensor tc_ = {(void *)(uintptr_t)dc, {kDLCUDA, 0}, 2, {kDLFloat, 64, 1}, sc, tc, 0};
        dlgemm_options o;
        long bad;
        for (e = 0; e < na; e++) a[e] = rng_unit(&r);
        for (e = 0; e < nb; e++) b[e] = rng_unit(&r);
        for (e = 0; e < nc; e++) c0[e] = beta == 0 ? NAN : rng_unit(&r);
        for (e = 0; e < N; e++) x[e] = rng_unit(&r);
        CU(cu.MemcpyHtoD(da, a, na * 8));
        CU(cu.MemcpyHtoD(db, b, nb * 8));
        CU(cu.MemcpyHtoD(dc, c0, nc * 8));
        CU(cu.StreamSynchronize(NULL));
        dlgemm_options_init(&o);
        o.stream = stream;
        if (dlgemm_matmul(&ta_, &tb_, &tc_, alpha, beta, &o) != DLGEMM_OK) {
          fprintf(stderr, "dlgemm_matmul failed: %s\n", dlgemm_last_error());
          return 1;
        }
        CU(cu.StreamSynchronize(stream));
        CU(cu.MemcpyDtoH(c, dc, nc * 8));
        bad = projection_misses(a, ars, acs, b, brs, bcs, alpha, beta, c0, c, x);
        runs++;
        if (bad) {
          failed++;
          fprintf(stderr, "round %d: %c%c %dx%dx%d beta=%g: %ld rows of C x off FAILED\n", round,
                  a_t ? 'T' : 'N', b_t ? 'T' : 'N', M, N, K, beta, bad);
        }
      }
  printf("test_cuda_big: float64 %dx%dx%d, every layout, beta 0 and -1\n%d passed, %d failed\n",
         M, N, K, runs - failed, failed);
  cu.MemFree(da), cu.MemFree(db), cu.MemFree(dc);
  free(a), free(b), free(c0), free(c), free(x);
  return failed != 0;
}
