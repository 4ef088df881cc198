/*
 * dgemm_tile.cuh - what the two FP64 tensor-core kernels share: the tile
 * and its warps, the DMMA and its fragments, the order blocks take C's
 * tiles in and the split last wave.  dgemm_dmma.cu feeds the tile through
 * cp.async (every chip from sm_80), dgemm_tma.cu through TMA (sm_90).
 * The epilogue here (store_c) is the cp.async kernel's; the TMA kernel's
 * goes through shared memory (dgemm_tma.cu says why).
 */
#ifndef DLG_DGEMM_TILE_CUH
#define DLG_DGEMM_TILE_CUH

#include "dgemm_args.h"
#include "in_place.cuh"

namespace dmma {

/* A TBM x TBN tile of C per block of NTHREADS, its warps WARPS_M along m,
 * each a WTM x WTN block of C (dgemm_dmma.cu says why this shape). */
enum { TBM = DLG_DGEMM_BM, TBN = DLG_DGEMM_BN, TBK = DLG_DGEMM_BK, NTHREADS = DLG_DGEMM_THREADS,
       WARPS_M = 2, WTM = TBM / WARPS_M, WTN = TBN / (NTHREADS / 32 / WARPS_M) };

static __device__ __forceinline__ unsigned saddr(const void *p)
{
  return (unsigned)__cvta_generic_to_shared(p);
}
/* A barrier of the tile's NTHREADS threads (named barrier 1): the whole
 * block of the cp.async kernel, the consumers of the TMA kernel (whose
 * producer warpgroup may have left); sync_tile_or also returns whether q
 * held in any of them. */
static __device__ __forceinline__ void sync_tile()
{
  asm volatile("bar.sync 1, %0;\n" ::"n"((int)NTHREADS) : "memory");
}
static __device__ __forceinline__ bool sync_tile_or(bool q)
{
  unsigned r;
  asm volatile("{\n .reg .pred p, q;\n setp.ne.u32 p, %1, 0;\n"
               " bar.red.or.pred q, 1, %2, p;\n selp.u32 %0, 1, 0, q;\n}\n"
               : "=r"(r)
               : "r"((unsigned)q), "n"((int)NTHREADS)
               : "memory");
  return r != 0;
}

/* The DMMA shape: sm_90 has native 16 x 8 x 8 and 16 x 8 x 16 double MMAs
 * (DMMA.16x8x8, .16x8x16); 8 x 8 x 4, the only shape of sm_80, issues
 * there at half the rate (24 TFLOP/s for the first version of this kernel
 * on the H100).  16 x 8 x 8 gives two k-steps per stage to pipeline (and is
 * what cuBLAS's sm_90 DGEMM uses).  Fragments (PTX ISA, "Matrix Fragments
 * for mma.m16n8k8", .f64), with g = lane / 4 and t = lane % 4: A element q
 * at row g + 8 (q % 2), k t + 4 (q / 2); B element q at k t + 4 q, column
 * g; C element e at row g + 8 (e / 2), column 2 t + e % 2.  m8n8k4 is the
 * same with one A, one B and two C elements. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
enum { MM = 16, MK = 8 };
static __device__ __forceinline__ void dmma(double (&d)[4], const double (&a)[4], const double (&b)[2])
{
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9}, {%0,%1,%2,%3};\n"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
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
enum { MI = WTM / MM, NJ = WTN / 8, /* DMMA tiles of a warp along m and n */
       AE = MM * MK / 32, BE = 8 * MK / 32, CE = MM * 8 / 32 /* per-lane elements */ };

/* A tile of BM_ x BN_ for the cp.async kernel: the 128 x 64 one above
 * (two warps along m, each 64 x 32), a thin one (dgemm_args.h), whose
 * four warps lie along its long side, each 32 x 32: a warp then holds 32
 * accumulators, not 64, and reads 2 fragment doubles a DMMA instead of
 * 1.5, still under half of what shared memory gives an SM per cycle at
 * the DMMA rate; or the flat 64 x 128, two warps along m as in the wide
 * tile, each 32 x 64 (64 accumulators, 1.5 doubles a DMMA). */
template <int BM_, int BN_> struct shape {
  enum { BM = BM_, BN = BN_, WM = BM_ == TBM && BN_ == TBN ? WARPS_M : BM_ / DLG_DGEMM_THIN,
         TM = BM_ / WM, TN = BN_ / (NTHREADS / 32 / WM), I = TM / MM, J = TN / 8,
         A_TILE = DLG_DGEMM_TILE(BM_), DOUBLES = A_TILE + DLG_DGEMM_TILE(BN_) };
  static_assert(TM % MM == 0 && TN % 8 == 0 && (NTHREADS / 32) % WM == 0, "whole DMMA tiles");
};
typedef shape<TBM, TBN> wide;
typedef shape<DLG_DGEMM_THIN, DLG_DGEMM_THICK> thin_m;
typedef shape<DLG_DGEMM_THICK, DLG_DGEMM_THIN> thin_n;
typedef shape<DLG_DGEMM_FLAT_BM, DLG_DGEMM_FLAT_BN> flat;

/* The block's tile of C (beta != 0) asked into L2 before the main loop, so
 * that the epilogue's reads find it there: in a rank-64 update the main
 * loop is four stages and the epilogue's C traffic is most of the time.
 * Each column of the tile is 1 KB, eight 128-byte lines (nine when C is
 * not aligned to them): thread t asks for lines t % 2 * 4 .. + 3 of column
 * t / 2, and the last row for the ninth.  Only addresses inside C. */
template <int BM = TBM, int BN = TBN>
static __device__ __forceinline__ void prefetch_c(const double *c, long long ldc, int m0, int n0,
                                                  int m, int n)
{
  /* threads a column of the tile, 128-byte lines a thread */
  enum { PER_COL = NTHREADS / BN, LINES = BM / 16 / PER_COL };
  static_assert(PER_COL >= 1 && LINES >= 1, "prefetch_c: every column of the tile");
  const int col = n0 + (int)threadIdx.x / PER_COL, rows = min(BM, m - m0);
  const double *cp = c + m0 + (long long)col * ldc;
  if (col >= n) return;
#pragma unroll
  for (int l = 0; l < LINES; l++) {
    const int r = ((int)threadIdx.x % PER_COL * LINES + l) * 16;
    if (r < rows) asm volatile("prefetch.global.L2 [%0];\n" ::"l"(cp + r));
  }
  if ((int)threadIdx.x % PER_COL == PER_COL - 1)
    asm volatile("prefetch.global.L2 [%0];\n" ::"l"(cp + rows - 1));
}

/* C's tile t in the blocks' walk: bands of DLG_DGEMM_BAND tile columns,
 * each walked across the band first and then down m (the last band may be
 * narrower). */
template <int BM = TBM, int BN = TBN>
static __device__ __forceinline__ void tile_at(const dlg_dgemm_args &p, int t, int &m0, int &n0)
{
  const int gm = (p.m + BM - 1) / BM, gn = (p.n + BN - 1) / BN;
  const int per_band = DLG_DGEMM_BAND * gm, band = t / per_band, in_band = t % per_band,
            width = min(DLG_DGEMM_BAND, gn - band * DLG_DGEMM_BAND);
  m0 = (in_band / width) * BM, n0 = (band * DLG_DGEMM_BAND + in_band % width) * BN;
}

/* A warp's accumulators zeroed, and one k-step of its DMMA tiles. */
template <int I, int J>
static __device__ __forceinline__ void zero(double (&acc)[I][J][CE])
{
#pragma unroll
  for (int i = 0; i < I; i++)
#pragma unroll
    for (int j = 0; j < J; j++)
#pragma unroll
      for (int e = 0; e < CE; e++) acc[i][j][e] = 0.0;
}
template <int I, int J>
static __device__ __forceinline__ void products(double (&acc)[I][J][CE], const double (&fa)[I][AE],
                                                const double (&fb)[J][BE])
{
#pragma unroll
  for (int i = 0; i < I; i++)
#pragma unroll
    for (int j = 0; j < J; j++) dmma(acc[i][j], fa[i], fb[j]);
}

/* The cp.async kernels' k loop over `tiles` tiles of STAGES stages, KS
 * DMMA k-steps each, software-pipelined in registers: a warp loads the
 * next k-step's fragments while the current one's DMMAs run, and the last
 * k-step of a tile loads the first fragments of the next tile, after the
 * barrier that hands its stage over (dgemm_dmma.cu says why).
 * load_stage(t) issues tile t's copies into its stage, load_frags(buf, t,
 * ks) reads k-step ks of tile t into fragment buffer buf, product(buf)
 * runs the DMMAs of buffer buf. */
template <int STAGES, int KS, typename LS, typename LF, typename PR>
static __device__ __forceinline__ void cp_async_loop(int tiles, LS load_stage, LF load_frags,
                                                     PR product)
{
  static_assert(KS % 2 == 0, "a tile starts in fragment buffer 0");
#pragma unroll
  for (int s = 0; s < STAGES - 1; s++) {
    if (s < tiles) load_stage(s);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  }
  asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory");
  __syncthreads();
  if (tiles > 0) load_frags(0, 0, 0);
  for (int t = 0; t < tiles; t++) {
    /* the stage of tile t - 1: every warp passed the barrier after reading it */
    if (t + STAGES - 1 < tiles) load_stage(t + STAGES - 1);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#pragma unroll
    for (int ks = 0; ks < KS; ks++) {
      if (ks + 1 < KS) {
        load_frags((ks + 1) & 1, t, ks + 1);
      } else if (t + 1 < tiles) {
        /* every copy group but the newest has landed (this thread's) */
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory");
        __syncthreads(); /* tile t + 1 is in, from every thread's copies */
        load_frags(0, t + 1, 0);
      }
      product(ks & 1);
    }
  }
}

/* The epilogue: the accumulators times alpha, plus beta times C, into
 * oc (om x on, column-major, leading dimension ldc); at(i, j, e, row,
 * col) says where accumulator [i][j][e] goes.  One DMMA row of tiles at a
 * time: its C elements are all read before any is written, so the loads
 * overlap (read and written one by one, as the compiler must when a store
 * may alias the next load, a beta != 0 rank-64 update ran at a quarter of
 * its beta == 0 speed).  beta == 0 never reads C.  The two loops are
 * written out: one walk passed a reading and a writing lambda made each
 * kernel 112 instructions longer. */
template <int I, int J, typename AT, typename O>
static __device__ __forceinline__ void store_c(O *oc, long long ldc, int om, int on,
                                               double alpha, double beta,
                                               const double (&acc)[I][J][CE], AT at)
{
#pragma unroll
  for (int i = 0; i < I; i++) {
    double old[J][CE];
#pragma unroll
    for (int e = 0; e < CE; e++)
#pragma unroll
      for (int j = 0; j < J; j++) {
        int row, col;
        at(i, j, e, row, col);
        old[j][e] =
            beta != 0.0 && row < om && col < on ? (double)oc[row + (long long)col * ldc] : 0.0;
      }
#pragma unroll
    for (int e = 0; e < CE; e++)
#pragma unroll
      for (int j = 0; j < J; j++) {
        int row, col;
        at(i, j, e, row, col);
        if (row < om && col < on)
          oc[row + (long long)col * ldc] =
              (O)(beta == 0.0 ? alpha * acc[i][j][e] : alpha * acc[i][j][e] + beta * old[j][e]);
      }
  }
}

/* A tile product's range of k and destination: all of k into C (the
 * data-parallel kernels), or a block of the split last wave's (the tail
 * kernels).  tile(p): the tile the block computes. */
struct whole_k {
  static constexpr bool whole = true;
  int m, n; /* the tile's first row and column */
  __device__ __forceinline__ int m0() const { return m; }
  __device__ __forceinline__ int n0() const { return n; }
  __device__ __forceinline__ int kbeg(const dlg_dgemm_args &) const { return 0; }
  /* split-K's last chunk (dgemm.c) may be shorter: one launch for them all */
  __device__ __forceinline__ int k(const dlg_dgemm_args &p) const
  {
    return p.k_last && blockIdx.z == gridDim.z - 1 ? p.k_last : p.k;
  }
  __device__ __forceinline__ int slot(const dlg_dgemm_args &) const { return -1; }
  static __device__ __forceinline__ int tile(const dlg_dgemm_args &)
  {
    return (int)in_place(blockIdx.x);
  }
  static __device__ __forceinline__ whole_k make(const dlg_dgemm_args &) { return whole_k{0, 0}; }
};
struct segment {
  int m, n;   /* the tile's first row and column */
  bool whole; /* C, prefetched when beta != 0 */
  /* the block's chunk of k (-1: all of it) and workspace entry, worked
   * out anew from the block index where used (the edge copies, the
   * epilogue): kept through the main loop, they spilled the kernels whose
   * operands are not k-contiguous */
  static __device__ __forceinline__ int chunk(const dlg_dgemm_args &p)
  {
    const int j = (int)in_place(blockIdx.x) - p.tail_dp;
    return j < 0 ? -1 : j % p.tail_splits;
  }
  __device__ __forceinline__ int kbeg(const dlg_dgemm_args &p) const
  {
    const int q = chunk(p);
    return q < 0 ? 0 : q * p.tail_chunk * TBK;
  }
  __device__ __forceinline__ int k(const dlg_dgemm_args &p) const
  {
    const int q = chunk(p);
    return q < 0 ? p.k : min(p.k - q * p.tail_chunk * TBK, p.tail_chunk * TBK);
  }
  __device__ __forceinline__ int slot(const dlg_dgemm_args &p) const
  {
    return whole ? -1 : (int)in_place(blockIdx.x) - p.tail_dp;
  }
  __device__ __forceinline__ int m0() const { return m; }
  __device__ __forceinline__ int n0() const { return n; }
  static __device__ __forceinline__ int tile(const dlg_dgemm_args &p)
  {
    const int b = (int)in_place(blockIdx.x), j = b - p.tail_dp;
    return j < 0 ? b : p.tail_dp + j / p.tail_splits;
  }
  /* without the corner (m, n), which the TMA kernel works out where used */
  static __device__ __forceinline__ segment make(const dlg_dgemm_args &p)
  {
    return segment{0, 0, (int)blockIdx.x < p.tail_dp};
  }
};

/* A split tile, once all its parts are in the workspace: the sum of its
 * `parts` entries in chunk order (so the result does not depend on who
 * finished last), plus beta * C, into C.  Two rows of a column per thread
 * and step; the parts are read past L1, which may hold older lines of the
 * workspace.  Not inlined, so that its registers are not the main loop's. */
static __device__ __noinline__ void tail_sum_tile(double *c, long long ldc, int m, int n,
                                                  double beta, const double2 *part, int parts,
                                                  int m0, int n0)
{
  enum { T2 = TBM * TBN / 2 }; /* double2s in a tile */
#pragma unroll 1
  for (int e = threadIdx.x; e < T2; e += NTHREADS) {
    const int row = m0 + (e * 2) % TBM, col = n0 + (e * 2) / TBM;
    if (row >= m || col >= n) continue;
    double2 s = __ldcg(part + e);
    for (int q = 1; q < parts; q++) {
      const double2 v = __ldcg(part + q * (long long)T2 + e);
      s.x += v.x, s.y += v.y;
    }
    double *cp = c + (long long)col * ldc + row;
    cp[0] = beta != 0.0 ? s.x + beta * cp[0] : s.x;
    if (row + 1 < m) cp[1] = beta != 0.0 ? s.y + beta * cp[1] : s.y;
  }
}

/* A chunk's part is in the workspace: count it in at its tile's counter;
 * the block that brings the count to tail_splits - 1 adds the parts up
 * (tail_sum_tile).  Nobody waits for anybody, so no order of block
 * scheduling can deadlock.  Every thread of the block calls it. */
static __device__ __forceinline__ void tail_finish(const dlg_dgemm_args &p)
{
  /* Release: every thread's part is visible device-wide before the count;
   * the adder's second fence is the acquire. */
  const int tail = ((int)in_place(blockIdx.x) - p.tail_dp) / p.tail_splits;
  __threadfence();
  sync_tile();
  if (sync_tile_or(threadIdx.x == 0 && atomicAdd(&p.tail_count[tail], 1) == p.tail_splits - 1)) {
    int sm0, sn0;
    __threadfence();
    tile_at(p, p.tail_dp + tail, sm0, sn0);
    const double *parts = p.tail_work + (long long)tail * p.tail_splits * TBM * TBN;
    tail_sum_tile(p.c, p.ldc, p.m, p.n, p.beta, reinterpret_cast<const double2 *>(parts),
                  p.tail_splits, sm0, sn0);
  }
}

} // namespace dmma

#endif
