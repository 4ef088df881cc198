/*
 * dgemm_dmma.cu - FP64 GEMM on the double-precision tensor cores (DMMA,
 * mma.sync f64, sm_80 and later), for dgemm_ and float64 tensors.
 *
 * Same contract as the SIMT SGEMM: the column-major product C = alpha *
 * op(A) op(B) + beta * C, the backend having turned every layout into it;
 * A_KC / B_KC say whether A's and B's contiguous dimension is k.
 *
 * Why it is laid out as it is (bench/NOTES.md, "FP64 kernel", has the
 * measurements behind each choice):
 *
 * - DMMA computes with IEEE double fused multiply-adds: each product is
 *   exact and each addition rounded once, so the result is as accurate as
 *   DFMA loops, at up to twice their rate.  (The shape and the fragments
 *   are set out at dmma() below.)
 * - A 128 x 64 tile per block of 4 warps (2 along m x 2 along n, each a
 *   64 x 32 block of C), two blocks per SM: the 64 accumulators per lane
 *   take 128 registers, so an SM holds 8 warps either way, and two
 *   independent blocks keep the DMMA pipe fed while the other one waits at
 *   its barrier or in its prologue.  One block of 8 warps on a 128 x 128
 *   tile reached 45 TFLOP/s, these two 52-55.
 * - The k loop is software-pipelined in registers: a warp loads the next
 *   k-step's fragments while the current one's DMMAs run, and the last
 *   k-step of a tile loads the first fragments of the next tile, after the
 *   barrier that hands its stage over.  The DMMAs already issued keep the
 *   pipe busy while warps gather at the barrier (without this: 48).
 * - Three cp.async stages keep two tiles of global loads in flight behind
 *   the one being computed.  A block whose tiles lie wholly inside the
 *   matrices (the common case) copies through per-thread running pointers
 *   set up once: each copy is one add.  Edge tiles and the k tail take the
 *   general path, which zero-fills past the edges through the copy's source
 *   size, so any m, n, k is exact; it recomputes its indices on each use
 *   rather than keeping them live across the loop (kept live, they spilled).
 * - Shared tiles are [k][row] with rows padded to ROWS + 4 doubles when the
 *   operand's contiguous dimension is the row (m or n), [row][k] with k
 *   padded to 16 + 4 when it is k: the copies are then 16-byte cp.async
 *   along the contiguous dimension, and a fragment read - lanes 0..15 at
 *   k 0..3 x row 0..3 - lands on 16 distinct 8-byte bank pairs in both
 *   forms (132, 68 and 20 doubles are 4 mod 16).
 * - Blocks walk C's tiles in bands of DLG_DGEMM_BAND tile columns, down m
 *   within a band, so that the tiles resident at once share their panels of
 *   A and B in L2 (hit rate 49% -> 86% at 8192^3).
 * - alpha and beta are applied in the epilogue; beta == 0 never reads C.
 * - On sm_90, dgemm_tma.cu (the same tile through TMA) takes every
 *   product whose operands TMA can address; this kernel the rest.
 * - Split-K (dgemm.c) runs the same kernel over chunks of k as a batch into
 *   a workspace; dlg_dgemm_splitk_reduce adds the chunks into C.
 * - A grid whose last wave is partial (8192^3: 8192 tiles for 264 slots,
 *   8 of them to a 32nd wave) runs the tail twins (gemm_tail), which cut
 *   that wave's tiles along k so that every slot has a chunk, the parts
 *   summed in the kernel by whichever chunk finishes a tile last.
 *   alpha == 0 or k == 0 arrive as k = 0 (A and B are not read).
 */
#include "dgemm_tile.cuh"

namespace dmma {

enum { NSTAGES = DLG_DGEMM_STAGES,
       KS = TBK / MK /* k-steps per stage: even, so a tile starts in fragment buffer 0 */ };

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

/* One operand's ROWS x TBK tile (ROWS rows of op(X), X = A or B^T) into
 * shared memory, the general path.  KC: rows are k-contiguous in memory,
 * the tile is stored [row][k]; otherwise it is stored [k][row].  Each
 * 16-byte chunk is two doubles along the contiguous dimension; chunks past
 * the edge of the matrix (rows) or of k copy zero bytes from the origin. */
template <bool KC, int ROWS>
static __device__ __forceinline__ void load_tile(double *s, const double *x, long long ld,
                                                 int row0, int rows, int k0, int k, bool vec)
{
  enum { CHUNKS = ROWS * TBK / 2, PER_THREAD = CHUNKS / NTHREADS };
  int tid = (int)threadIdx.x;
  asm volatile("" : "+r"(tid)); /* indices recomputed here, not held across the k loop */
#pragma unroll
  for (int i = 0; i < PER_THREAD; i++) {
    const int c = tid + i * NTHREADS;
    int r, kk;
    unsigned dst;
    if (KC) r = c / (TBK / 2), kk = (c % (TBK / 2)) * 2, dst = saddr(s + r * (TBK + 4) + kk);
    else kk = c / (ROWS / 2), r = (c % (ROWS / 2)) * 2, dst = saddr(s + kk * (ROWS + 4) + r);
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

/* The same copy for a tile wholly inside the matrix, k included, 16-byte
 * copies legal: this thread's chunks are a fixed distance apart in memory
 * and in the tile, so each is one add from the last. */
template <bool KC, int ROWS>
struct tile_walk {
  enum { PER_THREAD = ROWS * TBK / 2 / NTHREADS };
  const double *base; /* this thread's first chunk in tile 0 */
  long long step;     /* between this thread's chunks */
  long long kstep;    /* between consecutive tiles of k */
  int soff, sstep;    /* the same in the stored tile (doubles) */
  __device__ __forceinline__ void init(const double *x, long long ld, int row0)
  {
    const int tid = (int)threadIdx.x;
    if (KC) {
      const int r = tid / (TBK / 2), kk = (tid % (TBK / 2)) * 2;
      base = x + (long long)(row0 + r) * ld + kk;
      step = (long long)(NTHREADS / (TBK / 2)) * ld, kstep = TBK;
      soff = r * (TBK + 4) + kk, sstep = (NTHREADS / (TBK / 2)) * (TBK + 4);
    } else {
      const int kk = tid / (ROWS / 2), r = (tid % (ROWS / 2)) * 2;
      base = x + (row0 + r) + (long long)kk * ld;
      step = (long long)(NTHREADS / (ROWS / 2)) * ld, kstep = (long long)TBK * ld;
      soff = kk * (ROWS + 4) + r, sstep = (NTHREADS / (ROWS / 2)) * (ROWS + 4);
    }
  }
  __device__ __forceinline__ void copy(double *s, int tile) const
  {
    const double *src = base + tile * kstep;
    const unsigned dst = saddr(s + soff);
#pragma unroll
    for (int i = 0; i < PER_THREAD; i++) {
      copy16(dst + i * sstep * 8, src, 16);
      src += step;
      asm volatile("" : "+l"(src)); /* one running pointer, not one register pair per chunk */
    }
  }
};

/* Element (row, kk) of a stored tile. */
template <bool KC, int ROWS>
static __device__ __forceinline__ double frag(const double *s, int row, int kk)
{
  return KC ? s[row * (TBK + 4) + kk] : s[kk * (ROWS + 4) + row];
}

/* The tile at (seg.m0(), seg.n0()) of op(A) op(B) over seg's range of k,
 * a and b the batch entry's operands, into C (c: the entry's) when
 * seg.slot() < 0, else as a dense TBM x TBN part into the split last
 * wave's workspace entry seg.slot(), addressed as if it were C, without
 * beta (whole_k and segment, below, are the two kinds of seg).  S: the
 * tile's shape (dgemm_tile.cuh), wide or thin. */
template <bool A_KC, bool B_KC, typename S, typename SEG>
static __device__ __forceinline__ void tile_product(const dlg_dgemm_args &p, const double *a,
                                                    const double *b, double *c, SEG seg)
{
  extern __shared__ __align__(16) double smem[];
  const int m0 = seg.m0(), n0 = seg.n0();
  const int lane = (int)threadIdx.x % 32, warp = (int)threadIdx.x / 32;
  const int wm = (warp % S::WM) * S::TM, wn = (warp / S::WM) * S::TN;
  const int tiles = (seg.k(p) + TBK - 1) / TBK;
  const int g = lane / 4, q4 = lane % 4;
  /* the operands at the range's first k */
  auto at_k = [&](const double *x, bool kc, long long ld) {
    return x + (kc ? seg.kbeg(p) : (long long)seg.kbeg(p) * ld);
  };
  double acc[S::I][S::J][CE];
  double fa[2][S::I][AE], fb[2][S::J][BE]; /* fragments: the k-step computed, the next one */

  zero(acc);
  if (seg.whole && p.beta != 0.0) prefetch_c<S::BM, S::BN>(c, p.ldc, m0, n0, p.m, p.n);

  /* op(B)'s rows are B's columns: B^T is stored like A, k-contiguous when B is. */
  tile_walk<A_KC, S::BM> wa;
  tile_walk<B_KC, S::BN> wb;
  wa.init(at_k(a, A_KC, p.lda), p.lda, m0);
  wb.init(at_k(b, B_KC, p.ldb), p.ldb, n0);
  /* tiles 0 .. inside - 1 take the fast copy (block-uniform) */
  const int inside =
      p.vec_a && p.vec_b && m0 + S::BM <= p.m && n0 + S::BN <= p.n ? seg.k(p) / TBK : 0;
  auto load_stage = [&](int t) {
    double *s = smem + (t % NSTAGES) * S::DOUBLES;
    if (t < inside) {
      wa.copy(s, t);
      wb.copy(s + S::A_TILE, t);
    } else {
      load_tile<A_KC, S::BM>(s, at_k(a, A_KC, p.lda), p.lda, m0, p.m, t * TBK, seg.k(p), p.vec_a);
      load_tile<B_KC, S::BN>(s + S::A_TILE, at_k(b, B_KC, p.ldb), p.ldb, n0, p.n, t * TBK, seg.k(p),
                           p.vec_b);
    }
  };
  auto load_frags = [&](int buf, int t, int k0) {
    const double *sa = smem + (t % NSTAGES) * S::DOUBLES, *sb = sa + S::A_TILE;
#pragma unroll
    for (int j = 0; j < S::J; j++)
#pragma unroll
      for (int e = 0; e < BE; e++)
        fb[buf][j][e] = frag<B_KC, S::BN>(sb, wn + j * 8 + g, k0 + q4 + 4 * e);
#pragma unroll
    for (int i = 0; i < S::I; i++)
#pragma unroll
      for (int e = 0; e < AE; e++)
        fa[buf][i][e] = frag<A_KC, S::BM>(sa, wm + i * MM + g + 8 * (e % 2), k0 + q4 + 4 * (e / 2));
  };

  cp_async_loop<NSTAGES, KS>(
      tiles, load_stage, [&](int buf, int t, int ks) { load_frags(buf, t, ks * MK); },
      [&](int buf) { products(acc, fa[buf], fb[buf]); });

  const int at = seg.slot(p);
  const bool part = at >= 0;
  double *const oc =
      part ? p.tail_work + (long long)at * S::BM * S::BN - m0 - (long long)n0 * S::BM : c;
  store_c(oc, part ? S::BM : p.ldc, part ? m0 + S::BM : p.m, part ? n0 + S::BN : p.n, p.alpha,
          part ? 0.0 : p.beta, acc, [&](int i, int j, int e, int &row, int &col) {
            row = m0 + wm + i * MM + g + 8 * (e / 2), col = n0 + wn + j * 8 + q4 * 2 + e % 2;
          });
}

/* The data-parallel kernel: block L computes tile L whole, batch entry
 * blockIdx.z. */
template <bool A_KC, bool B_KC, typename S>
static __device__ __forceinline__ void gemm(const dlg_dgemm_args &p)
{
  const long long z = blockIdx.z;
  int m0, n0;
  tile_at<S::BM, S::BN>(p, (int)blockIdx.x, m0, n0);
  tile_product<A_KC, B_KC, S>(p, p.a + z * p.sa, p.b + z * p.sb, p.c + z * p.sc,
                              whole_k{m0, n0});
}

/* The last wave split along k: the data-parallel kernel's full waves, and
 * behind them, in the same launch, the tiles of the last (partial) wave cut
 * into tail_splits chunks of k, so that every slot of that wave has work
 * (at 8192^3, 8192 tiles of 128 x 64 for 264 slots leave 8 tiles to a 32nd
 * wave; dgemm.c says when it pays).  One segment a block, no loop
 * around the product: a loop over segments (stream-K, as the SIMT kernels
 * have it) kept values through the main loop and spilled at 255 registers.
 * A chunk's block writes its part to the workspace, counts itself in at
 * the tile's counter, and the block that brings the count to tail_splits -
 * 1 adds the parts up (tail_sum_tile): nobody waits for anybody, so no
 * order of block scheduling can deadlock. */
template <bool A_KC, bool B_KC>
static __device__ __forceinline__ void gemm_tail(const dlg_dgemm_args &p)
{
  const int dp = p.tail_dp, j = (int)blockIdx.x - dp, s = p.tail_splits;
  const int t = j < 0 ? (int)blockIdx.x : dp + j / s;
  int m0, n0;
  tile_at(p, t, m0, n0);
  tile_product<A_KC, B_KC, wide>(p, p.a, p.b, p.c, segment{m0, n0, j < 0});
  if (j < 0) return;
  tail_finish(p);
}

} // namespace dmma

#define DLG_DGEMM_KERNEL(NAME, AKC, BKC)                                               \
  extern "C" __global__ void __launch_bounds__(DLG_DGEMM_THREADS, DLG_DGEMM_BLOCKS_PER_SM) \
      NAME(dlg_dgemm_args p)                                                           \
  {                                                                                    \
    dmma::gemm<AKC, BKC, dmma::wide>(p);                                               \
  }
#define DLG_DGEMM_TAIL(NAME, AKC, BKC)                                                 \
  extern "C" __global__ void __launch_bounds__(DLG_DGEMM_THREADS, DLG_DGEMM_BLOCKS_PER_SM) \
      NAME(dlg_dgemm_args p)                                                           \
  {                                                                                    \
    dmma::gemm_tail<AKC, BKC>(p);                                                      \
  }
/* dlg_dgemm_dmma_<ab> and their twins for a split last wave,
 * dlg_dgemm_tail_<ab>: two kernels, not one with a branch, as the SIMT
 * kernels (registers are allocated over the whole kernel; sgemm_simt.cu
 * says what that cost). */
DLG_DGEMM_KERNEL(dlg_dgemm_dmma_rr, false, false)
DLG_DGEMM_KERNEL(dlg_dgemm_dmma_rk, false, true)
DLG_DGEMM_KERNEL(dlg_dgemm_dmma_kr, true, false)
DLG_DGEMM_KERNEL(dlg_dgemm_dmma_kk, true, true)
DLG_DGEMM_TAIL(dlg_dgemm_tail_rr, false, false)
DLG_DGEMM_TAIL(dlg_dgemm_tail_rk, false, true)
DLG_DGEMM_TAIL(dlg_dgemm_tail_kr, true, false)
DLG_DGEMM_TAIL(dlg_dgemm_tail_kk, true, true)
/* The thin tiles (dgemm_args.h), dlg_dgemm_thin_<m|n>_<ab>: data-parallel
 * and split-K only (their products are few tiles over a long k, which
 * split-K already cuts). */
#define DLG_DGEMM_SHAPE_KERNEL(NAME, AKC, BKC, S)                                        \
  extern "C" __global__ void __launch_bounds__(DLG_DGEMM_THREADS, DLG_DGEMM_BLOCKS_PER_SM) \
      NAME(dlg_dgemm_args p)                                                           \
  {                                                                                    \
    dmma::gemm<AKC, BKC, dmma::S>(p);                                                  \
  }
DLG_DGEMM_SHAPE_KERNEL(dlg_dgemm_thin_m_rr, false, false, thin_m)
DLG_DGEMM_SHAPE_KERNEL(dlg_dgemm_thin_m_rk, false, true, thin_m)
DLG_DGEMM_SHAPE_KERNEL(dlg_dgemm_thin_m_kr, true, false, thin_m)
DLG_DGEMM_SHAPE_KERNEL(dlg_dgemm_thin_m_kk, true, true, thin_m)
DLG_DGEMM_SHAPE_KERNEL(dlg_dgemm_thin_n_rr, false, false, thin_n)
DLG_DGEMM_SHAPE_KERNEL(dlg_dgemm_thin_n_rk, false, true, thin_n)
DLG_DGEMM_SHAPE_KERNEL(dlg_dgemm_thin_n_kr, true, false, thin_n)
DLG_DGEMM_SHAPE_KERNEL(dlg_dgemm_thin_n_kk, true, true, thin_n)
/* The flat tile (dgemm_args.h), dlg_dgemm_flat_<ab>: data-parallel and
 * split-K, as the thin ones. */
DLG_DGEMM_SHAPE_KERNEL(dlg_dgemm_flat_rr, false, false, flat)
DLG_DGEMM_SHAPE_KERNEL(dlg_dgemm_flat_rk, false, true, flat)
DLG_DGEMM_SHAPE_KERNEL(dlg_dgemm_flat_kr, true, false, flat)
DLG_DGEMM_SHAPE_KERNEL(dlg_dgemm_flat_kk, true, true, flat)
#undef DLG_DGEMM_KERNEL
#undef DLG_DGEMM_TAIL
#undef DLG_DGEMM_SHAPE_KERNEL

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
