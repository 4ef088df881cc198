/*
 * fuzz_dlpack - libFuzzer target for dlgemm_matmul, with an oracle written
 * from the contract in dlgemm.h, not from validate.c:
 *   - every failure leaves all memory as it was and says why (a message);
 *   - a tensor that reaches past the end of the address space, shapes that
 *     do not agree, an ndim other than 2 or 3, C sharing a byte with A or B:
 *     each is a failure;
 *   - a success wrote only C's elements, each alpha * A B + beta * C (C not
 *     read when beta is 0, A and B not read when alpha is 0), within the
 *     rounding of the dtype.
 * Tensors are built from the input bytes inside three arenas; a tensor that
 * would lawfully reach outside them (a large stride that does not wrap) is
 * not passed at all, since dlgemm cannot know the arena's end and would
 * rightly touch it.  Run by tools/sanitize.sh fuzz (ASan + UBSan).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dlgemm.h"

enum { ARENA = 2048, MAXE = 4096 };
typedef __int128 i128;

typedef struct reader { const uint8_t *p; size_t n; } reader;
static unsigned byte(reader *r)
{
  if (!r->n) return 0;
  r->n--;
  return *r->p++;
}

static const int64_t huge[8] = {(int64_t)1 << 32, (int64_t)1 << 61, (int64_t)1 << 62,
                                INT64_MAX, INT64_MAX / 2 + 1, (int64_t)1 << 40, 1 << 20, 3};

static int64_t extent_value(reader *r, int allow_negative)
{
  unsigned b = byte(r);
  if (b < 200) return b % 7;
  if (b < 240) return b % 41;
  if (allow_negative && b < 246) return -(int64_t)(b % 5) - 1;
  return huge[b % 8];
}

static int64_t clamp(i128 x) { return x > INT64_MAX ? INT64_MAX : (int64_t)x; }

/* 1 to most, or now and then 0 */
static int64_t dim(reader *r, int most)
{
  unsigned b = byte(r);
  return b >= 250 ? 0 : 1 + (int64_t)(b % (unsigned)most);
}

static const DLDataType dtypes[8] = {{kDLFloat, 32, 1}, {kDLFloat, 64, 1}, {kDLFloat, 16, 1},
                                     {kDLBfloat, 16, 1}, {kDLFloat, 32, 1}, {kDLFloat, 32, 1},
                                     {kDLInt, 32, 1},    {kDLFloat, 32, 2}};

typedef struct operand {
  DLTensor t;
  int64_t shape[4], strides[4];
  /* the oracle's own reading: batch, rows, cols and element strides */
  int ok_ndim;
  int64_t batch, rows, cols, bs, rs, cs;
  i128 first, last_byte; /* addresses, in 128 bits: no wrap */
  int empty, wraps;
} operand;

static uint8_t *arenas[3];

static double load(const DLDataType d, const void *p)
{
  if (d.code == kDLFloat && d.bits == 32) return *(const float *)p;
  if (d.code == kDLFloat && d.bits == 64) return *(const double *)p;
  uint16_t h = *(const uint16_t *)p;
  if (d.code == kDLBfloat) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return (h & 0x8000) ? -v : v;
}

/* One operand meant to be batch x rows x cols; now and then a dimension,
 * the ndim or a stride is replaced by an arbitrary value (most of which the
 * contract refuses), so both sides of every check are reached. */
static void build(reader *r, operand *o, int which, int dtype_choice, int64_t batch, int64_t rows,
                  int64_t cols)
{
  unsigned b = byte(r);
  int i, nd;
  int64_t want[3] = {batch, rows, cols};
  memset(o, 0, sizeof *o);
  nd = (b & 15) == 15 ? (int)(b >> 4) % 5 : batch == 1 && !(b & 16) ? 2 : 3;
  o->t.ndim = nd;
  o->t.dtype = dtypes[dtype_choice];
  o->t.device = (DLDevice){(b & 0xe0) == 0xe0 ? kDLOpenCL : (b & 0xe0) == 0xc0 ? kDLCUDAHost
                                                                                 : kDLCPU, 0};
  o->t.shape = o->shape;
  for (i = 0; i < nd && i < 4; i++) {
    o->shape[i] = nd >= 2 && nd <= 3 ? want[3 - nd + i] : 1;
    if (byte(r) >= 248) o->shape[i] = extent_value(r, byte(r) > 250);
  }
  b = byte(r);
  if (b & 1) { /* explicit strides: a row- or column-major layout with padding, or anything */
    const int64_t pad = (b >> 1) & 3;
    o->t.strides = o->strides;
    if (nd >= 2 && nd <= 3) {
      const i128 R = o->shape[nd - 2], Cc = o->shape[nd - 1];
      if (b & 8) o->strides[nd - 1] = 1, o->strides[nd - 2] = clamp(Cc + pad);
      else o->strides[nd - 2] = 1, o->strides[nd - 1] = clamp(R + pad);
      if (nd == 3) o->strides[0] = clamp((R + pad) * (Cc + pad) + ((b >> 4) & 1));
    }
    for (i = 0; i < nd && i < 4; i++)
      if (byte(r) >= 244) o->strides[i] = extent_value(r, 1);
  }
  b = byte(r);
  o->t.byte_offset = b < 240 ? (uint64_t)(b % 16) * (o->t.dtype.bits / 8)
                             : b < 250 ? (uint64_t)b % 3 : UINT64_MAX - (uint64_t)(b % 4) * 4;
  b = byte(r);
  if (b == 255) o->t.data = NULL;
  else o->t.data = arenas[b < 230 ? which : b % 3] + (byte(r) % 32) * 8;
}

/* The oracle's reading of one operand. */
static void read_operand(operand *o)
{
  const int nd = o->t.ndim;
  const int64_t es = o->t.dtype.bits / 8;
  o->ok_ndim = nd == 2 || nd == 3;
  if (!o->ok_ndim) return;
  o->batch = nd == 3 ? o->shape[0] : 1;
  o->rows = o->shape[nd - 2];
  o->cols = o->shape[nd - 1];
  o->empty = !o->batch || !o->rows || !o->cols;
  if (o->t.strides) {
    o->bs = nd == 3 ? o->strides[0] : 0, o->rs = o->strides[nd - 2], o->cs = o->strides[nd - 1];
  } else {
    o->cs = 1, o->rs = o->cols;
    const i128 plane = (i128)o->rows * o->cols;
    o->bs = plane > INT64_MAX || plane < 0 ? -1 : (int64_t)plane;
  }
  if (o->empty || !o->t.data) return;
  o->first = (i128)(uintptr_t)o->t.data + o->t.byte_offset;
  {
    const i128 t[3] = {(i128)(o->batch - 1) * (o->batch > 1 ? o->bs : 0),
                       (i128)(o->rows - 1) * (o->rows > 1 ? o->rs : 0),
                       (i128)(o->cols - 1) * (o->cols > 1 ? o->cs : 0)};
    const i128 lim = (i128)1 << 100; /* each term is below 2^126: their sum cannot wrap */
    i128 last;
    if (t[0] > lim || t[1] > lim || t[2] > lim || t[0] < -lim || t[1] < -lim || t[2] < -lim) {
      o->wraps = 1;
      return;
    }
    last = t[0] + t[1] + t[2];
    o->last_byte = o->first + (last + 1) * es - 1;
    o->wraps = o->last_byte >= ((i128)1 << 64) || last > INT64_MAX || o->bs < 0;
  }
}

static int inside_arenas(const operand *o)
{
  int i;
  if (o->empty || !o->t.data || o->wraps) return 1;
  if (o->rs < 0 || o->cs < 0 || o->bs < 0) return 1; /* refused: negative strides */
  for (i = 0; i < 3; i++)
    if (o->first >= (i128)(uintptr_t)arenas[i] && o->last_byte < (i128)(uintptr_t)arenas[i] + ARENA)
      return 1;
  return 0;
}

static uintptr_t element(const operand *o, int64_t b, int64_t i, int64_t j)
{
  int64_t bb = o->batch == 1 ? 0 : b;
  return (uintptr_t)o->first + (uintptr_t)((bb * o->bs + i * o->rs + j * o->cs) * (o->t.dtype.bits / 8));
}

static int shares_byte(const operand *x, const operand *y)
{
  if (x->empty || y->empty || !x->t.data || !y->t.data) return 0;
  const int64_t xe = x->t.dtype.bits / 8, ye = y->t.dtype.bits / 8;
  if (x->batch * x->rows * x->cols > MAXE || y->batch * y->rows * y->cols > MAXE) return 0;
  for (int64_t b = 0; b < x->batch; b++)
    for (int64_t i = 0; i < x->rows; i++)
      for (int64_t j = 0; j < x->cols; j++) {
        uintptr_t p = element(x, b, i, j);
        for (int64_t c = 0; c < y->batch; c++)
          for (int64_t k = 0; k < y->rows; k++)
            for (int64_t l = 0; l < y->cols; l++) {
              uintptr_t q = element(y, c, k, l);
              if (p < q + (uintptr_t)ye && q < p + (uintptr_t)xe) return 1;
            }
      }
  return 0;
}

static void fail(const char *why)
{
  fprintf(stderr, "fuzz_dlpack: %s\n", why);
  __builtin_trap();
}

/* What the runs covered, printed at exit: a fuzzer whose inputs all fail
 * validation would test nothing else. */
static long n_skipped, n_refused, n_ok, n_checked;
static void report(void)
{
  fprintf(stderr, "fuzz_dlpack: %ld calls refused, %ld accepted (%ld products checked element by "
          "element), %ld inputs not passed (they reach outside the arenas)\n", n_refused, n_ok,
          n_checked, n_skipped);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static uint8_t before[3][ARENA];
  static const double scalars[8] = {1, 0, -1.5, 2, 0.5, NAN, INFINITY, 1e-3};
  reader r = {data, size};
  operand A, B, C;
  unsigned b = byte(&r), in = b % 8, out;
  double alpha = scalars[byte(&r) % 8], beta = scalars[byte(&r) % 8];
  dlgemm_status st;
  int i, changed_outside_c = 0;
  if (!arenas[0]) {
    for (i = 0; i < 3; i++) arenas[i] = aligned_alloc(64, ARENA);
    atexit(report);
  }
  { /* contents: mostly ordinary values, NaN bytes (0xff) at a density the input picks */
    const unsigned nan_every = 2 + byte(&r) % 61, zero_every = 2 + byte(&r) % 7;
    for (i = 0; i < 3; i++)
      for (int j = 0; j < ARENA; j++)
        arenas[i][j] = (uint8_t)((unsigned)(j * 131 + i * 7) % nan_every == 0 ? 0xff
                                 : (unsigned)(j * 17 + i) % zero_every == 0 ? 0 : 0x3c);
  }
  out = (b >> 3) % 4 == 0 ? byte(&r) % 8 : in; /* mostly one dtype throughout */
  {
    /* short inputs read zeros: they make a 1 x 1 x 1 product, not an empty one */
    const int64_t batch = dim(&r, 3), m = dim(&r, 6), n = dim(&r, 6), k = dim(&r, 6);
    const unsigned bc = byte(&r); /* A or B broadcast over the batch */
    build(&r, &A, 0, (int)in, bc & 1 ? 1 : batch, m, k);
    build(&r, &B, 1, (int)in, bc & 2 ? 1 : batch, k, n);
    build(&r, &C, 2, (int)out, batch, m, n);
  }
  read_operand(&A), read_operand(&B), read_operand(&C);
  if (!inside_arenas(&A) || !inside_arenas(&B) || !inside_arenas(&C)) {
    n_skipped++;
    return 0;
  }
  for (i = 0; i < 3; i++) memcpy(before[i], arenas[i], ARENA);

  st = dlgemm_matmul(&A.t, &B.t, &C.t, alpha, beta, NULL);

  if (st != DLGEMM_OK) {
    n_refused++;
    if (st < 0 || st > 20 || !dlgemm_last_error()[0]) fail("failure without a message");
    for (i = 0; i < 3; i++)
      if (memcmp(before[i], arenas[i], ARENA)) fail("a failed call wrote memory");
    return 0;
  }
  n_ok++;
  /* Success: what the contract says must have been refused was not. */
  if (!A.ok_ndim || !B.ok_ndim || !C.ok_ndim) fail("ndim other than 2 or 3 accepted");
  if (A.wraps || B.wraps || C.wraps) fail("a tensor past the address space accepted");
  if (A.rows != C.rows || B.cols != C.cols || A.cols != B.rows)
    fail("shapes that do not agree accepted");
  if ((A.batch != 1 && A.batch != C.batch) || (B.batch != 1 && B.batch != C.batch) ||
      (C.t.ndim == 2 && (A.t.ndim == 3 || B.t.ndim == 3)))
    fail("batches that do not agree accepted");
  if (A.cols && (shares_byte(&C, &A) || shares_byte(&C, &B))) fail("C sharing A's or B's memory accepted");
  if (C.empty || C.batch * C.rows * C.cols > MAXE) return 0;
  n_checked++;
  /* Only C's elements changed, each to the product. */
  {
    static uint8_t mask[3][ARENA];
    memset(mask, 0, sizeof mask);
    for (int64_t bb = 0; bb < C.batch; bb++)
      for (int64_t ii = 0; ii < C.rows; ii++)
        for (int64_t jj = 0; jj < C.cols; jj++) {
          uintptr_t p = element(&C, bb, ii, jj);
          double sum = 0, mag = 0, old = 0, want, got, big = 0;
          const double tiny = C.t.dtype.bits == 64 ? 1e-300 : 1e-30;
          int finite = isfinite(alpha) && isfinite(beta);
          for (i = 0; i < 3; i++)
            if (p >= (uintptr_t)arenas[i] && p < (uintptr_t)arenas[i] + ARENA) {
              memset(&mask[i][p - (uintptr_t)arenas[i]], 1, (size_t)C.t.dtype.bits / 8);
              old = load(C.t.dtype, &before[i][p - (uintptr_t)arenas[i]]);
            }
          if (beta != 0) finite &= isfinite(old); /* beta = 0: C is not read */
          if (alpha != 0)                         /* alpha = 0: A and B are not read */
            for (int64_t l = 0; l < A.cols; l++) {
              double x = load(A.t.dtype, (void *)element(&A, bb, ii, l));
              double y = load(B.t.dtype, (void *)element(&B, bb, l, jj));
              finite &= isfinite(x) && isfinite(y);
              sum += x * y, mag += fabs(x * y);
              big = fmax(big, fmax(fabs(alpha) * fmax(fabs(x), fabs(y)), fmax(fabs(x * y), fabs(alpha * x * y))));
              /* and one that is subnormal in C's precision loses digits lawfully */
              if ((x != 0 && fabs(alpha * x) < tiny) || (y != 0 && fabs(alpha * y) < tiny) ||
                  (x * y != 0 && fabs(x * y) < tiny))
                finite = 0;
            }
          want = (alpha != 0 ? alpha * sum : 0) + (beta != 0 ? beta * old : 0);
          got = load(C.t.dtype, (void *)p);
          /* Non-finite operands: which NaN or Inf comes out depends on the
           * order of the operations, which BLAS leaves free. */
          /* and sums near the top of C's range may lawfully overflow there */
          const double top = C.t.dtype.bits == 64 ? 1e300 : C.t.dtype.bits == 32 || C.t.dtype.code == kDLBfloat ? 1e37 : 6e4;
          /* (any intermediate, in whatever order: BLAS may scale B by alpha first) */
          big = fmax(big, fmax(fabs(alpha) * mag, beta != 0 ? fabs(beta * old) : 0));
          if (finite && isfinite(want) && big * (double)(A.cols + 2) < top) {
            double tol = (C.t.dtype.bits == 64 ? 1e-12 : C.t.dtype.bits == 32 ? 1e-5 : 1e-2) *
                         (fabs(alpha) * mag + (beta != 0 ? fabs(beta * old) : 0)) +
                         (C.t.dtype.code == kDLFloat && C.t.dtype.bits == 16 ? 6e-8 : 1e-30); /* float16 subnormals */
            if (!(fabs(want - got) <= tol)) {
              fprintf(stderr, "fuzz_dlpack: C[%lld][%lld][%lld] is %g, alpha %g A B + beta %g C "
                      "is %.9g (dtypes A %d/%d, C %d/%d, k %lld; sum %.9g, old C %.9g)\n",
                      (long long)bb, (long long)ii, (long long)jj, got, alpha, beta, want,
                      A.t.dtype.code, A.t.dtype.bits, C.t.dtype.code, C.t.dtype.bits,
                      (long long)A.cols, sum, old);
              fail("wrong product");
            }
          }
        }
    for (i = 0; i < 3; i++)
      for (int j = 0; j < ARENA; j++)
        if (!mask[i][j] && before[i][j] != arenas[i][j]) changed_outside_c = 1;
    if (changed_outside_c) fail("bytes outside C's elements written");
  }
  return 0;
}
