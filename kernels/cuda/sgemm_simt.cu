/*
 * sgemm_simt.cu - strict FP32 SIMT GEMM in the lineage of maxas's sgemm128.
 *
 * The kernel knows tiles, not layouts: it computes the column-major product
 * C = alpha * op(A) op(B) + beta * C, where the backend has already turned
 * every layout into that form (a row-major C is computed as C^T = B^T A^T).
 * What remains to choose at compile time is which dimension of A and of B
 * is contiguous in memory, because it decides how tiles are loaded:
 *   A_KC: A(i,l) = A[i*lda + l]  (k contiguous)   else A[i + l*lda] (m contiguous)
 *   B_KC: B(l,j) = B[l + j*ldb]  (k contiguous)   else B[l*ldb + j] (n contiguous)
 *
 * Why the layout is what it is (the 128 x 128 tile; the others scale it):
 *
 * - 256 threads = 8 warps as 2 (m) x 4 (n); within a warp, 8 (m) x 4 (n)
 *   lanes.  A thread's row offset is wm*32 + lm*4, its column offset
 *   wn*16 + ln*4, and it owns an 8 x 8 block of C held as four 4 x 4
 *   quadrants at those offsets and +64 in each direction (BM/64 x BN/64
 *   quadrants in general: 8 x 16 for the 128 x 256 tile).  Splitting the
 *   rows into groups 64 apart (rather than 8 consecutive rows) is what lets
 *   fragment loads be 128-bit and conflict-free; the 8 x 4 warp shape is
 *   what makes each of them cheap: a warp's A fragment is 8 distinct float4
 *   (128 contiguous bytes, one shared-memory wavefront) and its B fragment 4
 *   distinct float4 (64 bytes), each broadcast to the lanes that share it.
 * - Per k a thread issues 64 FFMA against 4 LDS.128 (two for A, two for B).
 *   What else the loop issues is per tile of BK: the copies of the next
 *   tile, their addresses, one barrier, the stage rotation.  Measured on the
 *   H100 that came to ~85 instructions per tile, so the 128 x 128 tile steps
 *   k by 16 (1024 FFMA per tile) to halve their share.  What is left of
 *   them (105-114 per 1024 FFMA: 64 LDS.128, the copies, their 64-bit
 *   addresses, the barrier and the loop) is cut where it costs no code:
 *   unrolling the tile loop by the stage count removed the stage rotation
 *   outright but tripled the loop to 54 KB, and the warps then stalled on
 *   instruction fetch (ncu: 0.27 "no instruction" stalls per issue against
 *   0.02) and ran 3% slower (bench/NOTES.md).
 * - Global -> shared copies are asynchronous (cp.async, LDGSTS): no staging
 *   registers, so 64 accumulators + 2 x 16 fragments + addresses fit the 128
 *   registers of __launch_bounds__(256, 2) without spilling (the register-
 *   staged version spilled), and STAGES tiles are in flight at once, which
 *   hides global latency two tiles deep rather than one.
 * - Tiles sit in shared memory as s[k][row], rows padded by 4 floats: the
 *   k-contiguous copies write 4-byte words whose banks (4k + row) mod 32 are
 *   then all distinct, and fragment reads stay 16-byte aligned.
 * - One barrier per tile, at maxas's place: inside the last k step, after
 *   that step's fragments are in registers and before its FFMAs, followed at
 *   once by the next tile's first fragment loads, which the FFMAs then hide
 *   (measured on v2: 31% of stalls were the fragment wait after a barrier
 *   placed at the end of the step).  The barrier also frees the stage just
 *   consumed; it is refilled at the start of the next tile, where only one
 *   fragment set is live, so the copy addresses do not spill either.
 * - Fragments are read one k ahead (double-buffered registers) so that the
 *   FFMA of step kk never waits for the LDS of step kk.
 * - A block wholly inside the matrix, with 16-byte aligned operands, copies
 *   its full tiles with no test at all; edge blocks and the k tail take a
 *   guarded path that zero-fills, so any m, n, k is exact.
 * - The epilogue applies alpha and beta in FP32; beta == 0 never reads C, so
 *   NaN in C does not propagate (BLAS semantics).
 *
 * Split-K: blockIdx.z enumerates (batch, split).  With splits > 1 each split
 * multiplies a k-range and writes alpha * partial into a workspace; the
 * reduce kernel then adds the splits in a fixed order (deterministic) and
 * applies beta.
 *
 * Complex64 (the dlg_csimt_* kernels) is the same tile product on C's
 * interleaved storage: a complex tile of BM x BN is the real tile of 2BM x
 * 2BN, whose rows and columns of floats are re, im, re, im..., so the
 * copiers, stages and fragments are the real ones (a k-contiguous operand's
 * elements copied 8 bytes at a time, ccopier) and a fragment's float4 is
 * two complex elements.  A thread's QM*4 x QN*4 floats of A and B make
 * (QM*2) x (QN*2) complex products of 4 FFMA each: the real tile's FFMAs
 * per fragment load with half its accumulators, the reason a complex GEMM
 * can outrun a real one of the same flops (cuBLAS's CGEMM ran 5-15% ahead
 * of the real embedding on our SGEMM tiles, H200, session 37).  conj
 * costs nothing in the loop: x conj(y) is the _x kernels' sign pattern, and
 * conj(x) y = conj(x conj(y)), conj(x) conj(y) = conj(x y) conjugate the
 * sum once in the epilogue (conj_c).
 *
 * Stream-K (the dlg_sgemm_streamk_* kernels): the same tile product, with blockIdx.x
 * enumerating whole tiles for the data-parallel waves and then equal shares of the last
 * waves' k-work (gemm_streamk); the block that finishes a split tile's last
 * share adds the shares up, in block order.
 */
#include <stdint.h>

#include "in_place.cuh"
#include "sgemm_args.h"

#define THREADS 256
#define PAD DLG_SGEMM_PAD

typedef dlg_sgemm_args gemm_args;

template <bool B> struct flag { static constexpr bool value = B; };

/* in_place (in_place.cuh) on the guarded copies' per-thread values: they
 * are loop-invariant, and hoisted to the kernel's entry they stay live
 * through the main loop (on sm_86/89 that spilled them).  Recomputed where
 * used, they cost a few instructions in the loop that runs for edge tiles. */


/* Asynchronous global -> shared copies (LDGSTS, sm_80+): the data goes to
 * shared memory without passing through registers.  copy4_zfill copies
 * `bytes` (0 or 4) and fills the rest with zeros. */
static __device__ __forceinline__ unsigned smem_addr(const void *p)
{
  return (unsigned)__cvta_generic_to_shared(p);
}
static __device__ __forceinline__ void copy4(unsigned dst, const float *src)
{
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
}
static __device__ __forceinline__ void copy4_zfill(unsigned dst, const float *src, unsigned bytes)
{
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(bytes)
               : "memory");
}
static __device__ __forceinline__ void copy8_zfill(unsigned dst, const float *src, unsigned bytes)
{
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src), "r"(bytes)
               : "memory");
}
static __device__ __forceinline__ void copy16(unsigned dst, const float *src)
{
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
static __device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int PENDING>
static __device__ __forceinline__ void copy_wait()
{
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

/* Copiers: one operand's ROWS x BK tile per call, to shared memory as
 * s[kk][row] (row stride ROWS + PAD floats), from a matrix whose contiguous
 * dimension is k (KC) or the row dimension.  full() copies a tile known to
 * be wholly inside the matrix, unconditionally; guarded() zero-fills what
 * lies past the matrix edge or the end of k, giving zero-byte copies the
 * always-readable address `safe` (the matrix origin).  Both then step to
 * the next tile. */
template <int ROWS, int BK, bool KC> struct copier;

/* k-contiguous: each row holds BK consecutive floats per tile.  Lane l
 * copies row l/8, k l%8 (+8 for the second half of a 16-deep tile): a warp
 * reads 4 whole 32-byte sectors and writes shared words (4k + row) mod 32,
 * 32 distinct banks, because the row stride ROWS + 4 shifts each k by 4
 * banks.  A thread's rows are 32 apart; one pointer and the leading
 * dimension reach them all. */
template <int ROWS, int BK> struct copier<ROWS, BK, true> {
  enum { G = ROWS / 32,     /* row groups per thread */
         H = BK / 8,        /* 8-float halves of a row per tile */
         KSTRIDE = (ROWS + PAD) * 4 };
  const float *ptr; /* row row0 + tid/8, k tid%8, of the next tile */
  unsigned sofs;    /* that element's byte offset in a stage */

  __device__ __forceinline__ void init(const float *base, long long ld, int row0, int)
  {
    ptr = base + (long long)(row0 + (int)threadIdx.x / 8) * ld + threadIdx.x % 8;
    sofs = (threadIdx.x % 8) * KSTRIDE + (threadIdx.x / 8) * 4;
  }
  static __device__ __forceinline__ bool interior(int row0, int rows, int) { return rows - row0 >= ROWS; }

  __device__ __forceinline__ void full(unsigned s, long long ld)
  {
    s += sofs;
    /* The row groups' addresses as a chain of 64-bit adds of one uniform
     * stride, in PTX: left to the compiler, the first became a shift of a
     * copy of the stride into a register (3 instructions, not 2).  The
     * pointer steps first and the copies reach back by immediate offsets,
     * so the old value need not be kept (it was, in a copied pair). */
    ptr += BK;
    const long long gs = ld * 32 * 4;
    const float *src = ptr;
#pragma unroll
    for (int g = 0; g < G; g++) {
#pragma unroll
      for (int h = 0; h < H; h++) copy4(s + h * 8 * KSTRIDE + g * 32 * 4, src + h * 8 - BK);
      if (g + 1 < G) asm("add.s64 %0, %0, %1;" : "+l"(src) : "l"(gs));
    }
  }

  __device__ __forceinline__ void guarded(unsigned s, int klen_left, long long ld, int row0, int rows,
                                          const float *safe)
  {
    /* the thread's k and row, recovered from sofs: registers are dear */
    const unsigned o = in_place(sofs);
    const int kk = o / KSTRIDE, r = row0 + (int)(o % KSTRIDE) / 4;
    s += sofs;
#pragma unroll
    for (int g = 0; g < G; g++) {
#pragma unroll
      for (int h = 0; h < H; h++) {
        const bool in = kk + h * 8 < klen_left && rows - r > 32 * g;
        copy4_zfill(s + h * 8 * KSTRIDE + g * 32 * 4, in ? ptr + g * 32 * ld + h * 8 : safe, in ? 4 : 0);
      }
    }
    ptr += BK;
  }
};

/* row-contiguous: each k holds ROWS consecutive floats; a thread copies 4 of
 * them (16 bytes when the matrix allows it) for BK * ROWS / 1024 k. */
template <int ROWS, int BK> struct copier<ROWS, BK, false> {
  enum { V = ROWS / 4,                            /* float4 per k */
         KP = THREADS / V > BK ? BK : THREADS / V, /* k per pass of all threads */
         NP = BK / KP };
  const float *ptr; /* this thread's 4 rows (clamped to the last) at its k */

  static __device__ __forceinline__ bool active() { return V * BK >= THREADS || threadIdx.x < V * BK; }
  static __device__ __forceinline__ int first_row(int row0, unsigned tid = threadIdx.x)
  {
    return row0 + (int)(tid % V) * 4;
  }
  static __device__ __forceinline__ unsigned sofs()
  {
    return ((threadIdx.x / V) * (ROWS + PAD) + (threadIdx.x % V) * 4) * 4;
  }

  __device__ __forceinline__ void init(const float *base, long long ld, int row0, int rows)
  {
    ptr = base + (long long)(threadIdx.x / V) * ld + min(first_row(row0), rows - 1);
  }
  static __device__ __forceinline__ bool interior(int row0, int rows, int vec)
  {
    return vec && rows - row0 >= ROWS;
  }

  /* ld: the host keeps BK * ld below 2^31. */
  __device__ __forceinline__ void full(unsigned s, long long ld)
  {
    if (active()) {
      const float *src = ptr; /* stepped, not indexed: no per-pass offsets to keep */
#pragma unroll
      for (int i = 0; i < NP; i++, src += KP * (int)ld) copy16(s + sofs() + i * KP * (ROWS + PAD) * 4, src);
    }
    ptr += BK * (int)ld;
  }

  /* Single floats only, aligned or not: this path runs for edge blocks and
   * the k tail, and a 16-byte branch here pushes the 128 x 128 rr kernel
   * past its 128 registers on sm_86/89/90 (it spills). */
  __device__ __forceinline__ void guarded(unsigned s, int klen_left, long long ld, int row0, int rows,
                                          const float *safe)
  {
    if (active()) {
      const int row = first_row(row0, in_place(threadIdx.x));
      const int lim = min(rows - 1 - min(row, rows - 1), 3); /* last in-range row */
      s += sofs();
#pragma unroll
      for (int i = 0; i < NP; i++) {
        const float *src = ptr + i * KP * (int)ld;
        const unsigned d = s + i * KP * (ROWS + PAD) * 4;
        const bool in = (int)threadIdx.x / V + i * KP < klen_left;
        /* past the edge, the last in-range row is repeated */
#pragma unroll
        for (int e = 0; e < 4; e++) copy4_zfill(d + 4 * e, in ? src + min(e, lim) : safe, in ? 4 : 0);
      }
    }
    ptr += BK * (int)ld;
  }
};

/* k-contiguous complex: ROWS floats are ROWS / 2 complex rows, each with
 * BK consecutive complex k per tile.  Lane l copies complex row l/8, k l%8
 * (8 bytes; + 8 for a 16-deep tile): a half-warp's shared words are 4k +
 * 2row and 4k + 2row + 1 for k < 8, row < 2, the 32 banks once, as the
 * real copier's.  ld counts floats; row0 and rows are floats, as the real
 * copiers are told them. */
template <int ROWS, int BK> struct ccopier {
  enum { G = ROWS / 64, H = BK / 8, KSTRIDE = (ROWS + PAD) * 4 };
  const float *ptr; /* complex row row0/2 + tid/8, k tid%8, of the next tile */
  unsigned sofs;

  __device__ __forceinline__ void init(const float *base, long long ld, int row0, int)
  {
    ptr = base + (long long)(row0 / 2 + (int)threadIdx.x / 8) * ld + 2 * (threadIdx.x % 8);
    sofs = (threadIdx.x % 8) * KSTRIDE + (threadIdx.x / 8) * 8;
  }
  static __device__ __forceinline__ bool interior(int row0, int rows, int) { return rows - row0 >= ROWS; }

  __device__ __forceinline__ void full(unsigned s, long long ld)
  {
    s += sofs;
#pragma unroll
    for (int g = 0; g < G; g++)
#pragma unroll
      for (int h = 0; h < H; h++) copy8_zfill(s + h * 8 * KSTRIDE + g * 32 * 8, ptr + g * 32 * ld + h * 16, 8);
    ptr += 2 * BK;
  }

  __device__ __forceinline__ void guarded(unsigned s, int klen_left, long long ld, int row0, int rows,
                                          const float *safe)
  {
    const unsigned o = in_place(sofs);
    const int kk = o / KSTRIDE, r = row0 / 2 + (int)(o % KSTRIDE) / 8;
    s += sofs;
#pragma unroll
    for (int g = 0; g < G; g++)
#pragma unroll
      for (int h = 0; h < H; h++) {
        const bool in = kk + h * 8 < klen_left && rows / 2 - r > 32 * g;
        copy8_zfill(s + h * 8 * KSTRIDE + g * 32 * 8, in ? ptr + g * 32 * ld + h * 16 : safe, in ? 8 : 0);
      }
    ptr += 2 * BK;
  }
};

/* Row-contiguous complex: the real copier's threads and places, each 16
 * bytes copied as two complex elements of 8, always (no alignment asked:
 * an odd leading dimension ran the 16-byte copier's 4-byte path in every
 * tile, 0.85 of cuBLAS against 0.96 aligned, H200, session 38), and edge
 * tiles by the element, zero past the edge (rows are even: whole elements). */
template <int ROWS, int BK> struct crcopier : copier<ROWS, BK, false> {
  typedef copier<ROWS, BK, false> real;
  using real::active;
  using real::first_row;
  using real::ptr;
  using real::sofs;
  enum { KP = real::KP, NP = real::NP };

  __device__ __forceinline__ void init(const float *base, long long ld, int row0, int rows)
  {
    ptr = base + (long long)(threadIdx.x / real::V) * ld + min(first_row(row0), rows - 2);
  }
  static __device__ __forceinline__ bool interior(int row0, int rows, int) { return rows - row0 >= ROWS; }

  __device__ __forceinline__ void full(unsigned s, long long ld)
  {
    if (active()) {
      const float *src = ptr;
#pragma unroll
      for (int i = 0; i < NP; i++, src += KP * (int)ld) {
        const unsigned d = s + sofs() + i * KP * (ROWS + PAD) * 4;
        copy8_zfill(d, src, 8);
        copy8_zfill(d + 8, src + 2, 8);
      }
    }
    ptr += BK * (int)ld;
  }

  __device__ __forceinline__ void guarded(unsigned s, int klen_left, long long ld, int row0, int rows,
                                          const float *safe)
  {
    if (active()) {
      const int row = first_row(row0, in_place(threadIdx.x));
      s += sofs();
#pragma unroll
      for (int i = 0; i < NP; i++) {
        const float *src = ptr + i * KP * (int)ld;
        const unsigned d = s + i * KP * (ROWS + PAD) * 4;
        const bool in_k = (int)threadIdx.x / real::V + i * KP < klen_left;
#pragma unroll
        for (int e = 0; e < 2; e++) {
          const bool in = in_k && row + 2 * e < rows;
          copy8_zfill(d + 8 * e, in ? src + 2 * e : safe, in ? 8 : 0);
        }
      }
    }
    ptr += BK * (int)ld;
  }
};

/* The copier of an operand: complex ones copy whole elements. */
template <int ROWS, int BK, bool KC, int CX> struct copier_of { typedef crcopier<ROWS, BK> type; };
template <int ROWS, int BK, bool KC> struct copier_of<ROWS, BK, KC, 0> { typedef copier<ROWS, BK, KC> type; };
template <int ROWS, int BK> struct copier_of<ROWS, BK, true, 1> { typedef ccopier<ROWS, BK> type; };
template <int ROWS, int BK> struct copier_of<ROWS, BK, true, 2> { typedef ccopier<ROWS, BK> type; };

/* The outer product of one k step, in one of four orders.  The order is
 * the register decision this source can make (ptxas allocates): of an
 * FFMA's three source registers, the one repeated from the previous FFMA
 * can come from the operand reuse cache, and the others are read from the
 * register banks, where two in one bank cost a dispatch stall.
 *   ORDER bit 0: 0 = row by row (a[i] repeats), 1 = column by column (b[j]);
 *   ORDER bit 1: serpentine, every other line reversed, so the last operand
 *                of a line is also the first of the next.
 * Measured on the H100 at 8192^3 (bench/NOTES.md): for 8 x 8 per thread,
 * row order 46.5 TFLOP/s, column 49.8, serpentine column 50.5, serpentine
 * row 50.7; for 16 x 8, column order is best (48.3) and serpentine row
 * the worst (45.2).  ncu put the difference in "dispatch stall". */
template <int ORDER, int MI, int NJ>
static __device__ __forceinline__ void ffma_block(float (&acc)[MI][NJ], const float (&a)[MI], const float (&b)[NJ])
{
  enum { COLS = ORDER & 1, SERP = ORDER & 2, X = COLS ? NJ : MI, Y = COLS ? MI : NJ };
#pragma unroll
  for (int x = 0; x < X; x++)
#pragma unroll
    for (int y0 = 0; y0 < Y; y0++) {
      const int y = SERP && (x & 1) ? Y - 1 - y0 : y0;
      if (COLS) acc[y][x] = fmaf(a[y], b[x], acc[y][x]);
      else acc[x][y] = fmaf(a[x], b[y], acc[x][y]);
    }
}

/* The complex outer product of one k step: MI x NJ elements, 4 FFMA each,
 * a's parts reused by consecutive FFMAs and b's rows walked serpentine.
 * CX 1: x y; CX 2: x conj(y) (the negations are FFMA operand modifiers). */
template <int CX, int MI, int NJ>
static __device__ __forceinline__ void cfma_block(float (&acc)[MI][2 * NJ], const float (&a)[2 * MI],
                                                  const float (&b)[2 * NJ])
{
#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int j0 = 0; j0 < NJ; j0++) {
      const int j = i & 1 ? NJ - 1 - j0 : j0;
      const float ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * j], bi = b[2 * j + 1];
      float &re = acc[i][2 * j], &im = acc[i][2 * j + 1];
      re = fmaf(ar, br, re);
      im = fmaf(CX == 1 ? ar : -ar, bi, im);
      re = fmaf(CX == 1 ? -ai : ai, bi, re);
      im = fmaf(ai, br, im);
    }
}

/* Four consecutive floats of C at cp: r plus beta times what is there
 * (not read where beta is 0), one float4 where `whole`, else the first
 * `valid` of them one by one. */
static __device__ __forceinline__ void store4(float *cp, float (&r)[4], float beta, bool whole, int valid)
{
  if (whole) {
    if (beta != 0.f) {
      const float4 old = *reinterpret_cast<const float4 *>(cp);
      r[0] = fmaf(beta, old.x, r[0]);
      r[1] = fmaf(beta, old.y, r[1]);
      r[2] = fmaf(beta, old.z, r[2]);
      r[3] = fmaf(beta, old.w, r[3]);
    }
    *reinterpret_cast<float4 *>(cp) = make_float4(r[0], r[1], r[2], r[3]);
  } else {
#pragma unroll
    for (int i = 0; i < 4; i++)
      if (i < valid) cp[i] = beta != 0.f ? fmaf(beta, cp[i], r[i]) : r[i];
  }
}

/* Where a tile's product goes: alpha * product + beta * C into C (ld ldc,
 * rows below m and columns below n only), or, for a split tile's part, into
 * a dense workspace tile (beta 0, every element). */
struct tile_out {
  float *c;
  long long ldc;
  int m, n;
  float beta;
  int vec;
};

template <int QM, int QN>
static __device__ __forceinline__ void store_complex(const gemm_args &p, const float (&acc)[QM * 2][QN * 4],
                                                     int m0, int n0, int tm, int tn, const tile_out &o);

/* A complex dimension in the floats the copiers count.  Read where used:
 * kept in a variable from the kernel's entry, p.m's load moved and the
 * real 128 x 128 kk kernel's main loop grew by 4 instructions. */
template <int CX> static __device__ __forceinline__ int in_floats(int v) { return CX ? 2 * v : v; }

/* One BM x BN tile of C at (m0, n0): A and B already point at the first k
 * of the klen to multiply.  CX: 0 real; complex (m0, n0, C's rows and
 * columns in complex elements twice as many floats) with 1 x y, 2 x
 * conj(y). */
template <int BM, int BN, int BK, int STAGES, int ORDER, bool A_KC, bool B_KC, int CX = 0>
static __device__ __forceinline__ void tile_product(const gemm_args &p, int m0, int n0,
                                                    const float *A, const float *B, int klen,
                                                    const tile_out &o)
{
  enum { QM = BM / 64, QN = BN / 64, /* quadrants per thread in m and n */
         AR = CX ? QM * 2 : QM * 4 /* accumulator rows: complex ones hold two floats a column */ };
  struct stage {
    float a[BK][BM + PAD];
    float b[BK][BN + PAD];
  };
  extern __shared__ __align__(16) unsigned char smem[];
  stage *st = reinterpret_cast<stage *>(smem);

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int tm = (warp % 2) * 8 + lane % 8; /* row offset / 4 within a quadrant */
  const int tn = (warp / 2) * 4 + lane / 8; /* column offset / 4 */

  typename copier_of<BM, BK, A_KC, CX>::type ca;
  typename copier_of<BN, BK, B_KC, CX>::type cb; /* B's tile rows are its n index */
  float acc[AR][QN * 4];
#pragma unroll
  for (int i = 0; i < AR; i++)
#pragma unroll
    for (int j = 0; j < QN * 4; j++) acc[i][j] = 0.f;

  const int ntiles = (klen + BK - 1) / BK;
  /* Tiles before nfull need no test when the whole block is inside. */
  const int nfull = ca.interior(m0, in_floats<CX>(p.m), p.vec_a) && cb.interior(n0, in_floats<CX>(p.n), p.vec_b) ? klen / BK : 0;
  const unsigned s0 = smem_addr(st);
  const unsigned sb_ofs = (unsigned)((const char *)&st[0].b[0][0] - (const char *)&st[0]);
  ca.init(A, p.lda, m0, in_floats<CX>(p.m));
  cb.init(B, p.ldb, n0, in_floats<CX>(p.n));
  auto issue = [&](auto full, int j, unsigned s) {
    if (decltype(full)::value) {
      ca.full(s, p.lda);
      cb.full(s + sb_ofs, p.ldb);
    } else {
      ca.guarded(s, klen - j * BK, p.lda, m0, in_floats<CX>(p.m), p.a);
      cb.guarded(s + sb_ofs, klen - j * BK, p.ldb, n0, in_floats<CX>(p.n), p.b);
    }
  };
  /* Fill every stage but the last; tile t then refills the stage tile t-1
   * read (for t = 0, the last, still empty) with tile t+STAGES-1.  Each
   * tile is one commit group (empty past the end), so "tile t+1 has
   * landed" is always "at most STAGES-2 groups pending". */
#pragma unroll
  for (int s = 0; s < STAGES - 1; s++) {
    if (s < nfull)
      issue(flag<true>(), s, s0 + s * sizeof(stage));
    else if (s < ntiles)
      issue(flag<false>(), s, s0 + s * sizeof(stage));
    copy_commit();
  }
  copy_wait<STAGES - 2>();
  __syncthreads();

  /* The stage being read and the one to refill, as byte offsets from stage
   * 0: the same in every thread, so they live in uniform registers, and
   * the loads address [sa + offset + immediate].  Rotating them costs a
   * few uniform instructions per tile; stepping per-thread pointers cost
   * 13 (bench/NOTES.md). */
  enum { SZ = sizeof(stage) };
  unsigned rofs = 0, pofs = (STAGES - 1) * SZ;
  float fa[2][QM * 4], fb[2][QN * 4];
  const char *sa = reinterpret_cast<const char *>(&st[0].a[0][tm * 4]);
  const char *sb = reinterpret_cast<const char *>(&st[0].b[0][tn * 4]);
  /* fragment q of k step kk of the stage at rofs */
  auto frag = [&](float *dst, const char *base, int row_stride, int kk, int q) {
    *reinterpret_cast<float4 *>(dst) =
        *reinterpret_cast<const float4 *>(base + rofs + (kk * row_stride + q * 64) * 4);
  };
#pragma unroll
  for (int q = 0; q < QM; q++) frag(&fa[0][q * 4], sa, BM + PAD, 0, q);
#pragma unroll
  for (int q = 0; q < QN; q++) frag(&fb[0][q * 4], sb, BN + PAD, 0, q);

  /* One tile of k.  FULL: the refill is known to be a full tile of an
   * interior block, so the guarded copy code is not in this loop at all
   * (ptxas would otherwise hoist its invariants and spill them).  Otherwise
   * the refill is known not to be full (t + STAGES - 1 >= nfull past
   * tmain), so the full copy code is not in the other loop either. */
  auto tile = [&](auto full, int t) {
    /* Refill the stage tile t-1 read (free since its barrier) with tile
     * t+STAGES-1.  Here, before step 0 loads step 1's fragments, only one
     * fragment set is live: the copy addresses fit without spilling. */
    const int j = t + STAGES - 1;
    if (decltype(full)::value || j < ntiles) issue(full, j, s0 + pofs);
    copy_commit();
#pragma unroll
    for (int kk = 0; kk < BK; kk++) {
      const int f = kk & 1;
      if (kk + 1 < BK) { /* fragments for kk+1 while kk computes */
#pragma unroll
        for (int q = 0; q < QM; q++) frag(&fa[f ^ 1][q * 4], sa, BM + PAD, kk + 1, q);
#pragma unroll
        for (int q = 0; q < QN; q++) frag(&fb[f ^ 1][q * 4], sb, BN + PAD, kk + 1, q);
      } else {
        /* maxas's place for the one barrier per tile: this step's fragments
         * are in registers, so wait for tile t+1, synchronise (after which
         * nobody reads tile t's stage), and fetch tile t+1's first fragments
         * before this step's FFMAs, which then hide the latency of those
         * loads.  After the last tile this reads a stage nobody uses: a
         * test here made ptxas spill around it. */
        copy_wait<STAGES - 2>();
        __syncthreads();
        pofs = rofs;
        rofs = rofs == (STAGES - 1) * SZ ? 0 : rofs + SZ;
#pragma unroll
        for (int q = 0; q < QM; q++) frag(&fa[f ^ 1][q * 4], sa, BM + PAD, 0, q);
#pragma unroll
        for (int q = 0; q < QN; q++) frag(&fb[f ^ 1][q * 4], sb, BN + PAD, 0, q);
      }
      if constexpr (CX) cfma_block<CX, QM * 2, QN * 2>(acc, fa[f], fb[f]);
      else ffma_block<ORDER, QM * 4, QN * 4>(acc, fa[f], fb[f]);
    }
  };
  /* Tiles whose refill (tile t+STAGES-1) is full, then the rest. */
  const int tmain = min(ntiles, max(0, nfull - STAGES + 1));
  int t = 0;
  for (; t < tmain; t++) tile(flag<true>(), t);
  for (; t < ntiles; t++) tile(flag<false>(), t);

  /* Epilogue. */
  if constexpr (CX) {
    store_complex<QM, QN>(p, acc, m0 / 2, n0 / 2, tm, tn, o);
    return;
  }
  float *C = o.c;
  const long long ldc = o.ldc;
  const float beta = o.beta;
#pragma unroll
  for (int j = 0; j < QN * 4; j++) {
    const int col = n0 + (j / 4) * 64 + tn * 4 + (j % 4);
    if (col >= o.n) continue;
#pragma unroll
    for (int q = 0; q < QM; q++) {
      const int row = m0 + q * 64 + tm * 4;
      float *cp = C + (long long)col * ldc + row;
      float r[4];
#pragma unroll
      for (int i = 0; i < 4; i++) r[i] = p.alpha * acc[q * 4 + i][j];
      store4(cp, r, beta, o.vec && row + 3 < o.m, o.m - row);
    }
  }
}

/* Data-parallel: block (x, y) computes tile (x, y) of matrix or split z.
 * Split-K partials go to a compact m x n workspace slice.  Complex (CX):
 * BM and BN are the real tile's, twice the complex one's; a k-contiguous
 * operand's k steps two floats. */
template <int BM, int BN, int BK, int STAGES, int ORDER, bool A_KC, bool B_KC, int CX = 0>
static __device__ __forceinline__ void gemm_tile(const gemm_args &p)
{
  enum { KE = CX ? 2 : 1 }; /* floats an element */
  const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
  const int z = blockIdx.z, batch = z / p.splits, split = z % p.splits;
  const int kbeg = split * p.kchunk;
  const int klen = min(p.kchunk, p.k - kbeg);
  const float *A = p.a + batch * p.sa + (A_KC ? KE * kbeg : kbeg * p.lda);
  const float *B = p.b + batch * p.sb + (B_KC ? KE * kbeg : kbeg * p.ldb);
  tile_out o;
  if (p.splits > 1)
    o = {p.c + (long long)z * p.m * p.n * KE, KE * p.m, p.m, p.n, 0.f, (p.m % (4 / KE)) == 0};
  else
    o = {p.c + batch * p.sc, p.ldc, p.m, p.n, p.beta, p.vec_c};
  tile_product<BM, BN, BK, STAGES, ORDER, A_KC, B_KC, CX>(p, m0, n0, A, B, klen, o);
}

/* The complex epilogue: a thread's rows m0 + q*32 + tm*2 + (0, 1) and
 * columns n0 + (j/2)*32 + tn*2 + j%2 (complex elements; o.ldc in floats),
 * conjugated where conj_c, times alpha, plus beta C; the two rows are one
 * float4 of C where it is aligned. */
template <int QM, int QN>
static __device__ __forceinline__ void store_complex(const gemm_args &p, const float (&acc)[QM * 2][QN * 4],
                                                     int m0, int n0, int tm, int tn, const tile_out &o)
{
  const float ar = p.alpha, ai = p.alpha_im, beta = o.beta, sign = p.conj_c ? -1.f : 1.f;
#pragma unroll
  for (int j = 0; j < QN * 2; j++) {
    const int col = n0 + (j / 2) * 32 + tn * 2 + (j % 2);
    if (col >= o.n) continue;
#pragma unroll
    for (int q = 0; q < QM; q++) {
      const int row = m0 + q * 32 + tm * 2;
      float *cp = o.c + (long long)col * o.ldc + 2 * row;
      float r[4];
#pragma unroll
      for (int e = 0; e < 2; e++) {
        const float x = acc[q * 2 + e][2 * j], y = sign * acc[q * 2 + e][2 * j + 1];
        r[2 * e] = fmaf(-ai, y, ar * x);
        r[2 * e + 1] = fmaf(ai, x, ar * y);
      }
      store4(cp, r, beta, o.vec && row + 1 < o.m, 2 * (o.m - row));
    }
  }
}

/* Stream-K's block that holds unit u: block c's units are [U*c/P,
 * U*(c+1)/P), so it is the last c with U*c/P <= u, ceil((u+1)*P/U) - 1. */
static __device__ __forceinline__ long long streamk_block_of(const gemm_args &p, long long u)
{
  return ((u + 1) * p.sk_ctas + p.sk_units - 1) / p.sk_units - 1;
}

/* A split tile, once all its parts are in the workspace: the sum of the
 * parts in block order (so the result does not depend on who finished
 * last) - the first block's, in slot `slot0` of its pair (0 if the tile is
 * its first segment, else 1), then slot 0 of the `more` blocks after it -
 * plus beta * C, into C.  The whole block, four rows of one column per
 * access; the parts are read past L1, which may hold older lines of the
 * workspace.  Not inlined: inlined, its registers made ptxas spill the
 * main loop (sm_80 and sm_90). */
template <int BM, int BN>
static __device__ __noinline__ void streamk_sum_tile(float *c, long long ldc, int m, int n,
                                                     float beta, int vec_c, const float4 *pair,
                                                     int slot0, int more, int m0, int n0)
{
  enum { T4 = BM * BN / 4 }; /* float4s in a tile */
#pragma unroll 1
  for (int e = threadIdx.x; e < T4; e += THREADS) {
    const int row = m0 + (e * 4) % BM, col = n0 + (e * 4) / BM;
    if (row >= m || col >= n) continue;
    float4 s = __ldcg(pair + slot0 * T4 + e);
    for (int q = 1; q <= more; q++) {
      const float4 v = __ldcg(pair + q * 2LL * T4 + e);
      s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
    }
    float *cp = c + (long long)col * ldc + row;
    const float r[4] = {s.x, s.y, s.z, s.w};
    if (vec_c && row + 3 < m) {
      float4 o = make_float4(r[0], r[1], r[2], r[3]);
      if (beta != 0.f) {
        const float4 old = *reinterpret_cast<const float4 *>(cp);
        o = make_float4(fmaf(beta, old.x, r[0]), fmaf(beta, old.y, r[1]), fmaf(beta, old.z, r[2]),
                        fmaf(beta, old.w, r[3]));
      }
      *reinterpret_cast<float4 *>(cp) = o;
    } else {
#pragma unroll
      for (int i = 0; i < 4; i++)
        if (row + i < m) cp[i] = beta != 0.f ? fmaf(beta, cp[i], r[i]) : r[i];
    }
  }
}

/* Stream-K: the first sk_dp blocks take one whole tile each (tiles in
 * column order); then block c of the sk_ctas takes units [U*c/P,
 * U*(c+1)/P) of the remaining tiles' U = tiles * sk_iters units (k
 * innermost), so the last waves are evenly full.  A tile a block covers
 * whole is written to C; a part of a tile goes to the block's workspace
 * slot 0 if it is the block's first segment, else slot 1 (a block's range
 * cuts at most two tiles).  Then the block counts itself in at the tile's
 * counter, and the block that brings it to the number of parts adds them
 * up (streamk_sum_tile).  Nobody waits for anybody, so no order of block
 * scheduling can deadlock, and the sums are done while other blocks still
 * compute: a separate fixup launch after the grid cost 68 us at 4096^3,
 * more than stream-K gained (bench/NOTES.md).
 *
 * Units are numbered over the whole matrix, the data-parallel tiles' too
 * (the host keeps tiles * sk_iters below 2^31), so the loop carries three
 * 32-bit values: the unit, the range's end and whether the first segment
 * is done.  At 128 registers, 64-bit units and the block index kept live
 * spilled the main loop on sm_80. */
template <int BM, int BN, int BK, int STAGES, int ORDER, bool A_KC, bool B_KC>
static __device__ __forceinline__ void gemm_streamk(const gemm_args &p)
{
  const int tiles_m = (p.m + BM - 1) / BM, iters = p.sk_iters;
  const int dp = p.sk_dp, c = (int)blockIdx.x - dp; /* c < 0: a data-parallel block */
  const int v0 = c < 0 ? blockIdx.x * iters : dp * iters + (int)(p.sk_units * c / p.sk_ctas);
  const int vend = c < 0 ? v0 + iters : dp * iters + (int)(p.sk_units * (c + 1) / p.sk_ctas);
  for (int v = v0, later = 0; v < vend; later = 1) {
    const int t = v / iters, i0 = v % iters, i1 = min(iters, i0 + (vend - v));
    const int m0 = (t % tiles_m) * BM, n0 = (t / tiles_m) * BN;
    const int kbeg = i0 * BK, klen = min(i1 * BK, p.k) - kbeg;
    const bool part = !(i0 == 0 && i1 == iters);
    tile_out o;
    if (!part)
      o = {p.c, p.ldc, p.m, p.n, p.beta, p.vec_c};
    else /* the dense tile, addressed as if it were C; slot 1 past the first segment */
      o = {p.sk_work + (((int)blockIdx.x - dp) * 2LL + later) * BM * BN - m0 - (long long)n0 * BM,
           BM, m0 + BM, n0 + BN, 0.f, 1};
    if (later) __syncthreads(); /* the last segment's stages are read out */
    tile_product<BM, BN, BK, STAGES, ORDER, A_KC, B_KC>(p, m0, n0, p.a + (A_KC ? kbeg : kbeg * p.lda),
                                                        p.b + (B_KC ? kbeg : kbeg * p.ldb), klen, o);
    /* The segment once more, from v through an opaque move: kept from
     * before, its values stay live through the main loop. */
    const int w = (int)in_place((unsigned)v), wi0 = w % iters, wi1 = min(iters, wi0 + (vend - w));
    if (wi0 != 0 || wi1 != iters) {
      const int wt = w / iters;
      const long long u0 = (long long)(wt - dp) * iters; /* the tile's first stream-K unit */
      const long long first = streamk_block_of(p, u0), last = streamk_block_of(p, u0 + iters - 1);
      /* Release: every thread's part is visible device-wide before the
       * count (the barrier: before thread 0 counts, not only before the
       * block goes on); the adder's second fence is the acquire. */
      __threadfence();
      __syncthreads();
      if (__syncthreads_or(threadIdx.x == 0 &&
                           atomicAdd(&p.sk_count[wt - dp], 1) == (int)(last - first))) {
        __threadfence();
        streamk_sum_tile<BM, BN>(p.c, p.ldc, p.m, p.n, p.beta, p.vec_c,
                                 reinterpret_cast<const float4 *>(p.sk_work + first * 2 * BM * BN),
                                 p.sk_units * first / p.sk_ctas == u0 ? 0 : 1, (int)(last - first),
                                 (wt % tiles_m) * BM, (wt / tiles_m) * BN);
      }
    }
    v = w + (wi1 - wi0);
  }
}

/* The data-parallel and the stream-K kernel of a tile and layout are two
 * kernels, not one with a branch: ptxas allocates registers, uniform ones
 * included, over the whole kernel, and with both paths in one the
 * data-parallel main loop lost its uniform stage offsets to the stream-K
 * path (4 instructions more per tile, bench/NOTES.md v7). */
#define DLG_SGEMM_STREAMK_1(SKNAME, BM, BN, BK, STAGES, MINB, ORDER, AKC, BKC)          \
  extern "C" __global__ void __launch_bounds__(THREADS, MINB) SKNAME(gemm_args p)           \
  {                                                                                          \
    gemm_streamk<BM, BN, BK, STAGES, ORDER, AKC, BKC>(p);                                    \
  }
#define DLG_SGEMM_STREAMK_0(SKNAME, BM, BN, BK, STAGES, MINB, ORDER, AKC, BKC)
#define DLG_SGEMM_KERNEL(NAME, SKNAME, BM, BN, BK, STAGES, MINB, ORDER, SK, AKC, BKC)      \
  extern "C" __global__ void __launch_bounds__(THREADS, MINB) NAME(gemm_args p)             \
  {                                                                                          \
    gemm_tile<BM, BN, BK, STAGES, ORDER, AKC, BKC>(p);                                       \
  }                                                                                          \
  DLG_SGEMM_STREAMK_##SK(SKNAME, BM, BN, BK, STAGES, MINB, ORDER, AKC, BKC)
/* Names: dlg_sgemm[_streamk]_<BM>x<BN>_<a><b>, a/b = 'k' when that operand
 * is k-contiguous, 'r' when its m / n dimension is (plugin/cuda/device/device.c
 * builds them from DLG_SGEMM_TILE_LIST).  MINB blocks per SM bound the
 * registers: 2 for 8 x 8 per thread (128 registers), 1 for 8 x 16 (255).
 * Shared memory is dynamic (the host sets each kernel's size from the
 * list): the 128 x 128 tile's three 16-deep stages need more than the 48 KB
 * a static array may have. */
#define DLG_SGEMM_TILE(id, BM, BN, BK, STAGES, MINB, ORDER, SK)                             \
  DLG_SGEMM_KERNEL(dlg_sgemm_##BM##x##BN##_rr, dlg_sgemm_streamk_##BM##x##BN##_rr, BM, BN, BK, \
                   STAGES, MINB, ORDER, SK, false, false)                                         \
  DLG_SGEMM_KERNEL(dlg_sgemm_##BM##x##BN##_rk, dlg_sgemm_streamk_##BM##x##BN##_rk, BM, BN, BK, \
                   STAGES, MINB, ORDER, SK, false, true)                                          \
  DLG_SGEMM_KERNEL(dlg_sgemm_##BM##x##BN##_kr, dlg_sgemm_streamk_##BM##x##BN##_kr, BM, BN, BK, \
                   STAGES, MINB, ORDER, SK, true, false)                                          \
  DLG_SGEMM_KERNEL(dlg_sgemm_##BM##x##BN##_kk, dlg_sgemm_streamk_##BM##x##BN##_kk, BM, BN, BK, \
                   STAGES, MINB, ORDER, SK, true, true)

DLG_SGEMM_TILE_LIST(DLG_SGEMM_TILE)

/* The complex64 kernels: dlg_csimt_<BM>x<BN>_<ab> (x y) and _<ab>_x (x
 * conj(y)), BM x BN complex, on the real tile of 2BM x 2BN. */
#define DLG_CSIMT_KERNEL(NAME, BM, BN, BK, STAGES, MINB, AKC, BKC, CX)                      \
  extern "C" __global__ void __launch_bounds__(THREADS, MINB) NAME(gemm_args p)             \
  {                                                                                          \
    gemm_tile<2 * (BM), 2 * (BN), BK, STAGES, 0, AKC, BKC, CX>(p);                          \
  }
#define DLG_CSIMT_LAYOUT(BM, BN, BK, STAGES, MINB, ab, AKC, BKC)                                  \
  DLG_CSIMT_KERNEL(dlg_csimt_##BM##x##BN##_##ab, BM, BN, BK, STAGES, MINB, AKC, BKC, 1)           \
  DLG_CSIMT_KERNEL(dlg_csimt_##BM##x##BN##_##ab##_x, BM, BN, BK, STAGES, MINB, AKC, BKC, 2)
#define DLG_CSIMT_TILE(id, BM, BN, BK, STAGES, MINB)                \
  DLG_CSIMT_LAYOUT(BM, BN, BK, STAGES, MINB, rr, false, false)      \
  DLG_CSIMT_LAYOUT(BM, BN, BK, STAGES, MINB, rk, false, true)       \
  DLG_CSIMT_LAYOUT(BM, BN, BK, STAGES, MINB, kr, true, false)       \
  DLG_CSIMT_LAYOUT(BM, BN, BK, STAGES, MINB, kk, true, true)

DLG_CSIMT_TILE_LIST(DLG_CSIMT_TILE)

/* Sum the split-K partials of each (batch, i, j) in split order, then beta*C. */
extern "C" __global__ void dlg_sgemm_splitk_reduce(const float *work, float *c, int m, int n,
                                                   int batches, int splits, long long ldc,
                                                   long long sc, float beta)
{
  long long total = (long long)m * n * batches;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    long long b = e / ((long long)m * n), ij = e % ((long long)m * n);
    int i = (int)(ij % m), j = (int)(ij / m);
    const float *w = work + (b * splits) * (long long)m * n + ij;
    float s = 0.f;
    for (int q = 0; q < splits; q++) s += w[(long long)q * m * n];
    float *cp = c + b * sc + (long long)j * ldc + i;
    *cp = beta != 0.f ? fmaf(beta, *cp, s) : s;
  }
}
