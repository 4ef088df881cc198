/*
 * gemm_case.h - one product, on dlgemm and on cuBLAS, as the shape
 * benchmarks run it (bench_shapes.c: a list of cases; sweep.c: a grid).
 *
 * A case: a type, each operand's transpose, m, n, k, a batch, beta, and
 * `pad` rows added to every leading dimension (odd pads make them
 * non-multiples of 8).  Operands are device-resident and column-major, as
 * BLAS and cuBLAS see them; dlgemm gets the same memory as DLTensors.
 * cuBLAS gets cublasGemmStridedBatchedEx with the same types and compute
 * (FP64: 64F; FP32 and 3xTF32: strict 32F, so 3xTF32 is timed against
 * strict SGEMM; TF32: 32F_FAST_TF32; 16-bit: 32F; complex: the complex
 * types with 32F or 64F), except that a single complex matrix goes to
 * cublasCgemm / cublasZgemm, as a BLAS program's would.
 */
#ifndef DLG_BENCH_GEMM_CASE_H
#define DLG_BENCH_GEMM_CASE_H

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
enum { R_32F = 0, R_64F = 1, R_16F = 2, R_16BF = 14, CX_32F = 4, CX_64F = 5, C_32F = 68,
       C_32F_TF32 = 77, C_64F = 70, GEMM_DEFAULT = -1 };

typedef enum { F64, F32, TF32, TF32X3, BF16, F16, C64, C128, KINDS } kind;
static const struct {
  const char *name;
  int es, cublas_type, compute;
  dlgemm_precision policy;
  double unit; /* the result's rounding, for the cross-check's tolerance */
} kinds[] = {{"fp64", 8, R_64F, C_64F, DLGEMM_PRECISION_STRICT, 0x1p-52},
             {"fp32", 4, R_32F, C_32F, DLGEMM_PRECISION_STRICT, 0x1p-23},
             {"tf32", 4, R_32F, C_32F_TF32, DLGEMM_PRECISION_TF32, 0x1p-10},
             {"3xtf32", 4, R_32F, C_32F, DLGEMM_PRECISION_3XTF32, 0x1p-21},
             {"bf16", 2, R_16BF, C_32F, DLGEMM_PRECISION_STRICT, 0x1p-7},
             {"f16", 2, R_16F, C_32F, DLGEMM_PRECISION_STRICT, 0x1p-10},
             {"c64", 8, CX_32F, C_32F, DLGEMM_PRECISION_STRICT, 0x1p-23},
             {"c128", 16, CX_64F, C_64F, DLGEMM_PRECISION_STRICT, 0x1p-52}};

static int is_complex(kind t) { return t == C64 || t == C128; }
/* The type of each part: a complex element is two of them. */
static kind part_of(kind t) { return t == C64 ? F32 : t == C128 ? F64 : t == TF32X3 ? F32 : t; }

typedef struct shape {
  const char *cls;
  kind t;
  char ta, tb;
  int m, n, k, batch;
  double beta;
  int pad; /* rows added to each leading dimension */
} shape;

/* What a benchmark holds: the driver, its stream and events, cuBLAS. */
typedef struct gemm_bench {
  cudrv cu;
  CUstream stream;
  CUevent ev0, ev1;
  void *handle;
  cublas_batched_fn batched;
  cublas_complex_fn cgemm, zgemm;
} gemm_bench;

static void gemm_bench_open(gemm_bench *gb)
{
  void *cublas = bench_open(&gb->cu, &gb->stream, &gb->ev0, &gb->ev1, &gb->handle);
  gb->batched = (cublas_batched_fn)dlsym(cublas, "cublasGemmStridedBatchedEx");
  gb->cgemm = (cublas_complex_fn)dlsym(cublas, "cublasCgemm_v2");
  gb->zgemm = (cublas_complex_fn)dlsym(cublas, "cublasZgemm_v2");
  if (!gb->batched || !gb->cgemm || !gb->zgemm) {
    fprintf(stderr, "cuBLAS lacks cublasGemmStridedBatchedEx, cublasCgemm_v2 or cublasZgemm_v2\n");
    exit(1);
  }
}

/* The stored operands' leading dimensions (odd m or k stay odd) and elements. */
static int lda_of(const shape *s) { return (s->ta == 'N' ? s->m : s->k) + s->pad; }
static int ldb_of(const shape *s) { return (s->tb == 'N' ? s->k : s->n) + s->pad; }
static int ldc_of(const shape *s) { return s->m + s->pad; }
static size_t elems_a(const shape *s)
{
  return (size_t)lda_of(s) * (size_t)(s->ta == 'N' ? s->k : s->m) * (size_t)s->batch;
}
static size_t elems_b(const shape *s)
{
  return (size_t)ldb_of(s) * (size_t)(s->tb == 'N' ? s->n : s->k) * (size_t)s->batch;
}
static size_t elems_c(const shape *s) { return (size_t)ldc_of(s) * (size_t)s->n * (size_t)s->batch; }
static double flops_of(const shape *s)
{
  return (is_complex(s->t) ? 8.0 : 2.0) * s->m * s->n * (double)s->k * s->batch;
}

/* The product by dlgemm (which 0) or cuBLAS (1) on the bench's stream; exits on failure. */
static void gemm_run(const gemm_bench *gb, int which, const shape *s, CUdeviceptr a, CUdeviceptr b,
                     CUdeviceptr c)
{
  const int es = kinds[s->t].es, lda = lda_of(s), ldb = ldb_of(s), ldc = ldc_of(s);
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
    opt.stream = gb->stream;
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
    const int type = kinds[s->t].cublas_type, opa = s->ta == 'N' ? 0 : 1, opb = s->tb == 'N' ? 0 : 1;
    if (is_complex(s->t) && s->batch == 1) {
      if ((s->t == C64 ? gb->cgemm : gb->zgemm)(gb->handle, opa, opb, s->m, s->n, s->k, alpha,
                                                 (const void *)(uintptr_t)a, lda,
                                                 (const void *)(uintptr_t)b, ldb, beta,
                                                 (void *)(uintptr_t)c, ldc)) {
        fprintf(stderr, "cublas%sgemm failed\n", s->t == C64 ? "C" : "Z");
        exit(1);
      }
    } else if (gb->batched(gb->handle, opa, opb, s->m, s->n, s->k, alpha,
                           (const void *)(uintptr_t)a, type, lda, sa, (const void *)(uintptr_t)b,
                           type, ldb, sb, beta, (void *)(uintptr_t)c, type, ldc, sc, s->batch,
                           kinds[s->t].compute, GEMM_DEFAULT)) {
      fprintf(stderr, "cublasGemmStridedBatchedEx failed\n");
      exit(1);
    }
  }
}

/* Part e of x (an element, or for the complex types a real or imaginary part). */
static double gemm_value(const shape *s, const void *x, size_t e)
{
  switch (part_of(s->t)) {
  case F64: return ((const double *)x)[e];
  case BF16: return dlg_bf16_to_float(((const uint16_t *)x)[e]);
  case F16: return dlg_f16_to_float(((const uint16_t *)x)[e]);
  default: return ((const float *)x)[e];
  }
}

/* n elements of s's type (2n parts of a complex one), uniform in [-1, 1). */
static void gemm_fill(const shape *s, void *x, size_t n, uint64_t *state)
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

/* The first `bytes` of C after library `which` made the product of (a, b)
 * over C's starting values c0 (host, `bytes` long: beta reads them). */
static void *gemm_result(const gemm_bench *gb, const shape *s, int which, CUdeviceptr a,
                         CUdeviceptr b, CUdeviceptr c, const void *c0, size_t bytes)
{
  void *h = malloc(bytes);
  CU(gb->cu.MemcpyHtoD(c, c0, bytes));
  CU(gb->cu.StreamSynchronize(NULL));
  gemm_run(gb, which, s, a, b, c);
  CU(gb->cu.StreamSynchronize(gb->stream));
  CU(gb->cu.MemcpyDtoH(h, c, bytes));
  return h;
}

/* max |dlgemm's C - cuBLAS's| / max |cuBLAS's| over the parts both hold
 * (sampled: at most 65536), the pads between columns skipped. */
static double gemm_differs(const shape *s, const void *r0, const void *r1, size_t parts)
{
  const size_t per = is_complex(s->t) ? 2 : 1, ldc = (size_t)ldc_of(s);
  double maxc = 0, maxd = 0;
  for (size_t e = 0; e < parts; e += 1 + parts / 65536) {
    const double x = gemm_value(s, r0, e), y = gemm_value(s, r1, e);
    if ((e / per) % ldc >= (size_t)s->m) continue;
    maxc = fmax(maxc, fabs(y));
    maxd = fmax(maxd, fabs(x - y));
  }
  return maxd / (maxc + 1e-300);
}

#endif
