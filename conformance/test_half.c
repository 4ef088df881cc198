/*
 * test_half - tensor-core products: float16 and bfloat16 inputs, or float32
 * under the TF32 / 3xTF32 precision policies.  Random shapes (0, 1, primes,
 * non-multiples of the 128 tile), every layout, padded and odd leading
 * dimensions (which break 16-byte alignment), batches and broadcasts,
 * alpha and beta of 0, 1 and others, C in float16, bfloat16 or float32,
 * NaN in C when beta = 0.  Checked against a long-double product of the
 * same (already rounded) inputs; every element of C's buffer outside C (its
 * leading dimension's padding, a guard after it) must be left as it was.
 *
 * Tolerance: the kernels accumulate exact products in FP32, so an element
 * may be off by k * 2^-24 of the summed magnitudes (the dot product bound,
 * with slack for the order of the tensor cores' additions), plus one
 * rounding to C's type (2^-11 float16, 2^-8 bfloat16) of the result, plus
 * float16's smallest subnormal.  The FP32 policies add their input
 * rounding: TF32 truncates each input to 10 mantissa bits (2^-9 of each
 * product); 3xTF32 drops lo*lo and rounds the low parts (3 * 2^-22 of each
 * product, 1e-6 here) and sums 3k products instead of k.
 *
 *   test_half host N [tf32|3xtf32]  host tensors (the next BLAS's SGEMM
 *                                   path; runs in CI)
 *   test_half cuda N [tf32|3xtf32]  kDLCUDA tensors on a non-default stream
 *                                   (skips, 77, without a usable CUDA backend)
 * Without a policy the inputs are float16 / bfloat16; with one, float32.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dlgemm.h"
#include "gpu_probe.h"
#include "core/half.h"
#include "testutil.h"
#ifdef DLGEMM_HAVE_CUDA
#include "cudrv.h"
#endif

typedef struct operand {
  int type; /* 0 float32, 1 float16, 2 bfloat16 */
  void *host;
  int64_t total; /* elements, including the guard */
} operand;

static size_t esize(int type) { return type == 0 ? 4 : 2; }

static double get(int type, const void *p, int64_t i)
{
  if (type == 0) return ((const float *)p)[i];
  return type == 1 ? dlg_f16_to_float(((const uint16_t *)p)[i])
                   : dlg_bf16_to_float(((const uint16_t *)p)[i]);
}

static void put(int type, void *p, int64_t i, float v)
{
  if (type == 0) ((float *)p)[i] = v;
  else ((uint16_t *)p)[i] = type == 1 ? dlg_float_to_f16(v) : dlg_float_to_bf16(v);
}

static DLDataType dl_type(int type)
{
  DLDataType t = {kDLFloat, 32, 1};
  if (type) t.code = type == 1 ? kDLFloat : kDLBfloat, t.bits = 16;
  return t;
}

int main(int argc, char **argv)
{
  const int on_gpu = argc > 1 && !strcmp(argv[1], "cuda");
  const int cases = argc > 2 ? atoi(argv[2]) : 100;
  const char *mode = argc > 3 ? argv[3] : "";
  const dlgemm_precision policy = !strcmp(mode, "tf32")     ? DLGEMM_PRECISION_TF32
                                  : !strcmp(mode, "3xtf32") ? DLGEMM_PRECISION_3XTF32
                                                            : DLGEMM_PRECISION_STRICT;
  /* per product (of its magnitude), and how many products a C element sums per k */
  const double input_error = policy == DLGEMM_PRECISION_TF32 ? 2.0e-3
                             : policy == DLGEMM_PRECISION_3XTF32 ? 1.0e-6 : 0;
  const int terms = policy == DLGEMM_PRECISION_3XTF32 ? 3 : 1;
  rng r = {test_seed("test_half")};
  if (*mode && !policy) {
    fprintf(stderr, "usage: test_half host|cuda [cases [tf32|3xtf32]]\n");
    return 2;
  }
  int t, failed = 0;
#ifdef DLGEMM_HAVE_CUDA
  cudrv cu;
  CUcontext ctx;
  CUstream stream = NULL;
  if (on_gpu) {
    if (!cuda_backend_usable("test_half cuda")) return 77;
    cudrv_load(&cu, &ctx);
    CU(cu.StreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  }
#else
  if (on_gpu) {
    printf("SKIP: test_half cuda: built without the CUDA backend\n");
    return 77;
  }
#endif
  for (t = 0; t < cases; t++) {
    static const int sizes[] = {0, 1, 2, 7, 8, 31, 64, 97, 127, 128, 129, 200, 256, 263, 600};
    const int ns = (int)(sizeof sizes / sizeof sizes[0]);
    const int in = policy ? 0 : 1 + rng_int(&r, 2);
    const int out = policy || rng_int(&r, 3) == 0 ? 0 : 1 + rng_int(&r, 2);
    /* one case in eight has more tiles than the H100 has SMs, so that the
     * persistent wgmma blocks each take several (their epilogue's staging
     * buffers reused from tile to tile) */
    static const int wide[] = {129, 200};
    const int many = rng_int(&r, 8) == 0;
    const int64_t batch = many ? 70 + rng_int(&r, 30) : 1 + rng_int(&r, 3);
    const int64_t m = many ? wide[rng_int(&r, 2)] : sizes[rng_int(&r, ns)];
    const int64_t n = many ? wide[rng_int(&r, 2)] : sizes[rng_int(&r, ns)];
    const int64_t k = many ? 31 : sizes[rng_int(&r, ns)] * (rng_int(&r, 5) == 0 ? 8 : 1);
    static const double alphas[] = {1, -0.75, 0, 2}, betas[] = {0, 1, 0.5, -1.25};
    const double alpha = alphas[rng_int(&r, 4)], beta = betas[rng_int(&r, 4)];
    const double uout = out == 0 ? 5.96e-8 : out == 1 ? 4.89e-4 : 3.91e-3;
    int64_t rows[3] = {m, k, m}, cols[3] = {k, n, n}, shp[3][3], str[3][3];
    operand op[3];
    void *c0;
    DLTensor tt[3];
    dlgemm_options o;
    int i, bad = 0;
    int64_t p, e;
#ifdef DLGEMM_HAVE_CUDA
    CUdeviceptr d[3] = {0, 0, 0};
#endif
    for (i = 0; i < 3; i++) {
      const int colmaj = rng_int(&r, 2), bcast = i < 2 && rng_int(&r, 3) == 0;
      /* tight, padded by 0-8, or rounded up to 16 bytes (as frameworks
       * allocate: TMA-legal, and C's rows past m then lie in its padding) */
      const int64_t len = colmaj ? rows[i] : cols[i];
      const int64_t lds[3] = {len, len + rng_int(&r, 9), (len + 7) / 8 * 8};
      const int64_t ld = lds[rng_int(&r, 3)];
      const int64_t matrix = ld * (colmaj ? cols[i] : rows[i]);
      op[i].type = i < 2 ? in : out;
      op[i].total = matrix * (bcast ? 1 : batch) + 64;
      op[i].host = malloc((size_t)op[i].total * esize(op[i].type));
      for (e = 0; e < op[i].total; e++)
        put(op[i].type, op[i].host, e, i == 2 && beta == 0 ? NAN : (float)rng_unit(&r));
      shp[i][0] = bcast ? 1 : batch, shp[i][1] = rows[i], shp[i][2] = cols[i];
      str[i][0] = matrix, str[i][1] = colmaj ? 1 : (ld ? ld : 1), str[i][2] = colmaj ? (ld ? ld : 1) : 1;
      tt[i] = (DLTensor){op[i].host, {kDLCPU, 0}, 3, dl_type(op[i].type), shp[i], str[i], 0};
#ifdef DLGEMM_HAVE_CUDA
      if (on_gpu)
        d[i] = cudrv_tensor_to_device(&cu, &tt[i], (size_t)op[i].total * esize(op[i].type));
#endif
    }
#ifdef DLGEMM_HAVE_CUDA
    /* a copy from pageable memory may return before its DMA lands, and the
     * product runs on a non-blocking stream: wait for the copies */
    if (on_gpu) CU(cu.StreamSynchronize(NULL));
#endif
    c0 = malloc((size_t)op[2].total * esize(out));
    memcpy(c0, op[2].host, (size_t)op[2].total * esize(out));
    dlgemm_options_init(&o);
    o.precision = policy;
#ifdef DLGEMM_HAVE_CUDA
    o.stream = stream;
#endif
    if (dlgemm_matmul(&tt[0], &tt[1], &tt[2], alpha, beta, &o) != DLGEMM_OK) {
      fprintf(stderr, "case %d: dlgemm_matmul failed: %s\n", t, dlgemm_last_error());
      return 1;
    }
#ifdef DLGEMM_HAVE_CUDA
    if (on_gpu) {
      CU(cu.StreamSynchronize(stream));
      CU(cu.MemcpyDtoH(op[2].host, d[2], (size_t)op[2].total * esize(out)));
    }
#endif
    for (p = 0; p < batch; p++) {
      const int64_t pa = shp[0][0] == 1 ? 0 : p * str[0][0], pb = shp[1][0] == 1 ? 0 : p * str[1][0];
      const int64_t pc = p * str[2][0];
      int64_t ii, jj, l;
      for (ii = 0; ii < m; ii++)
        for (jj = 0; jj < n; jj++) {
          long double ref = 0, mag = 0, bound;
          const int64_t at = pc + ii * str[2][1] + jj * str[2][2];
          const double got = get(out, op[2].host, at);
          for (l = 0; l < k; l++) {
            const long double x = (long double)get(in, op[0].host, pa + ii * str[0][1] + l * str[0][2]) *
                                  get(in, op[1].host, pb + l * str[1][1] + jj * str[1][2]);
            ref += x;
            mag += fabsl(x);
          }
          ref *= alpha;
          mag *= fabs(alpha);
          if (beta != 0) {
            const long double cv = get(out, c0, at);
            ref += beta * cv;
            mag += fabsl(beta * cv);
          }
          bound = ((long double)(terms * k + 4) * 2 * 5.96e-8 + input_error) * mag +
                  uout * fabsl(ref) + 6e-8;
          if (!(fabsl(got - ref) <= bound)) {
            if (bad < 5)
              fprintf(stderr, "  batch %lld C(%lld,%lld) = %.9g, expected %.9Lg (bound %.3Lg)\n",
                      (long long)p, (long long)ii, (long long)jj, got, ref, bound);
            bad++;
          }
        }
    }
    { /* every element of C's buffer outside C (its leading dimension's
       * padding, the guard after it) as it was */
      char *in_c = calloc((size_t)op[2].total, 1);
      int64_t outside = 0;
      for (p = 0; p < batch; p++)
        for (e = 0; e < m * n; e++) in_c[p * str[2][0] + e % m * str[2][1] + e / m * str[2][2]] = 1;
      for (e = 0; e < op[2].total; e++)
        if (!in_c[e] && memcmp((char *)op[2].host + e * esize(out), (char *)c0 + e * esize(out),
                               esize(out))) {
          if (!outside++)
            fprintf(stderr, "  element %lld of C's buffer, outside C, written\n", (long long)e);
          bad++;
        }
      free(in_c);
    }
    if (bad) {
      failed++;
      fprintf(stderr, "case %d FAILED: %s -> %s, batch=%lld m=%lld n=%lld k=%lld alpha=%g "
              "beta=%g strides A(%lld,%lld) B(%lld,%lld) C(%lld,%lld)\n", t,
              in == 0 ? mode : in == 1 ? "float16" : "bfloat16", out == 0 ? "float32" : out == 1 ? "float16" : "bfloat16",
              (long long)batch, (long long)m, (long long)n, (long long)k, alpha, beta,
              (long long)str[0][1], (long long)str[0][2], (long long)str[1][1],
              (long long)str[1][2], (long long)str[2][1], (long long)str[2][2]);
    }
    for (i = 0; i < 3; i++) {
      free(op[i].host);
#ifdef DLGEMM_HAVE_CUDA
      if (on_gpu) cu.MemFree(d[i]);
#endif
    }
    free(c0);
  }
  printf("test_half %s: %s products\n%d passed, %d failed\n", on_gpu ? "cuda" : "host",
         policy ? mode : "float16/bfloat16", cases - failed, failed);
  return failed != 0;
}
