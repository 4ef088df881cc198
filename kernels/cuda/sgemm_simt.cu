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
 * Why the layout is what it is (BM = BN = 128 in the main configuration):
 *
 * - 256 threads = 8 warps as 2 (m) x 4 (n); within a warp, 8 (m) x 4 (n)
 *   lanes.  A thread's row offset is wm*32 + lm*4, its column offset
 *   wn*16 + ln*4, and it owns an 8 x 8 block of C held as four 4 x 4
 *   quadrants at those offsets and +64 in each direction.  Splitting the 8
 *   rows into two groups 64 apart (rather than 8 consecutive rows) is what
 *   lets fragment loads be 128-bit and conflict-free; the 8 x 4 warp shape is
 *   what makes each of them cheap: a warp's A fragment is 8 distinct float4
 *   (128 contiguous bytes, one shared-memory wavefront) and its B fragment 4
 *   distinct float4 (64 bytes), each broadcast to the lanes that share it.
 *   (A 16 x 2 warp, the first version, read 256 bytes of A per LDS.128.)
 * - Per 8-deep k step a thread issues 8 x 64 = 512 FFMA against 8 x 4 = 32
 *   LDS.128 (two for A, two for B per k), one tile load from global memory
 *   (16-byte where aligned), its stores to shared memory and ONE barrier:
 *   the 0.9 FFMA fraction the SASS gate checks for.
 * - Shared memory is double-buffered (2 x 8 x (BM + BN) floats = 16 KB), so
 *   the next tile is stored into the buffer nobody reads while the current
 *   one is consumed, and one barrier per tile suffices.  It sits inside the
 *   last k step, before that step's FFMAs (whose fragments are already in
 *   registers), followed at once by the next tile's first fragment loads:
 *   the FFMAs then cover the LDS latency that a barrier at the end of the
 *   step would leave exposed (measured: 31% of stalls were that wait).
 * - The next tile's global loads are issued before the current tile's FFMA
 *   and consumed after them, so their latency hides under 512 FFMA.
 * - Fragments are read one k ahead (double-buffered registers) so that the
 *   FFMA of step kk never waits for the LDS of step kk.
 * - 64 accumulators + 2 x 16 fragments + 8 staging registers + addresses fit
 *   the 128 registers of __launch_bounds__(256, 2): two blocks (16 warps) per
 *   SM, one block's barrier hidden by the other's FFMA.
 * - Loads from global memory are vectorised when the matrix base, leading
 *   dimension and batch stride are multiples of 4 floats; edge tiles and the
 *   k tail use guarded loads that fill zeros, so any m, n, k is exact.
 * - The epilogue applies alpha and beta in FP32; beta == 0 never reads C, so
 *   NaN in C does not propagate (BLAS semantics).
 *
 * Split-K: blockIdx.z enumerates (batch, split).  With splits > 1 each split
 * multiplies a k-range and writes alpha * partial into a workspace; the
 * reduce kernel then adds the splits in a fixed order (deterministic) and
 * applies beta.
 */
#include <stdint.h>

#include "sgemm_args.h"

#define THREADS 256
#define BK 8

typedef dlg_sgemm_args gemm_args;

/* Four consecutive elements along a contiguous dimension; those at or past
 * `valid` read as zero.  Vector load only when all four are in range. */
static __device__ __forceinline__ float4 load4(const float *p, int valid, int vec)
{
  if (vec && valid >= 4) return __ldg(reinterpret_cast<const float4 *>(p));
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (valid > 0) v.x = __ldg(p);
  if (valid > 1) v.y = __ldg(p + 1);
  if (valid > 2) v.z = __ldg(p + 2);
  if (valid > 3) v.w = __ldg(p + 3);
  return v;
}

/* One operand tile: ROWS (the m or n extent) x BK, from a matrix whose
 * contiguous dimension is k (KC) or the row dimension (!KC), stored to
 * shared memory as s[kk][row].  Each thread owns at most one float4 of the
 * tile; its address is computed once and advanced by one tile per step, so
 * the main loop carries one pointer per operand, not index arithmetic. */
template <int ROWS, bool KC>
struct tile_loader {
  /* Which float4 of the tile this thread moves: derived from threadIdx.x on
   * use rather than kept, since registers are what this kernel runs out of. */
  static __device__ __forceinline__ bool active() { return ROWS * BK / 4 >= THREADS || threadIdx.x < ROWS * BK / 4; }
  static __device__ __forceinline__ int kofs() { return KC ? (threadIdx.x / ROWS) * 4 : threadIdx.x / (ROWS / 4); }
  static __device__ __forceinline__ int row() { return KC ? threadIdx.x % ROWS : (threadIdx.x % (ROWS / 4)) * 4; }

  const float *ptr;
  int step;      /* elements from one tile to the next (the host keeps BK*ld < 2^31) */
  int rows_left; /* rows from this thread's row to the matrix edge */
  float4 v;

  __device__ __forceinline__ void init(const float *base, long long ld, int row0, int rows)
  {
    rows_left = rows - row0 - row();
    ptr = KC ? base + (long long)(row0 + row()) * ld + kofs() : base + kofs() * ld + row0 + row();
    step = KC ? BK : BK * (int)ld;
  }

  /* Load the tile whose k range starts klen_left elements before the end.
   * vec comes straight from the kernel parameters (constant bank), which
   * costs no register. */
  __device__ __forceinline__ void load(int klen_left, int vec)
  {
    v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (KC) {
      if (active() && rows_left > 0) v = load4(ptr, klen_left - kofs(), vec);
    } else {
      if (active() && kofs() < klen_left) v = load4(ptr, rows_left, vec);
    }
    ptr += step;
  }

  __device__ __forceinline__ void store(float (*s)[ROWS]) const
  {
    if (!active()) return;
    if (KC) { /* transpose: 32 consecutive rows per warp, conflict-free */
      s[kofs() + 0][row()] = v.x;
      s[kofs() + 1][row()] = v.y;
      s[kofs() + 2][row()] = v.z;
      s[kofs() + 3][row()] = v.w;
    } else {
      *reinterpret_cast<float4 *>(&s[kofs()][row()]) = v;
    }
  }
};

template <int BM, int BN, bool A_KC, bool B_KC>
static __device__ __forceinline__ void gemm_tile(const gemm_args &p)
{
  enum { QM = BM / 64, QN = BN / 64 }; /* quadrants per thread in m and n */
  __shared__ __align__(16) float As[2][BK][BM];
  __shared__ __align__(16) float Bs[2][BK][BN];

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int tm = (warp % 2) * 8 + lane % 8; /* row offset / 4 within a quadrant */
  const int tn = (warp / 2) * 4 + lane / 8; /* column offset / 4 */
  const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
  const int z = blockIdx.z, batch = z / p.splits, split = z % p.splits;
  const int kbeg = split * p.kchunk;
  const int klen = min(p.kchunk, p.k - kbeg);
  /* Shift A and B to this split's k range; C to its batch (or workspace). */
  const float *A = p.a + batch * p.sa + (A_KC ? kbeg : kbeg * p.lda);
  const float *B = p.b + batch * p.sb + (B_KC ? kbeg : kbeg * p.ldb);

  tile_loader<BM, A_KC> la;
  tile_loader<BN, B_KC> lb; /* B's tile rows are its n index */
  float acc[QM * 4][QN * 4];
#pragma unroll
  for (int i = 0; i < QM * 4; i++)
#pragma unroll
    for (int j = 0; j < QN * 4; j++) acc[i][j] = 0.f;

  la.init(A, p.lda, m0, p.m);
  lb.init(B, p.ldb, n0, p.n);
  la.load(klen, p.vec_a);
  lb.load(klen, p.vec_b);
  la.store(As[0]);
  lb.store(Bs[0]);
  __syncthreads();

  const int ntiles = (klen + BK - 1) / BK;
  float fa[2][QM * 4], fb[2][QN * 4];
#pragma unroll
  for (int q = 0; q < QM; q++)
    *reinterpret_cast<float4 *>(&fa[0][q * 4]) = *reinterpret_cast<const float4 *>(&As[0][0][q * 64 + tm * 4]);
#pragma unroll
  for (int q = 0; q < QN; q++)
    *reinterpret_cast<float4 *>(&fb[0][q * 4]) = *reinterpret_cast<const float4 *>(&Bs[0][0][q * 64 + tn * 4]);

  for (int t = 0; t < ntiles; t++) {
    const int cur = t & 1;
    const bool more = t + 1 < ntiles;
    if (more) { /* issue the next tile's global loads now, consume them late */
      la.load(klen - (t + 1) * BK, p.vec_a);
      lb.load(klen - (t + 1) * BK, p.vec_b);
    }
#pragma unroll
    for (int kk = 0; kk < BK; kk++) {
      const int f = kk & 1;
      if (kk + 1 < BK) { /* fragments for kk+1 while kk computes */
#pragma unroll
        for (int q = 0; q < QM; q++)
          *reinterpret_cast<float4 *>(&fa[f ^ 1][q * 4]) = *reinterpret_cast<const float4 *>(&As[cur][kk + 1][q * 64 + tm * 4]);
#pragma unroll
        for (int q = 0; q < QN; q++)
          *reinterpret_cast<float4 *>(&fb[f ^ 1][q * 4]) = *reinterpret_cast<const float4 *>(&Bs[cur][kk + 1][q * 64 + tn * 4]);
      } else if (more) {
        /* maxas's placement of the one barrier: the last step's fragments
         * are already in registers, so store the next tile, synchronise and
         * fetch the next tile's first fragments before this step's FFMAs,
         * which then hide the latency of those loads. */
        la.store(As[cur ^ 1]);
        lb.store(Bs[cur ^ 1]);
        __syncthreads();
#pragma unroll
        for (int q = 0; q < QM; q++)
          *reinterpret_cast<float4 *>(&fa[f ^ 1][q * 4]) = *reinterpret_cast<const float4 *>(&As[cur ^ 1][0][q * 64 + tm * 4]);
#pragma unroll
        for (int q = 0; q < QN; q++)
          *reinterpret_cast<float4 *>(&fb[f ^ 1][q * 4]) = *reinterpret_cast<const float4 *>(&Bs[cur ^ 1][0][q * 64 + tn * 4]);
      }
#pragma unroll
      for (int i = 0; i < QM * 4; i++)
#pragma unroll
        for (int j = 0; j < QN * 4; j++) acc[i][j] = fmaf(fa[f][i], fb[f][j], acc[i][j]);
    }
  }

  /* Epilogue.  Split-K partials go to a compact m x n workspace slice. */
  float *C;
  long long ldc;
  float beta = p.beta;
  int vec = p.vec_c;
  if (p.splits > 1) {
    C = p.c + (long long)z * p.m * p.n;
    ldc = p.m;
    beta = 0.f;
    vec = (p.m % 4) == 0;
  } else {
    C = p.c + batch * p.sc;
    ldc = p.ldc;
  }
#pragma unroll
  for (int j = 0; j < QN * 4; j++) {
    const int col = n0 + (j / 4) * 64 + tn * 4 + (j % 4);
    if (col >= p.n) continue;
#pragma unroll
    for (int q = 0; q < QM; q++) {
      const int row = m0 + q * 64 + tm * 4;
      float *cp = C + (long long)col * ldc + row;
      float r[4];
#pragma unroll
      for (int i = 0; i < 4; i++) r[i] = p.alpha * acc[q * 4 + i][j];
      if (vec && row + 3 < p.m) {
        if (beta != 0.f) {
          float4 old = *reinterpret_cast<const float4 *>(cp);
          r[0] = fmaf(beta, old.x, r[0]);
          r[1] = fmaf(beta, old.y, r[1]);
          r[2] = fmaf(beta, old.z, r[2]);
          r[3] = fmaf(beta, old.w, r[3]);
        }
        *reinterpret_cast<float4 *>(cp) = make_float4(r[0], r[1], r[2], r[3]);
      } else {
#pragma unroll
        for (int i = 0; i < 4; i++)
          if (row + i < p.m) cp[i] = beta != 0.f ? fmaf(beta, cp[i], r[i]) : r[i];
      }
    }
  }
}

#define DLG_SGEMM_KERNEL(NAME, BM, BN, AKC, BKC)                                   \
  extern "C" __global__ void __launch_bounds__(THREADS, 2) NAME(gemm_args p)       \
  {                                                                                 \
    gemm_tile<BM, BN, AKC, BKC>(p);                                                 \
  }

/* Names: dlg_sgemm_<BM>x<BN>_<a><b>, a/b = 'k' when that operand is
 * k-contiguous, 'r' when its m / n dimension is.  plugin/backend_cuda.c
 * builds these names. */
DLG_SGEMM_KERNEL(dlg_sgemm_128x128_rk, 128, 128, false, true)
DLG_SGEMM_KERNEL(dlg_sgemm_128x128_rr, 128, 128, false, false)
DLG_SGEMM_KERNEL(dlg_sgemm_128x128_kk, 128, 128, true, true)
DLG_SGEMM_KERNEL(dlg_sgemm_128x128_kr, 128, 128, true, false)
DLG_SGEMM_KERNEL(dlg_sgemm_64x64_rk, 64, 64, false, true)
DLG_SGEMM_KERNEL(dlg_sgemm_64x64_rr, 64, 64, false, false)
DLG_SGEMM_KERNEL(dlg_sgemm_64x64_kk, 64, 64, true, true)
DLG_SGEMM_KERNEL(dlg_sgemm_64x64_kr, 64, 64, true, false)

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
