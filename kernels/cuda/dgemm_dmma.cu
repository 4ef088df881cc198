/*
 * dgemm_dmma.cu - FP64 GEMM on the double-precision tensor cores (DMMA,
 * mma.sync m8n8k4 f64, sm_80 and later), for dgemm_ and float64 tensors.
 *
 * Same contract as the SIMT SGEMM: the column-major product C = alpha *
 * op(A) op(B) + beta * C, the backend having turned every layout into it;
 * A_KC / B_KC say whether A's and B's contiguous dimension is k.
 *
 * Why it is laid out as it is:
 *
 * - DMMA computes with IEEE double fused multiply-adds: each product is
 *   exact and each addition rounded once, so the result is as accurate as
 *   DFMA loops, at up to twice their rate.  (The shape and the fragments
 *   are set out at dmma() below.)
 * - 256 threads = 8 warps as 2 (m) x 4 (n), each warp a 64 x 32 block of C
 *   as 4 x 4 DMMA tiles of 16 x 8 (sm_90) or 8 x 4 of 8 x 8: per 16 of k a
 *   lane loads 48 doubles (LDS.64) for 16 (or 128 smaller) DMMA.  The 64
 *   accumulators take 128 registers, so one block per SM; three cp.async
 *   stages keep two tiles of global loads in flight behind the one being
 *   computed.
 * - Shared tiles are [k][row] with rows padded to 128 + 4 doubles when the
 *   operand's contiguous dimension is the row (m or n), [row][k] with k
 *   padded to 16 + 4 when it is k: the copies are then 16-byte cp.async
 *   along the contiguous dimension, and a fragment read - lanes 0..15 at
 *   k 0..3 x row 0..3 - lands on 16 distinct 8-byte bank pairs in both
 *   forms (132 and 20 doubles are 4 mod 16).
 * - Tiles at the matrix edge and the k tail zero-fill through the copy's
 *   source size (0 or 8 bytes of each 16), so any m, n, k is exact; the
 *   stores are guarded.  Operands not 16-byte aligned copy 8 bytes at a time.
 * - alpha and beta are applied in the epilogue; beta == 0 never reads C.
 * - Split-K (dgemm.c) runs the same kernel over chunks of k as a batch into
 *   a workspace; dlg_dgemm_splitk_reduce adds the chunks into C.
 *   alpha == 0 or k == 0 arrive as k = 0 (A and B are not read).
 */
#include "dgemm_args.h"

namespace dmma {

enum { TBM = DLG_DGEMM_BM, TBN = DLG_DGEMM_BN, TBK = DLG_DGEMM_BK, NSTAGES = DLG_DGEMM_STAGES,
       NTHREADS = DLG_DGEMM_THREADS, TILE_D = DLG_DGEMM_TILE_DOUBLES };

static __device__ __forceinline__ unsigned saddr(const void *p)
{
  return (unsigned)__cvta_generic_to_shared(p);
}
/* Copy 16 bytes, of which `bytes` (0, 8 or 16) from src and the rest zero. */
static __device__ __forceinline__ void copy16(unsigned dst, const double *src, unsigned bytes)
{
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes)
               : "memory");
}
static __device__ __forceinline__ void copy8(unsigned dst, const double *src, unsigned bytes)
{
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src), "r"(bytes)
               : "memory");
}
static __device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
static __device__ __forceinline__ void wait_pending()
{
  asm volatile("cp.async.wait_group %0;\n" ::"n"(NSTAGES - 2) : "memory");
}

/* One operand's ROWS x TBK tile (ROWS = 128 rows of op(X), X = A or B^T) into
 * shared memory.  KC: rows are k-contiguous in memory, the tile is stored
 * [row][k]; otherwise it is stored [k][row].  Each 16-byte chunk is two
 * doubles along the contiguous dimension; chunks past the edge of the
 * matrix (rows) or of k copy zero bytes from the matrix origin. */
template <bool KC>
static __device__ __forceinline__ void load_tile(double *s, const double *x, long long ld,
                                                 int row0, int rows, int k0, int k, bool vec)
{
  enum { CHUNKS = TBM * TBK / 2, PER_THREAD = CHUNKS / NTHREADS };
#pragma unroll
  for (int i = 0; i < PER_THREAD; i++) {
    const int c = (int)threadIdx.x + i * NTHREADS;
    int r, kk;
    unsigned dst;
    if (KC) r = c / (TBK / 2), kk = (c % (TBK / 2)) * 2, dst = saddr(s + r * (TBK + 4) + kk);
    else kk = c / (TBM / 2), r = (c % (TBM / 2)) * 2, dst = saddr(s + kk * (TBM + 4) + r);
    const int gr = row0 + r, gk = k0 + kk;
    /* elements valid along the contiguous dimension, and along the other */
    const int run = KC ? k - gk : rows - gr;
    const bool other = KC ? gr < rows : gk < k;
    const int n = other ? (run >= 2 ? 2 : run > 0 ? run : 0) : 0;
    const double *src = n ? (KC ? x + (long long)gr * ld + gk : x + gr + (long long)gk * ld) : x;
    if (vec) {
      copy16(dst, src, (unsigned)n * 8);
    } else {
      copy8(dst, src, n >= 1 ? 8 : 0);
      copy8(dst + 8, n >= 2 ? src + 1 : x, n >= 2 ? 8 : 0);
    }
  }
}

/* Element (row, kk) of a stored tile. */
template <bool KC>
static __device__ __forceinline__ double frag(const double *s, int row, int kk)
{
  return KC ? s[row * (TBK + 4) + kk] : s[kk * (TBM + 4) + row];
}

/* The DMMA shape: sm_90 has a native 16 x 8 x 16 double MMA (DMMA.16x8x16);
 * the 8 x 8 x 4 one, the only shape of sm_80, issues there at half the
 * rate (measured: 24 TFLOP/s for this kernel on the H100 with it).
 * Fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16", .f64), with
 * g = lane / 4 and t = lane % 4: A element q at row g + 8 (q % 2), k t +
 * 4 (q / 2); B element q at k t + 4 q, column g; C element e at row g +
 * 8 (e / 2), column 2 t + e % 2.  m8n8k4 is the same with one A, one B and
 * two C elements. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
enum { MM = 16, MK = 16 };
static __device__ __forceinline__ void dmma(double (&d)[4], const double (&a)[8], const double (&b)[4])
{
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
               "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
                 "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
#else
enum { MM = 8, MK = 4 };
static __device__ __forceinline__ void dmma(double (&d)[2], const double (&a)[1], const double (&b)[1])
{
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a[0]), "d"(b[0]));
}
#endif
enum { MI = 64 / MM, /* DMMA tiles of a warp along m; 4 along n */
       AE = MM * MK / 32, BE = 8 * MK / 32, CE = MM * 8 / 32 /* per-lane elements */ };

template <bool A_KC, bool B_KC>
static __device__ __forceinline__ void gemm(const dlg_dgemm_args &p)
{
  extern __shared__ __align__(16) double smem[];
  const int lane = (int)threadIdx.x % 32, warp = (int)threadIdx.x / 32;
  const int wm = (warp % 2) * 64, wn = (warp / 2) * 32;
  const int m0 = (int)blockIdx.x * TBM, n0 = (int)blockIdx.y * TBN;
  const long long z = blockIdx.z;
  const double *a = p.a + z * p.sa, *b = p.b + z * p.sb;
  double *c = p.c + z * p.sc;
  const int tiles = (p.k + TBK - 1) / TBK;
  const int g = lane / 4, q4 = lane % 4;
  double acc[MI][4][CE];

#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int j = 0; j < 4; j++)
#pragma unroll
      for (int e = 0; e < CE; e++) acc[i][j][e] = 0.0;

  /* op(B)'s rows are B's columns: B^T is stored like A, k-contiguous when B is. */
#pragma unroll
  for (int s = 0; s < NSTAGES - 1; s++) {
    if (s < tiles) {
      load_tile<A_KC>(smem + s * 2 * TILE_D, a, p.lda, m0, p.m, s * TBK, p.k, p.vec_a);
      load_tile<B_KC>(smem + s * 2 * TILE_D + TILE_D, b, p.ldb, n0, p.n, s * TBK, p.k, p.vec_b);
    }
    commit();
  }
  for (int t = 0; t < tiles; t++) {
    wait_pending();
    __syncthreads(); /* tile t is in; every warp is done with tile t - 1's stage */
    {
      const int next = t + NSTAGES - 1, s = next % NSTAGES;
      if (next < tiles) {
        load_tile<A_KC>(smem + s * 2 * TILE_D, a, p.lda, m0, p.m, next * TBK, p.k, p.vec_a);
        load_tile<B_KC>(smem + s * 2 * TILE_D + TILE_D, b, p.ldb, n0, p.n, next * TBK, p.k, p.vec_b);
      }
      commit();
    }
    const double *sa = smem + (t % NSTAGES) * 2 * TILE_D, *sb = sa + TILE_D;
#pragma unroll
    for (int k0 = 0; k0 < TBK; k0 += MK) {
      double fb[4][BE];
#pragma unroll
      for (int j = 0; j < 4; j++)
#pragma unroll
        for (int e = 0; e < BE; e++) fb[j][e] = frag<B_KC>(sb, wn + j * 8 + g, k0 + q4 + 4 * e);
#pragma unroll
      for (int i = 0; i < MI; i++) {
        double fa[AE];
#pragma unroll
        for (int e = 0; e < AE; e++)
          fa[e] = frag<A_KC>(sa, wm + i * MM + g + 8 * (e % 2), k0 + q4 + 4 * (e / 2));
#pragma unroll
        for (int j = 0; j < 4; j++) dmma(acc[i][j], fa, fb[j]);
      }
    }
  }

#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int e = 0; e < CE; e++) {
      const int row = m0 + wm + i * MM + g + 8 * (e / 2);
      if (row >= p.m) continue;
#pragma unroll
      for (int j = 0; j < 4; j++) {
        const int col = n0 + wn + j * 8 + q4 * 2 + e % 2;
        if (col >= p.n) continue;
        double *cp = c + row + (long long)col * p.ldc;
        *cp = p.beta == 0.0 ? p.alpha * acc[i][j][e] : p.alpha * acc[i][j][e] + p.beta * *cp;
      }
    }
}

} // namespace dmma

#define DLG_DGEMM_KERNEL(NAME, AKC, BKC)                                                   \
  extern "C" __global__ void __launch_bounds__(DLG_DGEMM_THREADS, 1) NAME(dlg_dgemm_args p) \
  {                                                                                        \
    dmma::gemm<AKC, BKC>(p);                                                               \
  }
DLG_DGEMM_KERNEL(dlg_dgemm_dmma_rr, false, false)
DLG_DGEMM_KERNEL(dlg_dgemm_dmma_rk, false, true)
DLG_DGEMM_KERNEL(dlg_dgemm_dmma_kr, true, false)
DLG_DGEMM_KERNEL(dlg_dgemm_dmma_kk, true, true)
#undef DLG_DGEMM_KERNEL

/* Split-K's second pass (dgemm.c): C = the sum of the splits' partial
 * products (each alpha op(A) op(B) over its range of k, m x n column-major,
 * one after the other in work) + beta C, beta == 0 never reading C.  The
 * splits are added in order, so the result does not depend on the launch. */
extern "C" __global__ void dlg_dgemm_splitk_reduce(const double *work, double *c, int m, int n,
                                                   int splits, long long ldc, double beta)
{
  const long long mn = (long long)m * n;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < mn;
       e += (long long)gridDim.x * blockDim.x) {
    double s = 0.0;
    for (int q = 0; q < splits; q++) s += work[q * mn + e];
    double *cp = c + (e / m) * ldc + e % m;
    *cp = beta == 0.0 ? s : s + beta * *cp;
  }
}
