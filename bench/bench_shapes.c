/*
 * bench_shapes - dlgemm against cuBLAS over the shapes frameworks and LAPACK
 * spend their time in (issue 22's classes and more): FP64 squares and
 * rank-k updates, skinny and vector-like FP32, odd sizes and layouts, TF32
 * and 16-bit rank-k updates, decode shapes, vector-like and 8- or 16-wide
 * ("narrow") FP64 and 16-bit shapes, beta != 0, partial waves,
 * unaligned leading dimensions, batched attention, transformer layers,
 * complex64 and complex128 squares.
 *
 * Each case: device-resident column-major operands with the case's
 * transposes and leading dimensions, alpha 1 and the case's beta, on one
 * stream; dlgemm_matmul against cublasGemmStridedBatchedEx with the same
 * types and compute (FP64: 64F; FP32: 32F; TF32: 32F_FAST_TF32; 16-bit: 32F),
 * or, for the complex types (one matrix each), cublasCgemm / cublasZgemm,
 * timed alternately (bench_common.h: events, three warm-ups, medians, input
 * sets rotated below 200 MB).  After the timing each library's C of set 0
 * is compared with the other's (max |difference| / max |C|), so a fast wrong
 * answer shows.
 *
 * Prints one line per case (TFLOP/s, a complex multiply-add counted as 8
 * flops; ratio = cuBLAS time / dlgemm time:
 * above 1 dlgemm is faster), the geometric mean of each class and of all.
 *
 * usage: bench_shapes [reps [class | "TYPE OPS M N K [BATCH [BETA]]"]]
 *        (TYPE fp64, fp32, tf32, bf16, f16, c64 or c128; OPS e.g. TN)
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

typedef int (*cublas_batched_fn)(void *, int, int, int, int, int, const void *, const void *,
                                 int, int, long long, const void *, int, int, long long,
                                 const void *, void *, int, int, long long, int, int, int);
/* cublasCgemm_v2 and cublasZgemm_v2: scalars and matrices by pointer */
typedef int (*cublas_complex_fn)(void *, int, int, int, int, int, const void *, const void *, int,
                                 const void *, int, const void *, void *, int);
enum { R_32F = 0, R_64F = 1, R_16F = 2, R_16BF = 14, C_32F = 68, C_32F_TF32 = 77, C_64F = 70,
       GEMM_DEFAULT = -1 };

typedef enum { F64, F32, TF32, BF16, F16, C64, C128 } kind;
static const struct {
  const char *name;
  int es, cublas_type, compute;
  dlgemm_precision policy;
} kinds[] = {{"fp64", 8, R_64F, C_64F, DLGEMM_PRECISION_STRICT},
             {"fp32", 4, R_32F, C_32F, DLGEMM_PRECISION_STRICT},
             {"tf32", 4, R_32F, C_32F_TF32, DLGEMM_PRECISION_TF32},
             {"bf16", 2, R_16BF, C_32F, DLGEMM_PRECISION_STRICT},
             {"f16", 2, R_16F, C_32F, DLGEMM_PRECISION_STRICT},
             {"c64", 8, 0, 0, DLGEMM_PRECISION_STRICT},
             {"c128", 16, 0, 0, DLGEMM_PRECISION_STRICT}};

static int is_complex(kind t) { return t == C64 || t == C128; }
/* The type of each part: a complex element is two of them. */
static kind part_of(kind t) { return t == C64 ? F32 : t == C128 ? F64 : t; }

typedef struct shape {
  const char *cls;
  kind t;
  char ta, tb;
  int m, n, k, batch;
  double beta;
} shape;

static const shape cases[] = {
    {"fp64", F64, 'N', 'N', 4096, 4096, 4096, 1, 0},
    {"fp64", F64, 'N', 'N', 8192, 8192, 8192, 1, 0},
    {"fp64", F64, 'T', 'N', 3000, 3000, 3000, 1, 0},
    {"fp64 rank-k", F64, 'N', 'T', 8192, 8192, 64, 1, 1},
    {"fp64 rank-k", F64, 'N', 'N', 8192, 8192, 256, 1, -1},
    {"fp64 vector", F64, 'N', 'N', 4096, 1, 4096, 1, 0},
    {"fp64 narrow", F64, 'N', 'N', 8192, 8, 8192, 1, 0},
    {"fp32 skinny", F32, 'N', 'N', 64, 8192, 8192, 1, 0},
    {"fp32 skinny", F32, 'N', 'N', 8192, 64, 8192, 1, 0},
    {"fp32 vector", F32, 'N', 'N', 1, 4096, 4096, 1, 0},
    {"fp32 vector", F32, 'N', 'N', 4096, 1, 4096, 1, 0},
    {"fp32 odd", F32, 'N', 'N', 4097, 4097, 4097, 1, 0},
    {"fp32 odd", F32, 'N', 'N', 3000, 3000, 3000, 1, 0},
    {"fp32 odd", F32, 'T', 'N', 4096, 4096, 4096, 1, 0},
    {"fp32 square", F32, 'N', 'N', 8192, 8192, 8192, 1, 0},
    {"tf32 rank-k", TF32, 'N', 'T', 8192, 8192, 64, 1, 1},
    {"tf32 square", TF32, 'N', 'N', 8192, 8192, 8192, 1, 0},
    {"bf16 decode", BF16, 'T', 'N', 4096, 16, 4096, 1, 0},
    {"bf16 decode", BF16, 'T', 'N', 4096, 128, 4096, 1, 0},
    {"bf16 vector", BF16, 'T', 'N', 4096, 1, 4096, 1, 0},
    {"bf16 narrow", BF16, 'T', 'N', 11008, 8, 4096, 1, 0},
    {"f16 narrow", F16, 'N', 'N', 4096, 16, 4096, 1, 0},
    {"bf16 beta", BF16, 'N', 'N', 4096, 4096, 4096, 1, 1},
    {"bf16 waves", BF16, 'N', 'N', 3000, 3000, 3000, 1, 0},
    {"bf16 rank-k", BF16, 'N', 'T', 8192, 8192, 64, 1, 1},
    {"f16 unaligned", F16, 'N', 'N', 4097, 4097, 4097, 1, 0},
    {"bf16 batched", BF16, 'N', 'N', 2048, 2048, 128, 32, 0},
    {"bf16 batched", BF16, 'N', 'N', 512, 512, 64, 256, 0},
    {"bf16 layer", BF16, 'T', 'N', 2304, 8192, 768, 1, 0},
    {"bf16 layer", BF16, 'T', 'N', 768, 8192, 3072, 1, 0},
    {"bf16 layer", BF16, 'T', 'N', 11008, 2048, 4096, 1, 0},
    {"bf16 square", BF16, 'N', 'N', 8192, 8192, 8192, 1, 0},
    {"f16 square", F16, 'N', 'N', 8192, 8192, 8192, 1, 0},
    {"complex", C64, 'N', 'N', 4096, 4096, 4096, 1, 0},
    {"complex", C64, 'N', 'N', 8192, 8192, 8192, 1, 0},
    {"complex", C128, 'N', 'N', 4096, 4096, 4096, 1, 0},
    {"complex", C128, 'N', 'N', 8192, 8192, 8192, 1, 0},
};

static cudrv cu;
static CUstream stream;
static CUevent ev0, ev1;
static void *handle;
static cublas_batched_fn batched;
static cublas_complex_fn cgemm, zgemm;

typedef struct job {
  int which;
  const shape *s;
  CUdeviceptr *a, *b, c;
} job;

/* Rows of the stored A and B (their leading dimensions: odd m or k stay odd). */
static int rows_a(const shape *s) { return s->ta == 'N' ? s->m : s->k; }
static int rows_b(const shape *s) { return s->tb == 'N' ? s->k : s->n; }

static void run(int which, const shape *s, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c)
{
  const int es = kinds[s->t].es, lda = rows_a(s), ldb = rows_b(s), ldc = s->m;
  const int ca = s->ta == 'N' ? s->k : s->m, cb = s->tb == 'N' ? s->n : s->k;
  const long long sa = (long long)lda * ca, sb = (long long)ldb * cb, sc = (long long)ldc * s->n;
  const DLDataType t = {s->t == BF16 ? kDLBfloat : is_complex(s->t) ? kDLComplex : kDLFloat,
                        (uint8_t)(8 * es), 1};
  const int nd = s->batch > 1 ? 3 : 2, o = nd - 2;
  int64_t as[3] = {s->batch}, bs[3] = {s->batch}, cs[3] = {s->batch};
  int64_t ast[3] = {sa}, bst[3] = {sb}, cst[3] = {sc};
  as[o] = s->m, as[o + 1] = s->k, bs[o] = s->k, bs[o + 1] = s->n, cs[o] = s->m, cs[o + 1] = s->n;
  ast[o] = s->ta == 'N' ? 1 : lda, ast[o + 1] = s->ta == 'N' ? lda : 1;
  bst[o] = s->tb == 'N' ? 1 : ldb, bst[o + 1] = s->tb == 'N' ? ldb : 1;
  cst[o] = 1, cst[o + 1] = ldc;
  DLTensor ta = {(void *)(uintptr_t)a, {kDLCUDA, 0}, nd, t, as, ast, 0};
  DLTensor tb = {(void *)(uintptr_t)b, {kDLCUDA, 0}, nd, t, bs, bst, 0};
  DLTensor tc = {(void *)(uintptr_t)c, {kDLCUDA, 0}, nd, t, cs, cst, 0};
  if (which == 0) {
    dlgemm_options opt;
    dlgemm_options_init(&opt);
    opt.stream = stream;
    opt.precision = kinds[s->t].policy;
    if (dlgemm_matmul(&ta, &tb, &tc, 1.0, s->beta, &opt)) {
      fprintf(stderr, "dlgemm: %s\n", dlgemm_last_error());
      exit(1);
    }
  } else {
    /* (1, 0) and (beta, 0): the real types read the first part only */
    const double one64[2] = {1, 0}, beta64[2] = {s->beta, 0};
    const float one32[2] = {1, 0}, beta32[2] = {(float)s->beta, 0};
    const int dbl = part_of(s->t) == F64;
    const void *alpha = dbl ? (const void *)one64 : (const void *)one32;
    const void *beta = dbl ? (const void *)beta64 : (const void *)beta32;
    const int type = kinds[s->t].cublas_type;
    if (is_complex(s->t)) { /* one matrix: the complex cases have no batch */
      if ((s->t == C64 ? cgemm : zgemm)(handle, s->ta == 'N' ? 0 : 1, s->tb == 'N' ? 0 : 1, s->m,
                                         s->n, s->k, alpha, (const void *)(uintptr_t)a, lda,
                                         (const void *)(uintptr_t)b, ldb, beta,
                                         (void *)(uintptr_t)c, ldc)) {
        fprintf(stderr, "cublas%sgemm failed\n", s->t == C64 ? "C" : "Z");
        exit(1);
      }
    } else if (batched(handle, s->ta == 'N' ? 0 : 1, s->tb == 'N' ? 0 : 1, s->m, s->n, s->k,
                       alpha, (const void *)(uintptr_t)a, type, lda, sa,
                       (const void *)(uintptr_t)b, type, ldb, sb, beta, (void *)(uintptr_t)c,
                       type, ldc, sc, s->batch, kinds[s->t].compute, GEMM_DEFAULT)) {
      fprintf(stderr, "cublasGemmStridedBatchedEx failed\n");
      exit(1);
    }
  }
}

static void run_set(int set, void *ctx)
{
  const job *j = ctx;
  run(j->which, j->s, j->a[set], j->b[set], j->c);
}

/* Part e of x (an element, or for the complex types a real or imaginary part). */
static double value(const shape *s, const void *x, size_t e)
{
  switch (part_of(s->t)) {
  case F64: return ((const double *)x)[e];
  case BF16: return dlg_bf16_to_float(((const uint16_t *)x)[e]);
  case F16: return dlg_f16_to_float(((const uint16_t *)x)[e]);
  default: return ((const float *)x)[e];
  }
}

/* n elements of s's type (2n parts of a complex one). */
static void fill(const shape *s, void *x, size_t n, uint64_t *state)
{
  n *= is_complex(s->t) ? 2 : 1;
  for (size_t e = 0; e < n; e++) {
    double v;
    *state ^= *state << 13, *state ^= *state >> 7, *state ^= *state << 17;
    v = (double)(*state >> 11) / 4503599627370496.0 - 1.0;
    switch (part_of(s->t)) {
    case F64: ((double *)x)[e] = v; break;
    case BF16: ((uint16_t *)x)[e] = dlg_float_to_bf16((float)v); break;
    case F16: ((uint16_t *)x)[e] = dlg_float_to_f16((float)v); break;
    default: ((float *)x)[e] = (float)v;
    }
  }
}

/* The product of set 0 by library `which` into c, read back. */
static void *result(const shape *s, int which, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c,
                    const void *c0, size_t bytes)
{
  void *h = malloc(bytes);
  CU(cu.MemcpyHtoD(c, c0, bytes));
  CU(cu.StreamSynchronize(NULL));
  run(which, s, a, b, c);
  CU(cu.StreamSynchronize(stream));
  CU(cu.MemcpyDtoH(h, c, bytes));
  return h;
}

int main(int argc, char **argv)
{
  const int reps = argc > 1 ? atoi(argv[1]) : 10;
  const char *only = argc > 2 ? argv[2] : NULL;
  const shape *list = cases;
  size_t ncases = sizeof cases / sizeof cases[0];
  shape one = {"shape", F64, 'N', 'N', 0, 0, 0, 1, 0};
  char tname[8], ops[3];
  /* a shape of one's own instead of a class: "TYPE OPS M N K [BATCH [BETA]]" */
  if (only && sscanf(only, "%7s %2s %d %d %d %d %lf", tname, ops, &one.m, &one.n, &one.k,
                     &one.batch, &one.beta) >= 5) {
    size_t t = 0;
    while (t < sizeof kinds / sizeof kinds[0] && strcmp(kinds[t].name, tname)) t++;
    if (t == sizeof kinds / sizeof kinds[0] || strlen(ops) != 2 || one.m < 1 || one.n < 1 ||
        one.k < 1 || one.batch < 1) {
      fprintf(stderr, "bench_shapes: not a shape: \"%s\" (e.g. \"fp64 TN 3000 3000 3000\")\n", only);
      return 1;
    }
    one.t = (kind)t, one.ta = ops[0], one.tb = ops[1];
    list = &one, ncases = 1, only = NULL;
  }
  double log_sum = 0, cls_sum = 0;
  int counted = 0, cls_n = 0;
  const char *cls = NULL;
  void *cublas = bench_open(&cu, &stream, &ev0, &ev1, &handle);
  batched = (cublas_batched_fn)dlsym(cublas, "cublasGemmStridedBatchedEx");
  cgemm = (cublas_complex_fn)dlsym(cublas, "cublasCgemm_v2");
  zgemm = (cublas_complex_fn)dlsym(cublas, "cublasZgemm_v2");
  if (!batched || !cgemm || !zgemm) {
    fprintf(stderr, "cuBLAS lacks cublasGemmStridedBatchedEx, cublasCgemm_v2 or cublasZgemm_v2\n");
    return 1;
  }
  printf("%-14s %-5s %2s %6s %6s %6s %5s %5s %9s %9s %6s %9s\n", "class", "type", "op", "m", "n",
         "k", "batch", "beta", "dlgemm", "cuBLAS", "ratio", "C differs");
  for (size_t i = 0; i <= ncases; i++) {
    const shape *s = i < ncases ? &list[i] : NULL;
    if (s && only && !strstr(s->cls, only)) continue;
    if (cls && (!s || strcmp(s->cls, cls))) { /* a class ends */
      printf("%-14s geometric mean of %d: %.3f\n", cls, cls_n, exp(cls_sum / cls_n));
      cls_sum = 0, cls_n = 0;
    }
    if (!s) break;
    cls = s->cls;
    {
      const size_t es = (size_t)kinds[s->t].es, batch = (size_t)s->batch;
      const size_t na = (size_t)rows_a(s) * (s->ta == 'N' ? s->k : s->m) * batch;
      const size_t nb = (size_t)rows_b(s) * (s->tb == 'N' ? s->n : s->k) * batch;
      const size_t nc = (size_t)s->m * s->n * batch;
      int sets = (int)(200e6 / ((double)es * (double)(na + nb)) + 1);
      CUdeviceptr a[8], b[8], c;
      void *ha = malloc(es * na), *hb = malloc(es * nb), *hc = malloc(es * nc), *r0, *r1;
      uint64_t state = 0x9e3779b97f4a7c15ull + i;
      const double flops = (is_complex(s->t) ? 8.0 : 2.0) * s->m * s->n * s->k * (double)batch;
      const size_t parts = is_complex(s->t) ? 2 : 1; /* values compared per element of C */
      double maxc = 0, maxd = 0;
      float ms[2];
      job j = {0, s, a, b, 0};
      if (sets > 8) sets = 8;
      for (int t = 0; t < sets; t++) {
        fill(s, ha, na, &state);
        fill(s, hb, nb, &state);
        CU(cu.MemAlloc(&a[t], es * na));
        CU(cu.MemAlloc(&b[t], es * nb));
        CU(cu.MemcpyHtoD(a[t], ha, es * na));
        CU(cu.MemcpyHtoD(b[t], hb, es * nb));
      }
      fill(s, hc, nc, &state);
      CU(cu.MemAlloc(&c, es * nc));
      CU(cu.MemcpyHtoD(c, hc, es * nc));
      CU(cu.StreamSynchronize(NULL));
      j.c = c;
      bench_median_pair_ms(&cu, stream, ev0, ev1, reps, sets, run_set, &j, &j.which, ms);
      r0 = result(s, 0, a[0], b[0], c, hc, es * nc);
      r1 = result(s, 1, a[0], b[0], c, hc, es * nc);
      for (size_t e = 0; e < parts * nc; e += 1 + parts * nc / 65536) {
        const double x = value(s, r0, e), y = value(s, r1, e);
        maxc = fmax(maxc, fabs(y));
        maxd = fmax(maxd, fabs(x - y));
      }
      printf("%-14s %-5s %c%c %6d %6d %6d %5d %5g %7.1f T %7.1f T %6.3f %9.2e\n", s->cls,
             kinds[s->t].name, s->ta, s->tb, s->m, s->n, s->k, s->batch, s->beta,
             flops / ms[0] * 1e-9, flops / ms[1] * 1e-9, ms[1] / ms[0], maxd / (maxc + 1e-300));
      fflush(stdout);
      log_sum += log(ms[1] / ms[0]), counted++;
      cls_sum += log(ms[1] / ms[0]), cls_n++;
      for (int t = 0; t < sets; t++) cu.MemFree(a[t]), cu.MemFree(b[t]);
      cu.MemFree(c);
      free(ha), free(hb), free(hc), free(r0), free(r1);
    }
  }
  printf("geometric mean over %d cases: %.3f (ratio = cuBLAS time / dlgemm time; medians of %d "
         "event-timed runs, alternating)\n", counted, exp(log_sum / (counted ? counted : 1)), reps);
  return 0;
}
