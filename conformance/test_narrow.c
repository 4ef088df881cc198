/*
 * test_narrow - the narrow kernels (plugin/cuda/device/narrow.c: C at most
 * 16 wide on one side) on kDLCUDA tensors: m or n in {1, 2, 3, 5, 8, 13,
 * 16} against k and the other side from 256 to 2000 (primes among them),
 * every layout of A, B and C, leading dimensions padded so that 16-byte
 * loads are legal or not, batches with broadcast operands, alpha and beta
 * in {0, 1, -0.75} with NaN in C where beta = 0; float32 (strict and TF32
 * policies), float64, and float16 / bfloat16 inputs into each C type.
 * Checked against a long-double product of the same inputs with the dot
 * product bound: (k + 4) * 2u of the summed magnitudes (u = 2^-53 for
 * float64, 2^-24 for the FP32 accumulation of the others), plus one
 * rounding to C's type of the result and float16's smallest subnormal.
 * Every element of C's buffer that is not C (padding, the guard) must be
 * left alone, and each call's DLGEMM_VERBOSE line must name the narrow
 * kernels (the other kernels would pass the bound too; TF32 past 8 columns
 * goes to its tensor-core tiles, whose answers alone are checked), or for 16-bit
 * inputs with 5 columns or more the wgmma kernels narrow.c hands them to,
 * for float64 the thin DMMA tiles.
 *
 * With "tiny" the same for the tiny kernels (plugin/cuda/device/tiny.c):
 * m, n and k each in {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 23, 24, 31, 32,
 * 33, 40, 47, 48, 63, 64} (2 x 2 and 4 x 4 a thread, k in one chunk of 32
 * or two), batches of 1 to 300 (40 above 32^3; broadcast operands among them), float32 under the
 * strict, TF32 and 3xTF32 policies (all on FP32 FMAs there), and the
 * VERBOSE line naming the tiny kernel (DLGEMM_TINY=on: every size, where
 * auto takes only those it was measured to win); some case must have moved
 * an operand 16 bytes an access (leading dimensions that are whole 16-byte
 * runs come about a fifth of the time).
 *
 * With "narrow32" the same for float32 (strict, TF32 and 3xTF32 policies)
 * 17 to 32 wide, on the narrow kernels' 32-column bucket
 * (DLGEMM_NARROW32=on: wherever auto would or would not take them).
 *
 * With "complex" the same for complex64 (m or n to 16) and complex128 (to
 * 8), strict FP32 / FP64 and real alpha and beta (dlgemm_matmul's), each
 * part of C bounded by its own sums of magnitudes; the VERBOSE line must
 * name the narrow kernels' complex form (DLGEMM_NARROW_COMPLEX=on: the
 * default does not take them yet).
 *
 * With "thin" the products of the wgmma kernels' 128 x 64 tile
 * (plugin/cuda/device/hgemm.c): a side of 17 to 64 against 1024 to 2000 of
 * the other and of k, batch 1, or (half the cases) batches of 2 to 6
 * attention heads, 128 to 509 against k of 128 to 384; most leading
 * dimensions on 16 bytes; where TMA can address both 16-bit operands and
 * neither is broadcast the VERBOSE line must name the 128 x 64 tile (and
 * some case must), float32 and float64 are checked for their
 * answers only, TF32's with its inputs' rounding (2e-3 of the magnitudes,
 * as test_half).
 *
 * usage: test_narrow [cases [tiny|thin|narrow32|complex]]   (DLGEMM_TEST_SEED replays a run;
 * DLGEMM_NARROW_SPLITS pins the kernels' split of k).  Skips (77, reason
 * printed) where no CUDA backend is usable.
 */
#include <stdlib.h>
#include <string.h>
#include "core/half.h"
#include "cudrv.h"
#include "dlgemm.h"
#include "gpu_probe.h"
#include "testutil.h"

typedef enum { F32, F64, F16, BF16, C64, C128 } type;
static const size_t esize[] = {4, 8, 2, 2, 8, 16};

/* A complex type's parts are two of its real type, re then im. */
static type real_of(type t) { return t == C64 ? F32 : t == C128 ? F64 : t; }
static int parts(type t) { return t == C64 || t == C128 ? 2 : 1; }

static double get(type t, const void *p, int64_t i)
{
  switch (t) {
  case F64: return ((const double *)p)[i];
  case F16: return dlg_f16_to_float(((const uint16_t *)p)[i]);
  case BF16: return dlg_bf16_to_float(((const uint16_t *)p)[i]);
  default: return ((const float *)p)[i];
  }
}

static void put(type t, void *p, int64_t i, double v)
{
  switch (t) {
  case F64: ((double *)p)[i] = v; break;
  case F16: ((uint16_t *)p)[i] = dlg_float_to_f16((float)v); break;
  case BF16: ((uint16_t *)p)[i] = dlg_float_to_bf16((float)v); break;
  default: ((float *)p)[i] = (float)v;
  }
}

static DLDataType dl_type(type t)
{
  DLDataType d = {t == BF16 ? kDLBfloat : parts(t) == 2 ? kDLComplex : kDLFloat,
                  (uint8_t)(8 * esize[t]), 1};
  return d;
}

/* One operand on the device: rows x cols per batch entry (one entry when
 * broadcast), column- or row-major, leading dimension padded or not. */
typedef struct operand {
  type t;
  void *host;
  int64_t total, shape[3], strides[3];
  CUdeviceptr dev;
  DLTensor tensor;
} operand;

/* thin mode: most leading dimensions rounded up to 16 bytes, so that TMA
 * can address most operands and the 128 x 64 tile is reached */
static int round_lds;

static void make(const cudrv *cu, rng *r, operand *o, type t, int64_t rows, int64_t cols,
                 int64_t batch, int bcast, int nan)
{
  static const int pads[] = {0, 0, 1, 3, 8};
  const int colmaj = rng_int(r, 2);
  const int64_t ld0 = (colmaj ? rows : cols) + pads[rng_int(r, 5)];
  const int64_t ld = round_lds && rng_int(r, 3) ? (ld0 + 7) / 8 * 8 : ld0;
  const int64_t matrix = ld * (colmaj ? cols : rows);
  int64_t e;
  o->t = t;
  o->total = matrix * (bcast ? 1 : batch) + 64;
  o->host = malloc((size_t)o->total * esize[t]);
  for (e = 0; e < o->total * parts(t); e++) put(real_of(t), o->host, e, nan ? NAN : rng_unit(r));
  o->shape[0] = bcast ? 1 : batch, o->shape[1] = rows, o->shape[2] = cols;
  o->strides[0] = matrix, o->strides[1] = colmaj ? 1 : ld, o->strides[2] = colmaj ? ld : 1;
  o->tensor = (DLTensor){o->host, {kDLCPU, 0}, 3, dl_type(t), o->shape, o->strides, 0};
  o->dev = cudrv_tensor_to_device(cu, &o->tensor, (size_t)o->total * esize[t]);
}

/* Whether TMA can address o: its rows (or columns) start on 16 bytes. */
static int tma_ok(const operand *o)
{
  const int64_t ld = o->strides[1] == 1 ? o->strides[2] : o->strides[1];
  return (ld * (int64_t)esize[o->t]) % 16 == 0;
}

/* Elements of C outside the bound, and elements of its buffer that are not
 * C and changed. */
static long check(const operand *a, const operand *b, const operand *c, const void *c0, int64_t m,
                  int64_t n, int64_t k, int64_t batch, double alpha, double beta,
                  double input_error)
{
  const type ra = real_of(a->t), rb = real_of(b->t), rc = real_of(c->t);
  const int cx = parts(c->t) - 1; /* 1: every operand complex */
  const double u = ra == F64 ? 1.1102230246251565e-16 : 5.9604644775390625e-08;
  const double uout = rc == F64 ? 1.12e-16 : rc == F32 ? 5.97e-8 : rc == F16 ? 4.89e-4 : 3.91e-3;
  char *mark = calloc((size_t)c->total, 1);
  long bad = 0;
  int64_t p, i, j, l;
  for (p = 0; p < batch; p++) {
    const int64_t pa = a->shape[0] == 1 ? 0 : p * a->strides[0];
    const int64_t pb = b->shape[0] == 1 ? 0 : p * b->strides[0];
    for (i = 0; i < m; i++)
      for (j = 0; j < n; j++) {
        const int64_t at = p * c->strides[0] + i * c->strides[1] + j * c->strides[2];
        long double ref[2] = {0, 0}, mag[2] = {0, 0}; /* re, im */
        int q;
        for (l = 0; l < k; l++) {
          const int64_t ea = pa + i * a->strides[1] + l * a->strides[2];
          const int64_t eb = pb + l * b->strides[1] + j * b->strides[2];
          const long double ar = get(ra, a->host, (cx + 1) * ea), br = get(rb, b->host, (cx + 1) * eb);
          const long double ai = cx ? get(ra, a->host, 2 * ea + 1) : 0,
                            bi = cx ? get(rb, b->host, 2 * eb + 1) : 0;
          ref[0] += ar * br - ai * bi, mag[0] += fabsl(ar * br) + fabsl(ai * bi);
          ref[1] += ar * bi + ai * br, mag[1] += fabsl(ar * bi) + fabsl(ai * br);
        }
        mark[at] = 1;
        for (q = 0; q <= cx; q++) {
          const double got = get(rc, c->host, (cx + 1) * at + q);
          long double bound;
          ref[q] *= alpha, mag[q] *= fabs(alpha);
          if (beta != 0) {
            const long double cv = get(rc, c0, (cx + 1) * at + q);
            ref[q] += beta * cv, mag[q] += fabsl(beta * cv);
          }
          bound = ((long double)(k + 4) * 2 * u + input_error) * mag[q] + uout * fabsl(ref[q]) +
                  (c->t == F16 ? 6e-8 : 0) + 1e-300L;
          if (!(fabsl(got - ref[q]) <= bound)) {
            if (bad < 5)
              fprintf(stderr, "  batch %lld C(%lld,%lld)%s = %.17g, expected %.17Lg (bound %.3Lg)\n",
                      (long long)p, (long long)i, (long long)j, cx ? (q ? ".im" : ".re") : "", got,
                      ref[q], bound);
            bad++;
          }
        }
      }
  }
  for (i = 0; i < c->total; i++)
    if (!mark[i] && memcmp((const char *)c->host + i * esize[c->t], (const char *)c0 + i * esize[c->t],
                           esize[c->t])) {
      if (bad < 5) fprintf(stderr, "  element %lld of C's buffer, not C, written\n", (long long)i);
      bad++;
    }
  free(mark);
  return bad;
}

typedef struct call {
  operand *a, *b, *c;
  double alpha, beta;
  const dlgemm_options *o;
  dlgemm_status st;
} call;

static void run_call(void *arg)
{
  call *x = arg;
  x->st = dlgemm_matmul(&x->a->tensor, &x->b->tensor, &x->c->tensor, x->alpha, x->beta, x->o);
}

int main(int argc, char **argv)
{
  static const int narrow[] = {1, 2, 3, 5, 8, 13, 16};
  static const int wide[] = {256, 257, 263, 264, 512, 521, 1000, 1031, 2000};
  static const int tiny[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 23, 24, 31, 32, 33, 40, 47, 48, 63, 64};
  static const int thin[] = {17, 23, 24, 31, 32, 33, 40, 47, 48, 63, 64};
  static const int wide32[] = {17, 19, 24, 29, 31, 32};
  static const int long_side[] = {1024, 1031, 1297, 2000};
  static const int head_side[] = {128, 131, 256, 509}, head_k[] = {128, 160, 256, 384};
  static const double scalars[] = {0, 1, -0.75};
  static const char *const names[] = {"float32", "float64", "float16", "bfloat16", "complex64",
                                      "complex128"};
  const int cases = argc > 1 ? atoi(argv[1]) : 100;
  const int tiny_mode = argc > 2 && !strcmp(argv[2], "tiny");
  const int thin_mode = argc > 2 && !strcmp(argv[2], "thin");
  const int n32_mode = argc > 2 && !strcmp(argv[2], "narrow32");
  const int cx_mode = argc > 2 && !strcmp(argv[2], "complex");
  rng r = {test_seed("test_narrow")};
  int t, failed = 0;
  cudrv cu;
  CUcontext ctx;
  CUstream stream;
  char log[2048];
  setenv("DLGEMM_VERBOSE", "1", 1); /* read once, on the first call */
  if (tiny_mode) setenv("DLGEMM_TINY", "on", 1); /* every size, not only where they win */
  if (n32_mode) setenv("DLGEMM_NARROW32", "on", 1); /* float32 17-32 wide, whether auto takes it or not */
  if (cx_mode) setenv("DLGEMM_NARROW_COMPLEX", "on", 1); /* whether the default takes them or not */
  int reached = 0; /* cases on the 128 x 64 tile, or on the tiny kernels' 16-byte accesses */
  round_lds = thin_mode;
  if (!cuda_backend_usable("test_narrow")) return 77;
  cudrv_load(&cu, &ctx);
  CU(cu.StreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  for (t = 0; t < cases; t++) {
    /* float32 three times: strict, TF32 and 3xTF32, which take the same kernels */
    const int kind = cx_mode ? 6 + rng_int(&r, 2) : n32_mode ? (int[]){0, 4, 5}[rng_int(&r, 3)]
                                                             : rng_int(&r, 6);
    const int tf32 = kind == 4 || kind == 5;
    const type in = cx_mode ? (kind == 6 ? C64 : C128) : tf32 ? F32 : (type)kind;
    const type out = in == F16 || in == BF16 ? (type)((int[]){F32, F16, BF16})[rng_int(&r, 3)] : in;
    const int64_t nn = thin_mode  ? thin[rng_int(&r, 11)]
                       : n32_mode ? wide32[rng_int(&r, 6)]
                       : in == C128 ? narrow[rng_int(&r, 5)] /* to 8 */
                                  : narrow[rng_int(&r, 7)];
    /* thin mode: half the cases batches of attention's second product
     * (seq x 17..64 x seq heads, seq 128-509), the rest long streams */
    const int heads = thin_mode && rng_int(&r, 2);
    const int64_t mn = heads ? head_side[rng_int(&r, 4)]
                       : thin_mode ? long_side[rng_int(&r, 4)]
                                   : wide[rng_int(&r, 9)];
    const int64_t k = tiny_mode   ? tiny[rng_int(&r, 21)]
                      : heads     ? head_k[rng_int(&r, 4)]
                      : thin_mode ? long_side[rng_int(&r, 4)]
                                  : wide[rng_int(&r, 9)];
    const int m_narrow = rng_int(&r, 2);
    const int64_t m = tiny_mode ? tiny[rng_int(&r, 21)] : m_narrow ? nn : mn;
    const int64_t n = tiny_mode ? tiny[rng_int(&r, 21)] : m_narrow ? mn : nn;
    /* the long-double reference bounds the size: no batch of the largest */
    const int64_t batch = tiny_mode ? 1 + rng_int(&r, m * n * k > 32768 ? 40 : 300)
                          : heads ? 2 + rng_int(&r, 5)
                          : mn * k > 600000 || thin_mode ? 1 : 1 + rng_int(&r, 3);
    const int bcast = batch > 1 ? rng_int(&r, 4) : 0; /* 1: A, 2: B broadcast */
    const double alpha = scalars[rng_int(&r, 3)], beta = scalars[rng_int(&r, 3)];
    operand a, b, c;
    void *c0;
    dlgemm_options o;
    call x;
    long bad;
    make(&cu, &r, &a, in, m, k, batch, bcast == 1, 0);
    make(&cu, &r, &b, in, k, n, batch, bcast == 2, 0);
    make(&cu, &r, &c, out, m, n, batch, 0, beta == 0);
    c0 = malloc((size_t)c.total * esize[out]);
    memcpy(c0, c.host, (size_t)c.total * esize[out]);
    CU(cu.StreamSynchronize(NULL)); /* the copies from pageable memory have landed */
    dlgemm_options_init(&o);
    o.stream = stream;
    o.precision = kind == 5 ? DLGEMM_PRECISION_3XTF32 : tf32 ? DLGEMM_PRECISION_TF32
                                                             : DLGEMM_PRECISION_STRICT;
    x = (call){&a, &b, &c, alpha, beta, &o, DLGEMM_OK};
    capture_stderr(run_call, &x, log, sizeof log);
    if (x.st != DLGEMM_OK) {
      fprintf(stderr, "case %d: dlgemm_matmul failed: %s\n", t, dlgemm_last_error());
      return 1;
    }
    CU(cu.StreamSynchronize(stream));
    CU(cu.MemcpyDtoH(c.host, c.dev, (size_t)c.total * esize[out]));
    /* TF32 on the tensor cores: its inputs' rounding (test_half's bound) */
    const int tf32_tiles = kind == 4 && !tiny_mode && !n32_mode && (thin_mode || nn > 8);
    bad = check(&a, &b, &c, c0, m, n, k, batch, alpha, beta,
                tf32_tiles ? 2.0e-3 : thin_mode && kind == 5 ? 1.0e-6 : 0);
    reached += thin_mode ? strstr(log, "wgmma 128x64 tile") != NULL
               : tiny_mode && strstr(log, "16-byte accesses to ") && !strstr(log, "to none");
    /* 16-bit with 5 columns or more may be handed to the wgmma kernels'
     * split-K, float64 to the thin DMMA tiles (narrow.c says when) */
    if (thin_mode ? (in == F16 || in == BF16) && alpha != 0 && tma_ok(&a) && tma_ok(&b) && !bcast &&
                        !strstr(log, "wgmma 128x64 tile")
        : tiny_mode ? !strstr(log, "tiny ")
        : cx_mode   ? !strstr(log, " complex kernel")
                    : !strstr(log, "narrow ") && !tf32_tiles &&
                        !((in == F16 || in == BF16) && nn > 4 && strstr(log, "wgmma ")) &&
                        !(in == F64 && nn > 4 && strstr(log, "DMMA "))) {
      fprintf(stderr, "  not on the %s kernels: %s",
              thin_mode ? "128 x 64 wgmma" : tiny_mode ? "tiny" : "narrow", log);
      bad++;
    }
    if (bad) {
      failed++;
      fprintf(stderr, "case %d FAILED: %s%s -> %s batch=%lld (broadcast %s) m=%lld n=%lld k=%lld "
              "alpha=%g beta=%g strides A(%lld,%lld) B(%lld,%lld) C(%lld,%lld): %ld wrong\n", t,
              names[in], kind == 5 ? " (3xtf32)" : tf32 ? " (tf32)" : "", names[out], (long long)batch,
              bcast == 1 ? "A" : bcast == 2 ? "B" : "none", (long long)m, (long long)n,
              (long long)k, alpha, beta, (long long)a.strides[1], (long long)a.strides[2],
              (long long)b.strides[1], (long long)b.strides[2], (long long)c.strides[1],
              (long long)c.strides[2], bad);
    }
    free(a.host), free(b.host), free(c.host), free(c0);
    cu.MemFree(a.dev), cu.MemFree(b.dev), cu.MemFree(c.dev);
  }
  CU(cu.StreamDestroy(stream));
  if ((thin_mode || tiny_mode) && !reached) {
    fprintf(stderr, "no case reached %s\n",
            thin_mode ? "the 128 x 64 wgmma tile" : "the tiny kernels' 16-byte accesses");
    failed++;
  }
  printf("test_narrow: products %s on kDLCUDA tensors\n%d passed, %d failed\n",
         tiny_mode ? "with m, n and k at most 64"
         : thin_mode ? "with a side of C 17 to 64 wide"
         : n32_mode  ? "of float32 with a side of C 17 to 32"
         : cx_mode   ? "of complex64 / complex128 with a side of C at most 16 / 8"
                     : "with a side of C at most 16",
         cases - failed,
         failed);
  return failed != 0;
}
