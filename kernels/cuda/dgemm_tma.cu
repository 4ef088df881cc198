/*
 * dgemm_tma.cu - the FP64 tensor-core GEMM of sm_90, its operands brought
 * in by TMA behind mbarriers: the tile, warps and DMMAs of dgemm_dmma.cu
 * (dgemm_tile.cuh), without its cp.async copies and block barriers.
 *
 * Why (bench/NOTES.md, "FP64 through TMA"): with cp.async the DMMA pipe
 * was busy 91% of the time against cuBLAS's 98.5%; what was left was the
 * copies' address arithmetic between the DMMAs and the block-wide barrier
 * each stage, where the warps of a block wait for the slowest.  This one,
 * before its loads went between the DMMAs, kept it busy 93% (cuBLAS's
 * kernel 97% in the same ncu run).
 *
 * - The block is the tile's four warps (the consumers) and a producer
 *   warpgroup, one thread of which issues every stage's boxes after
 *   arming its "full" barrier with their bytes, four stages deep; the
 *   producer keeps 24 registers and the consumers get 232 (setmaxnreg).
 *   Each consumer warp waits for "full" on its own and marks the stage
 *   "empty" once the DMMAs that take the stage's last fragments are
 *   issued: only then have its loads from it returned (an arrival right
 *   after issuing them let the producer's next box land under loads still
 *   in flight: fp64 NT 4096^3 off by 2e-2).  No warp waits for another but
 *   through the data.  Before, lane 0 of warp t mod 4 refilled the stage
 *   tile t - 1 left: the refilling branch made every warp's loop twice as
 *   long (337 instructions a tile against 156 for NN) and the pipe idle
 *   while both blocks' refilling warps, on one scheduler, issued; per
 *   clock (ncu) the squares went from 1.3-1.9% behind cuBLAS to 0.8%
 *   behind (4096^3) and 0.8% ahead (8192^3).
 * - A row-contiguous operand whose rows are whole 16s comes in one box of
 *   a 4-D view (dgemm.c's whole_*), otherwise in a box of 16 rows at a time.
 * - TMA zero-fills outside the matrices, so edge tiles and a k tail take
 *   the same path as the rest.
 * - The stored tiles are 128-byte swizzled (TMA writes a box dense; the
 *   swizzle is what spreads a fragment read over the banks): a
 *   k-contiguous operand as [row][16 k], its 16-byte chunk k/2 stored at
 *   chunk (k/2) ^ (row % 8); a row-contiguous one in boxes of 16 rows, each
 *   [k][16 rows], chunk (row % 16)/2 at ((row % 16)/2) ^ (k % 8).
 * - Which physical row a fragment row is, is free (C's rows and columns
 *   follow it in the epilogue), and chosen so that every fragment read is
 *   conflict-free with k in its natural order (lane t reads k = t + 4 e
 *   + 8 s for element e of k-step s, 8 bytes a load):
 *   - k-contiguous operand: fragment row g of 8 is row kc_row(g) = (g % 4)
 *     * 2 + g / 4.  A half warp (g 0..3, t 0..3) reads chunks ((t / 2) ^
 *     2 g) and halves t % 2: 16 distinct 8-byte bank pairs.
 *   - row-contiguous operand: fragment rows g and g + 8 of a DMMA tile (A),
 *     or row g of two neighbouring 8-column tiles (B), are the 16 rows
 *     rc_row(g, h) = g % 2 + h * 2 + (g / 4) * 4 + (g / 2 % 2) * 8: a half
 *     warp reads rows 0, 1, 8, 9 (+ 2 h), chunks t ^ {0, 4} and both
 *     halves of each.
 *   (A 16-byte read of a k pair would need k reordered, and the DMMA takes
 *   a row's two k values in registers that are not neighbours: ptxas moved
 *   them and spilled.)
 * - Each k-step's DMMAs go in rounds, each after a share of the next
 *   k-step's fragment loads (step, in the kernel), so that the loads issue
 *   in the fixed gaps between DMMAs.
 * - The tile order and the split last wave (the tail twins: dgemm_tile.cuh's
 *   segment and tail_finish) are dgemm_dmma.cu's; the epilogue goes
 *   through shared memory, out by TMA stores where beta is 0 (stage_c,
 *   tma_store_c, write_c).
 */
#include <cuda.h>
#include <type_traits>
#include "dgemm_tile.cuh"
#include "in_place.cuh"
#include "tma.cuh"

namespace dmma {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

enum { STAGES = DLG_DGEMM_TMA_STAGES, A_BYTES = TBM * TBK * 8, B_BYTES = TBN * TBK * 8,
       STAGE_BYTES = A_BYTES + B_BYTES, BOX_BYTES = 16 * TBK * 8 /* 16 rows x 16 k */ };
/* The block: the tile's NTHREADS (the consumers), then a producer
 * warpgroup.  Its registers split by setmaxnreg: two blocks an SM have 256
 * a thread on average; the producer keeps the least there is. */
enum { PRODUCER_REGS = 24,
       CONSUMER_REGS = 65536 / DLG_DGEMM_BLOCKS_PER_SM / NTHREADS - PRODUCER_REGS };
static_assert(DLG_DGEMM_TMA_THREADS == 2 * NTHREADS && NTHREADS == 128, "a warpgroup each");
static_assert(TBK == 16 && MM == 16 && MK == 8, "one stage is two k-steps of DMMA.16x8x8");

/* tma_load (tma.cuh) from a 4-D view: a stage of a row-contiguous operand, all of
 * its boxes of 16 rows at once (dgemm.c's whole_*). */
static __device__ __forceinline__ void tma_load4(unsigned dst, const CUtensorMap *map, unsigned bar,
                                                 int c1, int c2, int c3)
{
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(dst),
               "l"(map), "r"(0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
               : "memory");
}

/* Where element (row, k) of a stored tile is, in bytes (see above). */
static __device__ __forceinline__ unsigned at_kc(int row, int k)
{
  return row * 128 + ((((k >> 1) ^ row) & 7) << 4) + ((k & 1) << 3);
}
static __device__ __forceinline__ unsigned at_rc(int row, int k)
{
  return (row >> 4) * BOX_BYTES + k * 128 + (((((row & 15) >> 1) ^ k) & 7) << 4) + ((row & 1) << 3);
}
/* The physical rows of fragment rows (see above). */
static __device__ __forceinline__ int kc_row(int g) { return (g & 3) * 2 + (g >> 2); }
static __device__ __forceinline__ int rc_row(int g, int h)
{
  return (g & 1) + h * 2 + (g >> 2) * 4 + ((g >> 1) & 1) * 8;
}
/* The epilogue, through shared memory (the stages, free once every warp
 * is past the main loop).  Each thread puts its accumulators times alpha
 * into the TBM x TBN tile (stage_c; at(i, j, e, row, col): the tile's row
 * and column of accumulator [i][j][e]), laid out as TMA's 128-byte
 * swizzle lays out TBM / 16 boxes of 16 rows x TBN columns: box row / 16,
 * a column a 128-byte line, 16-byte chunk (row % 16) / 2 at chunk ((row %
 * 16) / 2) ^ (col % 8) (at_c).  Then:
 * - with beta 0 and C addressable by TMA (p.c_tma, dgemm.c), one thread
 *   hands the boxes to TMA stores, which clip them at C's edges, and waits
 *   until they have read the stages; the other threads leave at once;
 * - otherwise the block writes C half a column a warp at a time, 16 bytes
 *   a lane: each store four whole 128-byte lines (write_c), with beta
 *   times C read the same way, a batch of C_BATCH stores ahead (beta == 0
 *   never reads C).
 * Stored where they are, the accumulators took 64 8-byte stores a thread,
 * each warp's store half of four lines: with the stores left out, fp64
 * 8192 x 8192 x 2048 ran at 1.00 of cuBLAS instead of 0.96, x 256 at 1.12
 * instead of 0.82.  Through write_c x 2048 runs at 0.97, x 256 with beta
 * -1 at 0.92-0.95 instead of 0.88 (bench/NOTES.md).  With the chunks
 * swizzled, a warp's 8-byte writes fall on each bank pair twice (two
 * wavefronts, the least for 256 bytes), and write_c's 16-byte reads of a
 * half column take four (512 bytes). */
enum { C_STORES = TBM * TBN / 2 / NTHREADS, C_BATCH = 16, C_BOX = TBN * 128 };
static_assert(TBM / 16 * C_BOX <= STAGES * STAGE_BYTES, "C's boxes fit in the stages");
static_assert(C_STORES % C_BATCH == 0, "whole batches");
static __device__ __forceinline__ unsigned at_c(int row, int col)
{
  return (row >> 4) * C_BOX + col * 128 + ((((row & 15) >> 1) ^ col) & 7) * 16 + (row & 1) * 8;
}
template <typename AT>
static __device__ __forceinline__ void stage_c(char *tile, double alpha,
                                               const double (&acc)[MI][NJ][CE], AT at)
{
#pragma unroll
  for (int x = 0; x < MI * NJ * CE; x++) {
    const int i = x / (NJ * CE), j = x / CE % NJ, e = x % CE;
    int row, col;
    at(i, j, e, row, col);
    *reinterpret_cast<double *>(tile + at_c(row, col)) = alpha * acc[i][j][e];
  }
}
/* The tile's boxes (staged at shared address src) into C at (m0, n0),
 * batch entry z, by one thread, which then waits until they are read. */
static __device__ __forceinline__ void tma_store_c(const CUtensorMap *mc, unsigned src, int m0,
                                                   int n0, int z)
{
  for (int b = 0; b < TBM / 16; b++) tma_store(mc, src + b * C_BOX, m0 + 16 * b, n0, z);
  tma_commit();
  tma_store_wait_read<0>();
}
/* The tile into oc (om x on, column-major, leading dimension ldc) at (m0,
 * n0), plus beta times what is there: store v of a thread is rows row, row
 * + 1 of column col, in one 16-byte access where oc's columns are 16-byte
 * aligned and both rows are in C.  Not inlined, so that its registers are
 * not the main loop's: inlined, its batch of loads changed how ptxas
 * scheduled the main loop. */
static __device__ __noinline__ void write_c(const char *tile, double *oc, long long ldc, int m0,
                                            int n0, int om, int on, double beta)
{
  const bool vec = (reinterpret_cast<uintptr_t>(oc) | (uintptr_t)ldc * 8) % 16 == 0;
  auto at = [&](int v, int &row, int &col) {
    const int q = v * NTHREADS + (int)threadIdx.x;
    col = q / (TBM / 2), row = 2 * (q % (TBM / 2));
  };
#pragma unroll 1
  for (int b = 0; b < C_STORES; b += C_BATCH) {
    double2 old[C_BATCH];
#pragma unroll
    for (int v = 0; v < C_BATCH; v++) {
      int row, col;
      at(b + v, row, col);
      const int r = m0 + row, c = n0 + col;
      const double *const cp = oc + r + (long long)c * ldc;
      old[v] = make_double2(0.0, 0.0);
      if (beta == 0.0 || c >= on || r >= om) continue;
      if (vec && r + 1 < om) old[v] = *reinterpret_cast<const double2 *>(cp);
      else old[v] = make_double2(cp[0], r + 1 < om ? cp[1] : 0.0);
    }
#pragma unroll
    for (int v = 0; v < C_BATCH; v++) {
      int row, col;
      at(b + v, row, col);
      const int r = m0 + row, c = n0 + col;
      double *const cp = oc + r + (long long)c * ldc;
      double2 y = *reinterpret_cast<const double2 *>(tile + at_c(row, col));
      if (c >= on || r >= om) continue;
      if (beta != 0.0) y.x += beta * old[v].x, y.y += beta * old[v].y;
      if (vec && r + 1 < om) *reinterpret_cast<double2 *>(cp) = y;
      else {
        cp[0] = y.x;
        if (r + 1 < om) cp[1] = y.y;
      }
    }
  }
}

template <bool A_KC, bool B_KC, typename SEG>
static __device__ __forceinline__ void gemm_tma(const dlg_dgemm_args &p, const CUtensorMap *ma,
                                                const CUtensorMap *mb, const CUtensorMap *mc,
                                                SEG seg)
{
  extern __shared__ __align__(16) unsigned char smem[];
  /* the barriers first (full: STAGES, empty: STAGES), then the stages on
   * the 1024-byte boundary the 128-byte swizzle is laid out from */
  const unsigned bars = saddr(smem), s0 = (bars + 16 * STAGES + 16 + 1023) & ~1023u;
  /* the tile's corner, worked out anew where used (the boxes, the
   * epilogue): kept through the main loop, it spilled */
  auto corner = [&](int &m0, int &n0) { tile_at(p, SEG::tile(p), m0, n0); };

  if (threadIdx.x == 0) {
    int m0, n0;
    corner(m0, n0);
    /* the boxes' coordinates, read back by the producer */
    int4 *const at = reinterpret_cast<int4 *>(smem + 16 * STAGES);
    *at = make_int4(m0, n0, (int)blockIdx.z, seg.kbeg(p));
    for (int s = 0; s < STAGES; s++) {
      bar_init(bars + 8 * s, 1);                                /* the producer's expect_tx */
      bar_init(bars + 8 * (STAGES + s), NTHREADS / 32);         /* one per consumer warp */
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  if (threadIdx.x >= NTHREADS) { /* the producer warpgroup: one thread issues every stage */
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"((int)PRODUCER_REGS));
    if (threadIdx.x != NTHREADS) return;
    int m0, n0, z, kbeg;
    asm volatile("ld.shared.v4.s32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(m0), "=r"(n0), "=r"(z), "=r"(kbeg)
                 : "r"(bars + 16 * STAGES));
    const int tiles = (seg.k(p) + TBK - 1) / TBK, za = p.sa ? z : 0, zb = p.sb ? z : 0;
    for (int t = 0; t < tiles; t++) {
      const int s = t % STAGES, kc = kbeg + t * TBK;
      const unsigned sa = s0 + s * STAGE_BYTES, sb = sa + A_BYTES, full = bars + 8 * s;
      /* the stage free: every consumer warp done with tile t - STAGES */
      if (t >= STAGES) bar_wait(bars + 8 * (STAGES + s), ((t / STAGES) & 1) ^ 1);
      bar_expect(full, STAGE_BYTES);
      if (A_KC) tma_load(sa, ma, full, kc, m0, za);
      else if (p.whole_a) tma_load4(sa, ma, full, kc, m0 / 16, za);
      else
        for (int b = 0; b < TBM / 16; b++) tma_load(sa + b * BOX_BYTES, ma, full, m0 + 16 * b, kc, za);
      if (B_KC) tma_load(sb, mb, full, kc, n0, zb);
      else if (p.whole_b) tma_load4(sb, mb, full, kc, n0 / 16, zb);
      else
        for (int b = 0; b < TBN / 16; b++) tma_load(sb + b * BOX_BYTES, mb, full, n0 + 16 * b, kc, zb);
    }
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"((int)CONSUMER_REGS));
  const int lane = (int)threadIdx.x % 32, warp = (int)threadIdx.x / 32;
  const int wm = (warp % WARPS_M) * WTM, wn = (warp / WARPS_M) * WTN;
  const int g = lane / 4, q4 = lane % 4;
  const int tiles = (seg.k(p) + TBK - 1) / TBK;
  double acc[MI][NJ][CE];
  double fa[2][MI][AE], fb[2][NJ][BE]; /* fragments: the k-step computed, the next one */
  zero(acc);
  if (seg.whole && p.beta != 0.0) {
    int m0, n0;
    corner(m0, n0);
    prefetch_c(p.c + blockIdx.z * p.sc, p.ldc, m0, n0, p.m, p.n);
  }

  /* k-step ks of the tile in stage s into fragment buffer buf.  Every
   * address is one of four per-lane offsets an operand plus a constant:
   * 16 rows on are 2 KB on in both forms, 8 rows on 1 KB in the
   * k-contiguous one, 8 k on 1 KB in the row-contiguous one. */
  unsigned oa[2][2], ob[2][2]; /* kc: [e][ks]; rc: [h or j % 2][e] */
#pragma unroll
  for (int x = 0; x < 2; x++)
#pragma unroll
    for (int y = 0; y < 2; y++) {
      oa[x][y] = A_KC ? at_kc(wm + kc_row(g), q4 + 4 * x + 8 * y) : at_rc(wm + rc_row(g, x), q4 + 4 * y);
      ob[x][y] = B_KC ? at_kc(wn + kc_row(g), q4 + 4 * x + 8 * y) : at_rc(wn + rc_row(g, x), q4 + 4 * y);
    }
  /* the x-th of a k-step's loads: B's NJ x BE, then A's MI x AE, from the
   * stage at shared address sa: plain loads, not asm, so that ptxas may
   * place them between the DMMAs (not past the barrier waits: those are
   * memory clobbers) */
  auto ld = [](unsigned a) {
    return *reinterpret_cast<const double *>(__cvta_shared_to_generic(a));
  };
  auto load_one = [&](int buf, unsigned sa, int ks, int x) {
    const unsigned sb = sa + A_BYTES;
    if (x < NJ * BE) {
      const int j = x / BE, e = x % BE;
      fb[buf][j][e] = ld(B_KC ? sb + ob[e][ks] + j * 1024
                              : sb + ob[j % 2][e] + (j / 2) * 2048 + ks * 1024);
    } else {
      const int i = (x - NJ * BE) / AE, q = (x - NJ * BE) % AE;
      fa[buf][i][q] = ld(A_KC ? sa + oa[q / 2][ks] + i * 2048 + (q % 2) * 1024
                              : sa + oa[q % 2][q / 2] + i * 2048 + ks * 1024);
    }
  };
  /* A k-step in CH rounds, each a share of the next k-step's loads and then
   * a share of this one's DMMAs (step, below): the loads then issue in the
   * fixed gaps between DMMAs, where issued all before the DMMAs they left
   * the pipe idle while a warp's loads went out (ncu: the fixed-latency
   * stall ahead of cuBLAS's kernel).  Four rounds: fp64 4096^3 NN 0.96 ->
   * 1.00, NT 0.99 -> 1.03, 3000^3 NN 0.87 -> 0.96 of cuBLAS.  (The
   * k-contiguous-A, m-contiguous-B kernel once ran one round, 2 points
   * faster; at the consumers' 232 registers one round spills.) */
  enum { LOADS = NJ * BE + MI * AE, CH = 4 };
  static_assert(LOADS % CH == 0 && MI % CH == 0, "rounds of whole loads and DMMA rows");
  auto load_frags = [&](int buf, unsigned sa, int ks) {
#pragma unroll
    for (int x = 0; x < LOADS; x++) load_one(buf, sa, ks, x);
  };
  /* buffer cur's DMMAs in CH rounds, each after its share of the loads of
   * the next k-step (buffer nb, the stage at sa, k-step ks) */
  auto step = [&](auto cur_c, auto nb_c, unsigned sa, int ks) {
    constexpr int cur = decltype(cur_c)::value, nb = decltype(nb_c)::value;
#pragma unroll
    for (int c = 0; c < CH; c++) {
#pragma unroll
      for (int y = 0; y < LOADS / CH; y++) load_one(nb, sa, ks, c * (LOADS / CH) + y);
#pragma unroll
      for (int i = c * (MI / CH); i < (c + 1) * (MI / CH); i++)
#pragma unroll
        for (int j = 0; j < NJ; j++) dmma(acc[i][j], fa[cur][i], fb[cur][j]);
    }
  };

  /* The shared addresses of the stage computed, of the next one and of
   * their barriers, carried through the loop.  Worked out from the shared
   * base in it, ptxas re-read the base (S2R SR_CgaCtaId) every tile, ahead
   * of the tile's first loads; carried, they sit in uniform registers and
   * every load is [R + UR + imm], as in cuBLAS's kernel.  fp64 8192^3 NN
   * 0.977 -> 0.99 of cuBLAS, TT 4096^3 0.95 -> 0.98 (bench/NOTES.md). */
  unsigned st = s0, st_next = s0 + STAGE_BYTES % (STAGES * STAGE_BYTES);
  unsigned empty = bars + 8 * STAGES, full_next = bars + 8 * (1 % STAGES);
  if (tiles > 0) {
    bar_wait(bars, 0);
    load_frags(0, st, 0);
  }
  for (int t = 0; t < tiles; t++) {
    step(std::integral_constant<int, 0>{}, std::integral_constant<int, 1>{}, st, 1);
    /* the last tile's step loads from a stage nothing writes any more: never used */
    if (t + 1 < tiles) bar_wait(full_next, ((t + 1) / STAGES) & 1);
    step(std::integral_constant<int, 1>{}, std::integral_constant<int, 0>{}, st_next, 0);
    /* this warp is done with stage t % STAGES: its last fragments from it
     * are in the DMMAs just issued, so its loads have returned */
    __syncwarp();
    if (lane == 0) bar_arrive(empty);
    const bool wrap = st_next == s0 + (STAGES - 1) * STAGE_BYTES;
    st = st_next, empty = full_next + 8 * STAGES;
    st_next = wrap ? s0 : st_next + STAGE_BYTES;
    full_next = wrap ? bars : full_next + 8;
  }

  /* C, or a split tile's part: a dense TBM x TBN entry of the workspace,
   * addressed as if it were C, without beta */
  int m0, n0;
  corner(m0, n0);
  const int at = seg.slot(p);
  const bool part = at >= 0;
  double *const oc = part ? p.tail_work + (long long)at * TBM * TBN - m0 - (long long)n0 * TBM
                          : p.c + blockIdx.z * p.sc;
  /* every warp's last fragment loads are done: the stages are free */
  sync_tile();
  char *const tile = reinterpret_cast<char *>(__cvta_shared_to_generic(s0));
  /* accumulator e of a lane is fragment row g + 8 (e / 2), column 2 q4 + e
   * % 2.  The lane's place is worked out anew here (in_place): ptxas
   * otherwise computed its swizzled addresses ahead of the main loop, and
   * the loop of the row-contiguous-A kernels grew by 12 instructions. */
  const int tid = (int)in_place(threadIdx.x), eg = tid % 32 / 4, eq = tid % 4;
  const int em = (tid / 32 % WARPS_M) * WTM, en = (tid / 32 / WARPS_M) * WTN;
  stage_c(tile, p.alpha, acc, [&](int i, int j, int e, int &row, int &col) {
    const int cn = eq * 2 + e % 2;
    row = em + i * MM + (A_KC ? kc_row(eg) + 8 * (e / 2) : rc_row(eg, e / 2));
    col = en + (B_KC ? j * 8 + kc_row(cn) : (j / 2) * 16 + rc_row(cn, j % 2));
  });
  if (!part && p.c_tma) { /* the stages' writes made visible to the TMA (the async proxy) */
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    sync_tile();
    if (threadIdx.x == 0) tma_store_c(mc, s0, m0, n0, p.sc ? (int)blockIdx.z : 0);
    return;
  }
  sync_tile();
  write_c(tile, oc, part ? TBM : p.ldc, m0, n0, part ? m0 + TBM : p.m, part ? n0 + TBN : p.n,
          part ? 0.0 : p.beta);
  if (part) tail_finish(p);
}

#endif

} // namespace dmma

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define DLG_DGEMM_TMA_BODY(AKC, BKC, SEG) \
  dmma::gemm_tma<AKC, BKC>(p, &ma, &mb, &mc, dmma::SEG::make(p));
#else
#define DLG_DGEMM_TMA_BODY(AKC, BKC, SEG)
#endif
#define DLG_DGEMM_TMA_KERNEL(NAME, AKC, BKC, SEG)                                              \
  extern "C" __global__ void __launch_bounds__(DLG_DGEMM_TMA_THREADS, DLG_DGEMM_BLOCKS_PER_SM) \
      NAME(const dlg_dgemm_args p, const __grid_constant__ CUtensorMap ma,                     \
           const __grid_constant__ CUtensorMap mb, const __grid_constant__ CUtensorMap mc)     \
  {                                                                                            \
    DLG_DGEMM_TMA_BODY(AKC, BKC, SEG)                                                          \
  }
/* dlg_dgemm_tma_<ab>, a and b as dgemm_dmma.cu's, and their twins for a
 * split last wave, dlg_dgemm_tma_tail_<ab> (dgemm_dmma.cu's gemm_tail) */
DLG_DGEMM_TMA_KERNEL(dlg_dgemm_tma_rr, false, false, whole_k)
DLG_DGEMM_TMA_KERNEL(dlg_dgemm_tma_rk, false, true, whole_k)
DLG_DGEMM_TMA_KERNEL(dlg_dgemm_tma_kr, true, false, whole_k)
DLG_DGEMM_TMA_KERNEL(dlg_dgemm_tma_kk, true, true, whole_k)
DLG_DGEMM_TMA_KERNEL(dlg_dgemm_tma_tail_rr, false, false, segment)
DLG_DGEMM_TMA_KERNEL(dlg_dgemm_tma_tail_rk, false, true, segment)
DLG_DGEMM_TMA_KERNEL(dlg_dgemm_tma_tail_kr, true, false, segment)
DLG_DGEMM_TMA_KERNEL(dlg_dgemm_tma_tail_kk, true, true, segment)
