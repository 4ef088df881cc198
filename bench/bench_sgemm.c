/*
 * bench_sgemm - dlgemm's FP32 GEMM against cuBLAS SGEMM, same inputs, same
 * run, same stream, device-resident column-major operands.
 *
 * Method (tool library METHOD.md): random data in [-1, 1); warm-up runs;
 * each run timed with CUDA events; the median of the runs reported; inputs
 * larger than L2 or, for small sizes, several input sets rotated so the
 * cache is not what is measured.  cuBLAS is opened with dlopen (a benchmark
 * dependency, not a library one): DLGEMM_BENCH_CUBLAS names it if
 * libcublas.so is not on the loader path.  Each size also reports the
 * relative difference between the two results, so a fast wrong answer shows.
 *
 * usage: bench_sgemm [reps [m n k [op]]]   prints a table (every shape, or the
 *                                          one given); the last lines are a
 *                                          summary.  op: nn (default), tn, nt
 *                                          or tt, BLAS's transa and transb
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_common.h"
#include "cudrv.h"
#include "dlgemm.h"

typedef int (*cublas_sgemm_fn)(void *, int, int, int, int, int, const float *, const float *,
                               int, const float *, int, const float *, float *, int);

static cudrv cu;
static CUstream stream;
static CUevent ev0, ev1;

typedef struct problem { int m, n, k; const char *kind; } problem;

/* One product C = A B of input set s (which: 0 dlgemm, 1 cuBLAS). */
typedef struct product {
  int which, m, n, k, ta, tb; /* ta, tb: A and B stored transposed */
  CUdeviceptr *a, *b, c;
  void *handle;
  cublas_sgemm_fn sgemm;
} product;

static void run(int s, void *ctx)
{
  const product *p = ctx;
  const float one = 1, zero = 0;
  int64_t as[2] = {p->m, p->k}, bs[2] = {p->k, p->n}, cs[2] = {p->m, p->n};
  int64_t ast[2] = {1, p->m}, bst[2] = {1, p->k}, cst[2] = {1, p->m};
  if (p->ta) ast[0] = p->k, ast[1] = 1;
  if (p->tb) bst[0] = p->n, bst[1] = 1;
  DLTensor ta = {(void *)(uintptr_t)p->a[s], {kDLCUDA, 0}, 2, {kDLFloat, 32, 1}, as, ast, 0};
  DLTensor tb = {(void *)(uintptr_t)p->b[s], {kDLCUDA, 0}, 2, {kDLFloat, 32, 1}, bs, bst, 0};
  DLTensor tc = {(void *)(uintptr_t)p->c, {kDLCUDA, 0}, 2, {kDLFloat, 32, 1}, cs, cst, 0};
  dlgemm_options o;
  dlgemm_options_init(&o);
  o.stream = stream;
  if (p->which == 0) {
    if (dlgemm_matmul(&ta, &tb, &tc, 1.0, 0.0, &o)) {
      fprintf(stderr, "dlgemm: %s\n", dlgemm_last_error());
      exit(1);
    }
  } else if (p->sgemm(p->handle, p->ta, p->tb, p->m, p->n, p->k, &one,
                      (const float *)(uintptr_t)p->a[s], p->ta ? p->k : p->m,
                      (const float *)(uintptr_t)p->b[s], p->tb ? p->n : p->k, &zero,
                      (float *)(uintptr_t)p->c, p->m)) {
    fprintf(stderr, "cublasSgemm failed\n");
    exit(1);
  }
}

int main(int argc, char **argv)
{
  static const problem problems[] = {
      {1024, 1024, 1024, "square"}, {2048, 2048, 2048, "square"}, {3072, 3072, 3072, "square"},
      {4096, 4096, 4096, "square"}, {6144, 6144, 6144, "square"}, {8192, 8192, 8192, "square"},
      {64, 8192, 4096, "skinny"},   {256, 8192, 4096, "skinny"},  {8192, 128, 8192, "skinny"},
      {8192, 64, 4096, "skinny"},   {256, 256, 16384, "small mn, long k"},
      {128, 128, 8192, "small mn, long k"}};
  int reps = argc > 1 ? atoi(argv[1]) : 20, i, count = (int)(sizeof problems / sizeof problems[0]);
  problem one = {0, 0, 0, "given"};
  void *handle, *cublas = bench_open(&cu, &stream, &ev0, &ev1, &handle);
  cublas_sgemm_fn sgemm = (cublas_sgemm_fn)dlsym(cublas, "cublasSgemm_v2");
  double worst_square = 1e9;
  printf("%-15s op %6s %6s %6s %10s %10s %7s %9s\n", "shape", "m", "n", "k", "dlgemm", "cuBLAS",
         "ratio", "rel.diff");
  const char *op = argc > 5 ? argv[5] : "nn";
  if (argc > 4) one.m = atoi(argv[2]), one.n = atoi(argv[3]), one.k = atoi(argv[4]), count = 1;
  if (reps < 1 || (count == 1 && (one.m < 1 || one.n < 1 || one.k < 1)) || strlen(op) != 2 ||
      !strchr("nt", op[0]) || !strchr("nt", op[1])) {
    fprintf(stderr, "usage: bench_sgemm [reps [m n k [nn|tn|nt|tt]]]\n");
    return 2;
  }
  for (i = 0; i < count; i++) {
    const problem *p = count == 1 ? &one : &problems[i];
    size_t na = (size_t)p->m * p->k, nb = (size_t)p->k * p->n, nc = (size_t)p->m * p->n, e;
    /* Rotate input sets until they exceed the 50 MB L2 several times over. */
    int sets = (int)(200e6 / (4.0 * (double)(na + nb)) + 1), s;
    CUdeviceptr a[16], b[16], c;
    float *h = malloc(4 * (na > nb ? (na > nc ? na : nc) : (nb > nc ? nb : nc)));
    float *c1 = malloc(4 * nc), *c2 = malloc(4 * nc);
    uint64_t x = 88172645463325252ull + (uint64_t)i;
    double flops = 2.0 * p->m * p->n * p->k, t_dl, t_cb, num = 0, den = 0;
    float ms[2];
    if (sets > 16) sets = 16;
    for (s = 0; s < sets; s++) {
      CU(cu.MemAlloc(&a[s], 4 * na));
      CU(cu.MemAlloc(&b[s], 4 * nb));
      for (e = 0; e < na; e++) x ^= x << 13, x ^= x >> 7, x ^= x << 17, h[e] = (float)((double)(x >> 11) / 4503599627370496.0 - 1.0);
      CU(cu.MemcpyHtoD(a[s], h, 4 * na));
      for (e = 0; e < nb; e++) x ^= x << 13, x ^= x >> 7, x ^= x << 17, h[e] = (float)((double)(x >> 11) / 4503599627370496.0 - 1.0);
      CU(cu.MemcpyHtoD(b[s], h, 4 * nb));
    }
    CU(cu.MemAlloc(&c, 4 * nc));
    CU(cu.StreamSynchronize(NULL)); /* the pageable copies' DMA, before the non-blocking stream */
    product job = {0, p->m, p->n, p->k, op[0] == 't', op[1] == 't', a, b, c, handle, sgemm};
    bench_median_pair_ms(&cu, stream, ev0, ev1, reps, sets, run, &job, &job.which, ms);
    t_dl = ms[0], t_cb = ms[1];
    run(0, &job); /* both on input set 0, for the difference */
    CU(cu.StreamSynchronize(stream));
    CU(cu.MemcpyDtoH(c1, c, 4 * nc));
    job.which = 1;
    run(0, &job);
    CU(cu.StreamSynchronize(stream));
    CU(cu.MemcpyDtoH(c2, c, 4 * nc));
    for (e = 0; e < nc; e++) num += (c1[e] - c2[e]) * (double)(c1[e] - c2[e]), den += (double)c2[e] * c2[e];
    printf("%-15s %s %6d %6d %6d %8.2f T %8.2f T %7.3f %9.2e\n", p->kind, op, p->m, p->n, p->k,
           flops / t_dl * 1e-9, flops / t_cb * 1e-9, t_cb / t_dl, sqrt(num / (den + 1e-300)));
    fflush(stdout);
    if (!strcmp(p->kind, "square") && t_cb / t_dl < worst_square) worst_square = t_cb / t_dl;
    for (s = 0; s < sets; s++) cu.MemFree(a[s]), cu.MemFree(b[s]);
    cu.MemFree(c);
    free(h), free(c1), free(c2);
  }
  printf("TFLOP/s are medians of %d event-timed runs after 3 warm-ups, alternating with cuBLAS; ratio = dlgemm / cuBLAS\n"
         "worst square ratio: %.3f\n", reps, worst_square);
  return 0;
}
