/*
 * bench_tc - dlgemm's tensor-core GEMM against cuBLAS's matching call,
 * same inputs, same run, same stream, device-resident column-major
 * operands, op(A) = A (nn, the default) or A^T (tn: both operands
 * k-contiguous).
 *
 *   bf16, f16: A, B and C of that type, FP32 accumulation; cuBLAS is
 *              cublasGemmEx with the same types and CUBLAS_COMPUTE_32F.
 *   tf32:      float32 A, B, C, dlgemm's TF32 policy; cuBLAS is
 *              cublasGemmEx on float32 with CUBLAS_COMPUTE_32F_FAST_TF32.
 *   3xtf32:    float32, dlgemm's 3xTF32 policy; cuBLAS is its strict FP32
 *              SGEMM (cublasGemmEx, CUBLAS_COMPUTE_32F), the product
 *              3xTF32 stands in for.
 *
 * Method (tool library METHOD.md): random data in [-1, 1); three warm-ups;
 * each run timed with CUDA events, the median reported; input sets rotated
 * below 200 MB so L2 is not what is measured.  Accuracy beside speed: the
 * relative error sqrt(sum (C - C64)^2 / sum C64^2) of each library's C over
 * 4096 sampled elements, C64 the FP64 product of the same (rounded) inputs.
 *
 * usage: bench_tc TYPE [nn|tn] [reps [m n k]]   every square size 1024..8192,
 *                                              or one
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_common.h"
#include "cudrv.h"
#include "dlgemm.h"
#include "core/half.h"

typedef int (*cublas_gemmex_fn)(void *, int, int, int, int, int, const void *, const void *, int,
                                int, const void *, int, int, const void *, void *, int, int, int,
                                int);
enum { CUDA_R_32F_ = 0, CUDA_R_16F_ = 2, CUDA_R_16BF_ = 14, COMPUTE_32F = 68,
       COMPUTE_32F_FAST_TF32 = 77, GEMM_DEFAULT = -1 };

/* The modes: element type, dlgemm's policy, cuBLAS's types and compute. */
typedef struct mode {
  const char *name;
  int bf16, es; /* es: bytes per element (2: the half types, 4: float32) */
  dlgemm_precision policy;
  int cublas_type, cublas_compute;
} mode;
static const mode modes[] = {
    {"bf16", 1, 2, DLGEMM_PRECISION_STRICT, CUDA_R_16BF_, COMPUTE_32F},
    {"f16", 0, 2, DLGEMM_PRECISION_STRICT, CUDA_R_16F_, COMPUTE_32F},
    {"tf32", 0, 4, DLGEMM_PRECISION_TF32, CUDA_R_32F_, COMPUTE_32F_FAST_TF32},
    {"3xtf32", 0, 4, DLGEMM_PRECISION_3XTF32, CUDA_R_32F_, COMPUTE_32F},
};

static cudrv cu;
static CUstream stream;
static CUevent ev0, ev1;
static void *handle;
static cublas_gemmex_fn gemmex;
static const mode *md;
static int trans_a; /* tn: A stored k x m, op(A) = A^T */

/* Element e of a device-format array, as a float. */
static float element(const void *x, size_t e)
{
  if (md->es == 4) return ((const float *)x)[e];
  return md->bf16 ? dlg_bf16_to_float(((const uint16_t *)x)[e])
                  : dlg_f16_to_float(((const uint16_t *)x)[e]);
}

/* One product, C = op(A) B (which: 0 dlgemm, 1 cuBLAS), queued on the stream. */
static void run(int which, int m, int n, int k, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c)
{
  const DLDataType t = {md->es == 2 && md->bf16 ? kDLBfloat : kDLFloat, (uint8_t)(8 * md->es), 1};
  int64_t as[2] = {m, k}, bs[2] = {k, n}, cs[2] = {m, n};
  int64_t ast[2] = {1, m}, bst[2] = {1, k}, cst[2] = {1, m};
  DLTensor ta = {(void *)(uintptr_t)a, {kDLCUDA, 0}, 2, t, as, ast, 0};
  DLTensor tb = {(void *)(uintptr_t)b, {kDLCUDA, 0}, 2, t, bs, bst, 0};
  DLTensor tc = {(void *)(uintptr_t)c, {kDLCUDA, 0}, 2, t, cs, cst, 0};
  const float one = 1, zero = 0;
  const int type = md->cublas_type;
  dlgemm_options o;
  if (trans_a) ast[0] = k, ast[1] = 1;
  dlgemm_options_init(&o);
  o.stream = stream;
  o.precision = md->policy;
  if (which == 0 && dlgemm_matmul(&ta, &tb, &tc, 1.0, 0.0, &o)) {
    fprintf(stderr, "dlgemm: %s\n", dlgemm_last_error());
    exit(1);
  }
  if (which == 1 && gemmex(handle, trans_a, 0, m, n, k, &one, (const void *)(uintptr_t)a, type,
                           trans_a ? k : m, (const void *)(uintptr_t)b, type, k, &zero,
                           (void *)(uintptr_t)c, type, m, md->cublas_compute, GEMM_DEFAULT)) {
    fprintf(stderr, "cublasGemmEx failed\n");
    exit(1);
  }
}

/* Input set s of the product being timed (which: 0 dlgemm, 1 cuBLAS). */
typedef struct product {
  int which, m, n, k;
  CUdeviceptr *a, *b, c;
} product;

static void run_set(int s, void *ctx)
{
  const product *p = ctx;
  run(p->which, p->m, p->n, p->k, p->a[s], p->b[s], p->c);
}

/* Relative error of C (set 0's product) over sampled elements. */
static double sampled_error(int m, int n, int k, const void *ha, const void *hb, const void *hc)
{
  double num = 0, den = 0;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  int s, l;
  for (s = 0; s < 4096; s++) {
    int i, j;
    double ref = 0, got;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    i = (int)(x % (uint64_t)m), j = (int)((x >> 32) % (uint64_t)n);
    for (l = 0; l < k; l++)
      ref += (double)element(ha, trans_a ? l + (size_t)i * k : i + (size_t)l * m) *
             element(hb, l + (size_t)j * k);
    got = element(hc, i + (size_t)j * m);
    num += (got - ref) * (got - ref);
    den += ref * ref;
  }
  return sqrt(num / (den + 1e-300));
}

int main(int argc, char **argv)
{
  static const int squares[] = {1024, 2048, 3072, 4096, 6144, 8192};
  int reps, i, count = 6, one[3] = {0, 0, 0}, arg = 2;
  void *cublas;
  double worst = 1e9;
  for (i = 0; argc > 1 && i < (int)(sizeof modes / sizeof modes[0]); i++)
    if (!strcmp(argv[1], modes[i].name)) md = &modes[i];
  if (!md) {
    fprintf(stderr, "usage: bench_tc bf16|f16|tf32|3xtf32 [nn|tn] [reps [m n k]]\n");
    return 2;
  }
  if (argc > arg && (!strcmp(argv[arg], "nn") || !strcmp(argv[arg], "tn")))
    trans_a = argv[arg++][0] == 't';
  reps = argc > arg ? atoi(argv[arg]) : 20;
  if (argc > arg + 3)
    one[0] = atoi(argv[arg + 1]), one[1] = atoi(argv[arg + 2]), one[2] = atoi(argv[arg + 3]), count = 1;
  cublas = bench_open(&cu, &stream, &ev0, &ev1, &handle);
  gemmex = (cublas_gemmex_fn)dlsym(cublas, "cublasGemmEx");
  if (!gemmex) {
    fprintf(stderr, "cuBLAS has no cublasGemmEx\n");
    return 1;
  }
  printf("%-6s %2s %6s %6s %6s %10s %10s %7s %10s %10s\n", md->name, trans_a ? "tn" : "nn", "m", "n",
         "k", "dlgemm", "cuBLAS", "ratio", "err dlgemm", "err cuBLAS");
  for (i = 0; i < count; i++) {
    const int m = count == 1 ? one[0] : squares[i], n = count == 1 ? one[1] : squares[i];
    const int k = count == 1 ? one[2] : squares[i];
    const size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n, es = (size_t)md->es;
    int sets = (int)(200e6 / ((double)es * (double)(na + nb)) + 1), s;
    CUdeviceptr a[16], b[16], c;
    char *ha = malloc(es * na), *hb = malloc(es * nb), *hc = malloc(es * nc);
    uint64_t x = 88172645463325252ull + (uint64_t)i;
    const double flops = 2.0 * m * n * k;
    double t_dl, t_cb, e_dl, e_cb;
    float ms[2];
    size_t e;
    if (sets > 16) sets = 16;
    for (s = 0; s < sets; s++) {
      CU(cu.MemAlloc(&a[s], es * na));
      CU(cu.MemAlloc(&b[s], es * nb));
      for (e = 0; e < na + nb; e++) {
        float v;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v = (float)((double)(x >> 11) / 4503599627370496.0 - 1.0);
        char *at = e < na ? ha + es * e : hb + es * (e - na);
        if (es == 4) memcpy(at, &v, 4);
        else *(uint16_t *)at = md->bf16 ? dlg_float_to_bf16(v) : dlg_float_to_f16(v);
      }
      CU(cu.MemcpyHtoD(a[s], ha, es * na)); /* set 0's copy stays in ha / hb below */
      CU(cu.MemcpyHtoD(b[s], hb, es * nb));
      if (s == sets - 1 && sets > 1) { /* keep set 0 on the host for the error */
        CU(cu.MemcpyDtoH(ha, a[0], es * na));
        CU(cu.MemcpyDtoH(hb, b[0], es * nb));
      }
    }
    CU(cu.MemAlloc(&c, es * nc));
    CU(cu.StreamSynchronize(NULL)); /* the pageable copies' DMA, before the non-blocking stream */
    product job = {0, m, n, k, a, b, c};
    bench_median_pair_ms(&cu, stream, ev0, ev1, reps, sets, run_set, &job, &job.which, ms);
    t_dl = ms[0], t_cb = ms[1];
    run(0, m, n, k, a[0], b[0], c);
    CU(cu.StreamSynchronize(stream));
    CU(cu.MemcpyDtoH(hc, c, es * nc));
    e_dl = sampled_error(m, n, k, ha, hb, hc);
    run(1, m, n, k, a[0], b[0], c);
    CU(cu.StreamSynchronize(stream));
    CU(cu.MemcpyDtoH(hc, c, es * nc));
    e_cb = sampled_error(m, n, k, ha, hb, hc);
    printf("%-6s %2s %6d %6d %6d %8.1f T %8.1f T %7.3f %10.2e %10.2e\n", md->name,
           trans_a ? "tn" : "nn", m, n, k,
           flops / t_dl * 1e-9, flops / t_cb * 1e-9, t_cb / t_dl, e_dl, e_cb);
    fflush(stdout);
    if (t_cb / t_dl < worst) worst = t_cb / t_dl;
    for (s = 0; s < sets; s++) cu.MemFree(a[s]), cu.MemFree(b[s]);
    cu.MemFree(c);
    free(ha), free(hb), free(hc);
  }
  printf("TFLOP/s are medians of %d event-timed runs after 3 warm-ups, alternating with cuBLAS; ratio = dlgemm / cuBLAS\n"
         "worst ratio: %.3f\n", reps, worst);
  return 0;
}
