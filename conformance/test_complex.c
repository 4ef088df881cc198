/*
 * test_complex - dlgemm_matmul on complex64 and complex128 tensors.
 *
 * Random shapes (0, 1, primes, sizes around the GPU's tiles), row- and
 * column-major operands with leading dimensions larger than the matrix,
 * batches of 1 and 3 with broadcast operands, alpha and beta of 0, 1 and
 * others: C full of NaN when beta = 0, A and B when alpha = 0 (neither may
 * be read).  Each element is checked against a long-double product with
 * the bound of a real dot product of 2k terms (what the GPU's 4M embedding
 * sums per part, and more than a complex BLAS rounds), and nothing of C's
 * buffer outside its elements may change.  The first case is always the
 * same batch of three 64 x 64 products (the fault tests count on it), the
 * second a batch of 17 products of 97 x 65 x 129 (the GPU's batched complex
 * path, past the tiny kernels), the third one product of 65 x 33 x 2053
 * (few tiles over a long k: split-K, on the complex DMMA kernels where
 * they are pinned), random layouts and broadcasts.
 *
 *   test_complex host N   host tensors.  With DLGEMM_FORCE=cpu, moreover
 *                         bit for bit what netlib's cgemm_ / zgemm_ give on
 *                         the column-major problem dlgemm hands the next
 *                         BLAS (C row-major: C^T = B^T A^T); with =gpu, on
 *                         the GPU (skips, 77, without a usable CUDA backend)
 *   test_complex cuda N   kDLCUDA tensors (cuMemAlloc) on a non-default
 *                         stream (skips, 77, without a usable CUDA backend)
 */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dlgemm.h"
#include "gpu_probe.h"
#include "testutil.h"
#ifdef DLGEMM_HAVE_CUDA
#include "cudrv.h"
#endif

enum { GUARD = 16 }; /* complex elements after every operand's last */

typedef void (*xgemm_fn)(const char *, const char *, const int *, const int *, const int *,
                         const void *, const void *, const int *, const void *, const int *,
                         const void *, void *, const int *, size_t, size_t);

/* One operand as its tensor describes it; strides in complex elements. */
typedef struct operand {
  int64_t shp[3], str[3]; /* batch (1: broadcast), rows, cols; their strides */
  int64_t total;          /* complex elements of the buffer, GUARD included */
  void *host;
} operand;

static size_t esize(int dbl) { return dbl ? 16 : 8; }

static double get(const void *x, int dbl, int64_t i, int part)
{
  return dbl ? ((const double *)x)[2 * i + part] : ((const float *)x)[2 * i + part];
}

static void put(void *x, int dbl, int64_t i, int part, double v)
{
  if (dbl)
    ((double *)x)[2 * i + part] = v;
  else
    ((float *)x)[2 * i + part] = (float)v;
}

/* Element (i, j) of batch entry p, as an index into the buffer. */
static int64_t at(const operand *x, int64_t p, int64_t i, int64_t j)
{
  return (x->shp[0] > 1 ? p * x->str[0] : 0) + i * x->str[1] + j * x->str[2];
}

/* The layout dlgemm reads from the strides (api/validate.c): 1 for
 * column-major, 0 for row-major, and the leading dimension; an extent of 0
 * or 1 is never stepped along, so its stride is not what decides. */
static int colmajor(const operand *x, int64_t *ld)
{
  const int64_t r = x->shp[1], c = x->shp[2], rs = x->str[1], cs = x->str[2];
  if (!r || !c || (r == 1 && c == 1)) return *ld = r > 1 ? r : 1, 1;
  if (c == 1) return rs == 1 ? (*ld = r, 1) : (*ld = rs, 0);
  if (r == 1) return cs == 1 ? (*ld = c, 0) : (*ld = cs, 1);
  return rs == 1 ? (*ld = cs, 1) : (*ld = rs, 0);
}

/* What the next BLAS computes for the call: its xGEMM per batch entry on
 * the column-major problem, into c. */
static void reference(xgemm_fn f, int dbl, const operand *op, void *c, int64_t batch,
                      const int64_t mnk[3], double alpha, double beta)
{
  int64_t ld[3], p;
  int col[3], i;
  for (i = 0; i < 3; i++) col[i] = colmajor(&op[i], &ld[i]);
  {
    const int first = col[2] ? 0 : 1, second = 1 - first;
    const char t1 = col[first] == col[2] ? 'N' : 'T', t2 = col[second] == col[2] ? 'N' : 'T';
    const int m = (int)mnk[col[2] ? 0 : 1], n = (int)mnk[col[2] ? 1 : 0], k = (int)mnk[2];
    const int l1 = (int)ld[first], l2 = (int)ld[second], lc = (int)ld[2];
    const float fa[2] = {(float)alpha, 0}, fb[2] = {(float)beta, 0};
    const double da[2] = {alpha, 0}, db[2] = {beta, 0};
    for (p = 0; p < batch; p++)
      f(&t1, &t2, &m, &n, &k, dbl ? (const void *)da : fa,
        (char *)op[first].host + at(&op[first], p, 0, 0) * esize(dbl), &l1,
        (char *)op[second].host + at(&op[second], p, 0, 0) * esize(dbl), &l2,
        dbl ? (const void *)db : fb, (char *)c + at(&op[2], p, 0, 0) * esize(dbl), &lc, 1, 1);
  }
}

/* Elements of C outside the bound (the first few printed). */
static long check(int dbl, const operand *op, const void *c0, int64_t batch, const int64_t mnk[3],
                  double alpha, double beta, double slack)
{
  const long double u = dbl ? 0x1p-53L : 0x1p-24L, tiny = dbl ? 1e-300L : 1e-37L;
  long bad = 0;
  int64_t p, i, j, l;
  for (p = 0; p < batch; p++)
    for (i = 0; i < mnk[0]; i++)
      for (j = 0; j < mnk[1]; j++) {
        const int64_t e = at(&op[2], p, i, j);
        long double re = 0, im = 0, mag = 0, bound;
        for (l = 0; l < mnk[2] && alpha != 0; l++) {
          const int64_t ea = at(&op[0], p, i, l), eb = at(&op[1], p, l, j);
          const long double ar = get(op[0].host, dbl, ea, 0), ai = get(op[0].host, dbl, ea, 1);
          const long double br = get(op[1].host, dbl, eb, 0), bi = get(op[1].host, dbl, eb, 1);
          re += ar * br - ai * bi;
          im += ar * bi + ai * br;
          mag += (fabsl(ar) + fabsl(ai)) * (fabsl(br) + fabsl(bi));
        }
        re *= alpha, im *= alpha, mag *= fabs(alpha);
        if (beta != 0) {
          const long double cr = get(c0, dbl, e, 0), ci = get(c0, dbl, e, 1);
          re += beta * cr, im += beta * ci;
          mag += fabs(beta) * (fabsl(cr) + fabsl(ci));
        }
        bound = slack * (long double)(2 * mnk[2] + 4) * u * mag + tiny;
        if (!(fabsl(get(op[2].host, dbl, e, 0) - re) <= bound) ||
            !(fabsl(get(op[2].host, dbl, e, 1) - im) <= bound)) {
          if (bad < 5)
            fprintf(stderr, "  batch %lld C(%lld,%lld) = (%.17g, %.17g), expected (%.17Lg, "
                    "%.17Lg) within %.3Lg\n", (long long)p, (long long)i, (long long)j,
                    get(op[2].host, dbl, e, 0), get(op[2].host, dbl, e, 1), re, im, bound);
          bad++;
        }
      }
  return bad;
}

/* Elements of C's buffer that are not C's and changed. */
static long outside_written(int dbl, const operand *c, const void *c0, int64_t batch,
                            const int64_t mnk[3])
{
  char *mine = calloc((size_t)c->total, 1);
  long bad = 0;
  int64_t p, i, j;
  for (p = 0; p < batch; p++)
    for (i = 0; i < mnk[0]; i++)
      for (j = 0; j < mnk[1]; j++) mine[at(c, p, i, j)] = 1;
  for (i = 0; i < c->total; i++)
    bad += !mine[i] && memcmp((const char *)c->host + i * esize(dbl),
                              (const char *)c0 + i * esize(dbl), esize(dbl));
  free(mine);
  return bad;
}

/* Case t's operands (random, or NaN where they must not be read). */
static void draw(rng *r, int t, int *dbl, int64_t *batch, int64_t mnk[3], double *alpha,
                 double *beta, operand *op)
{
  static const int sizes[] = {0, 1, 2, 3, 7, 13, 31, 33, 64, 97, 129, 257};
  static const double alphas[] = {1, 0, -0.7, 2.5}, betas[] = {0, 1, 0.5, -1.25};
  static const int64_t fixed[2][3] = {{97, 65, 129}, {65, 33, 2053}}; /* m, n, k of cases 1, 2 */
  int i;
  *dbl = t ? rng_int(r, 2) : 0;
  *batch = t == 0 ? 3 : t == 1 ? 17 : t == 2 ? 1 : rng_int(r, 2) ? 3 : 1;
  for (i = 0; i < 3; i++)
    mnk[i] = t == 1 || t == 2 ? fixed[t - 1][i] : t ? sizes[rng_int(r, 12)] : 64;
  *alpha = t ? alphas[rng_int(r, 4)] : 1, *beta = t ? betas[rng_int(r, 4)] : 0.5;
  for (i = 0; i < 3; i++) {
    const int64_t rows = mnk[i == 1 ? 2 : 0], cols = mnk[i == 0 ? 2 : 1];
    const int col = t ? rng_int(r, 2) : 1, bcast = t && i < 2 && rng_int(r, 3) == 0;
    const int64_t ld = (col ? rows : cols) + (t ? rng_int(r, 4) : 0);
    const int64_t matrix = (ld > 1 ? ld : 1) * (col ? cols : rows) + (t ? rng_int(r, 3) : 0);
    const int nan = i == 2 ? *beta == 0 : *alpha == 0;
    int64_t e;
    operand *x = &op[i];
    x->shp[0] = bcast ? 1 : *batch, x->shp[1] = rows, x->shp[2] = cols;
    x->str[0] = matrix, x->str[1] = col ? 1 : (ld > 1 ? ld : 1), x->str[2] = col ? ld : 1;
    if (!x->str[2]) x->str[2] = 1;
    x->total = matrix * x->shp[0] + GUARD;
    x->host = malloc((size_t)x->total * esize(*dbl));
    for (e = 0; e < x->total; e++)
      for (int part = 0; part < 2; part++) put(x->host, *dbl, e, part, nan ? NAN : rng_unit(r));
  }
}

/* Where a case's tensors live: host memory, or (cuda) copies on the
 * device, multiplied on a non-default stream; the call's options. */
typedef struct place {
  int device;
  dlgemm_options opts;
#ifdef DLGEMM_HAVE_CUDA
  cudrv cu;
  CUdeviceptr d[3];
#endif
} place;

static void place_open(place *pl, int device)
{
  pl->device = device;
  dlgemm_options_init(&pl->opts);
#ifdef DLGEMM_HAVE_CUDA
  if (device) {
    CUcontext ctx;
    CUstream stream;
    cudrv_load(&pl->cu, &ctx);
    CU(pl->cu.StreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    pl->opts.stream = stream;
  }
#endif
}

/* The tensors to the device, in cuda mode. */
static void place_tensors(place *pl, DLTensor *tt, const operand *op, int dbl)
{
#ifdef DLGEMM_HAVE_CUDA
  if (!pl->device) return;
  for (int i = 0; i < 3; i++)
    pl->d[i] = cudrv_tensor_to_device(&pl->cu, &tt[i], (size_t)op[i].total * esize(dbl));
  CU(pl->cu.StreamSynchronize(NULL)); /* the copies from pageable memory have landed */
#else
  (void)pl, (void)tt, (void)op, (void)dbl;
#endif
}

/* dlgemm's product, C's buffer (bytes) back in c when on the device: 0, or
 * 1 when the call failed. */
static int product(place *pl, DLTensor *tt, void *c, size_t bytes, double alpha, double beta)
{
  if (dlgemm_matmul(&tt[0], &tt[1], &tt[2], alpha, beta, &pl->opts) != DLGEMM_OK) {
    fprintf(stderr, "dlgemm_matmul failed: %s\n", dlgemm_last_error());
    return 1;
  }
#ifdef DLGEMM_HAVE_CUDA
  if (pl->device) {
    CU(pl->cu.StreamSynchronize(pl->opts.stream)); /* only the caller's stream */
    CU(pl->cu.MemcpyDtoH(c, pl->d[2], bytes));
    for (int i = 0; i < 3; i++) pl->cu.MemFree(pl->d[i]);
  }
#else
  (void)c, (void)bytes;
#endif
  return 0;
}

int main(int argc, char **argv)
{
  const int on_device = argc > 1 && !strcmp(argv[1], "cuda");
  const int cases = argc > 2 ? atoi(argv[2]) : 100;
  const char *force = getenv("DLGEMM_FORCE");
  const int bitwise = !on_device && force && !strcmp(force, "cpu");
  const int gpu = on_device || (force && !strcmp(force, "gpu"));
  void *ref = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
  rng r = {test_seed("test_complex")};
  place pl;
  int t, failed = 0;
  if (argc < 2 || (!on_device && strcmp(argv[1], "host"))) {
    fprintf(stderr, "usage: test_complex host|cuda [cases]\n");
    return 2;
  }
  if (bitwise && !ref) {
    printf("SKIP: test_complex: netlib's libblas.so.3 is not installed\n");
    return 77;
  }
#ifndef DLGEMM_HAVE_CUDA
  if (on_device) {
    printf("SKIP: test_complex cuda: built without the CUDA backend\n");
    return 77;
  }
#endif
  if (gpu && getenv("DLGEMM_INJECT_FAULT")) {
    /* a fault test counts the library's GPU events from its first call:
     * the driver says whether there is a GPU instead */
    if (!driver_has_gpu()) {
      printf("SKIP: test_complex: the driver sees no GPU\n");
      return 77;
    }
  } else if (gpu && !cuda_backend_usable("test_complex")) {
    return 77;
  }
  place_open(&pl, on_device);
  for (t = 0; t < cases; t++) {
    int dbl, i, all_flat;
    int64_t batch, mnk[3];
    double alpha, beta;
    operand op[3];
    DLTensor tt[3];
    void *c0, *cref;
    size_t cbytes;
    long bad = 0;
    draw(&r, t, &dbl, &batch, mnk, &alpha, &beta, op);
    cbytes = (size_t)op[2].total * esize(dbl);
    all_flat = batch == 1 && rng_int(&r, 2);
    for (i = 0; i < 3; i++) {
      /* 2-D tensors: all three, or broadcast operands beside a 3-D C */
      const int flat = all_flat || (op[i].shp[0] < batch && rng_int(&r, 2));
      tt[i] = (DLTensor){op[i].host, {kDLCPU, 0}, flat ? 2 : 3,
                         {kDLComplex, (uint8_t)(dbl ? 128 : 64), 1}, op[i].shp + flat,
                         op[i].str + flat, 0};
    }
    c0 = malloc(cbytes), cref = malloc(cbytes);
    memcpy(c0, op[2].host, cbytes);
    memcpy(cref, op[2].host, cbytes);
    place_tensors(&pl, tt, op, dbl);
    if (product(&pl, tt, op[2].host, cbytes, alpha, beta)) return 1;
    bad += check(dbl, op, c0, batch, mnk, alpha, beta, gpu ? 2 : 1);
    if (outside_written(dbl, &op[2], c0, batch, mnk))
      fprintf(stderr, "  elements of C's buffer outside C written\n"), bad++;
    if (bitwise) {
      reference((xgemm_fn)dlsym(ref, dbl ? "zgemm_" : "cgemm_"), dbl, op, cref, batch, mnk,
                alpha, beta);
      if (memcmp(cref, op[2].host, cbytes))
        fprintf(stderr, "  not bit for bit netlib's %s\n", dbl ? "zgemm_" : "cgemm_"), bad++;
    }
    if (bad) {
      failed++;
      fprintf(stderr, "case %d FAILED: %s batch=%lld m=%lld n=%lld k=%lld alpha=%g beta=%g "
              "strides A(%lld,%lld,%lld) B(%lld,%lld,%lld) C(%lld,%lld,%lld)\n", t,
              dbl ? "complex128" : "complex64", (long long)batch, (long long)mnk[0],
              (long long)mnk[1], (long long)mnk[2], alpha, beta, (long long)op[0].str[0],
              (long long)op[0].str[1], (long long)op[0].str[2], (long long)op[1].str[0],
              (long long)op[1].str[1], (long long)op[1].str[2], (long long)op[2].str[0],
              (long long)op[2].str[1], (long long)op[2].str[2]);
    }
    for (i = 0; i < 3; i++) free(op[i].host);
    free(c0), free(cref);
  }
  printf("test_complex %s: complex64 / complex128 products (%s)\n%d passed, %d failed\n",
         argv[1], bitwise ? "bit for bit netlib's" : gpu ? "GPU, within bounds" : "within bounds",
         cases - failed, failed);
  return failed != 0;
}
