/*
 * zgemm_dmma.cu - complex GEMM on the double-precision tensor cores,
 * reading A, B and C where they are: C = alpha op(A)' op(B)' + beta C
 * (zgemm_args.h), complex128 and complex64, for the products the real
 * embedding loses on (cgemm.c's native_wins says which).
 *
 * The embedding (plugin/cuda/level3/cgemm.c) makes a complex product one
 * real GEMM by packing an operand into [re -im; im re] blocks, copying
 * another when its layout is not the real view the GEMM needs, and
 * combining through a scratch C when C's is not: passes that move 3-5
 * times the bytes cuBLAS moves, and that dominate where a side or k is
 * small (attention heads, narrow products, odd squares: 0.3-0.8 of
 * cublasZgemm, H200, session 34).  This kernel is dgemm_dmma.cu's (its
 * tile, DMMA, fragments and pipeline, dgemm_tile.cuh) with the embedding
 * done where the fragments are read:
 *
 * - The real problem is the expansion's: A' (2m x 2k) of 2 x 2 blocks
 *   [x -y; y x] for each a = x + iy, B' (2k x n) B's interleaved storage,
 *   C' (2m x n) C's.  Four real products a complex one, each rounded as
 *   DMMA rounds, as the embedding's.
 * - cp.async copies complex elements (one chunk each: 16 bytes, complex64
 *   8, widened to double as fragments are read: FP64 DMMA's rate and
 *   rounding, C rounded once to float) into the stages as they are; a lane's fragment element of A' at real row r and
 *   real k c is part (r ^ c) & 1 of a(r / 2, c / 2), negated when r is even
 *   and c odd.  In every DMMA fragment a lane's row parity is that of g =
 *   lane / 4 and its k parity that of t = lane % 4 (PTX ISA, m16n8k8 and
 *   m8n8k4 .f64), so which part a lane reads and whether it negates are
 *   the lane's constants: one LOP3 on the high word an A element, ALU work
 *   beside the DMMAs.  conj(A) moves the negation to odd rows; conj(B)
 *   negates B's imaginary parts (the lanes of odd t).
 * - A complex tile of 64 x 64 is the real kernel's 128 x 64 (two blocks an
 *   SM, 64 accumulators a lane), a stage 8 complex k: 16 KB, where the real
 *   kernel's holds A' expanded, 24; the 32 x 32 tile (zgemm_args.h) is
 *   the real 64 x 32, four blocks an SM, 16 accumulators a lane, for C
 *   that fills it better.  Shared tiles are [k][row] with rows
 *   padded to ROWS + 4 elements when the operand's contiguous dimension is
 *   the row, [row][k] with k padded to 8 + 2 when it is k: a fragment read
 *   (lanes' rows g / 2, ks t / 2, parts (g ^ t) & 1) then covers 16
 *   distinct bank pairs (136, or 72 on the 32 tile, and 20 doubles are 8
 *   and 4 mod 16), and for complex64 16 distinct banks (136 or 72 and 20
 *   floats: 8 and 20 mod 32).
 * - The epilogue: a lane holds one part of each of its C elements and the
 *   lane 4 away (g ^ 1) the other, exchanged by a shuffle for the complex
 *   alpha; then C' goes out through dgemm_tile.cuh's store_c.  beta is
 *   real (callers scale C by a complex beta first), beta == 0 never reads C.
 * - Split-K (zdmma.c) runs the same kernel over chunks of k as a batch
 *   into a workspace (alpha applied, beta 0), which a reduce adds into C
 *   as a real matrix of twice the rows (dgemm_dmma.cu's for complex128,
 *   the one below for complex64).
 */
#include "dgemm_tile.cuh"
#include "zgemm_args.h"

namespace zdmma {

using dmma::AE;
using dmma::BE;
using dmma::CE;
using dmma::MK;
using dmma::MM;

enum { BK = DLG_ZGEMM_BK, NSTAGES = DLG_ZGEMM_STAGES, NTHREADS = DLG_ZGEMM_THREADS,
       WM = 2 /* warps along m */, KS = 2 * BK / MK /* real k-steps a stage: even */, BAND = 8 };

/* One complex element of E parts (`bytes` of them from src, the rest
 * zero): 16 bytes past L1, 8 through it (.cg copies 16 only). */
template <typename E>
static __device__ __forceinline__ void copy(unsigned dst, const E *src, unsigned bytes)
{
  if (sizeof(E) == 8)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src), "r"(bytes)
                 : "memory");
}

/* Where complex element (row, kk) of a stored tile begins, in parts. */
template <bool KC, int ROWS>
static __device__ __forceinline__ int at(int row, int kk)
{
  return 2 * (KC ? row * (BK + 2) + kk : kk * (ROWS + 4) + row);
}

/* One operand's ROWS x BK tile (rows of op(X), X = A or B^T) into shared
 * memory, the general path: elements past the matrix's edges (rows, k)
 * copy zero bytes from the origin, so any m, n, k is exact.  Indices are
 * recomputed on each use, not held across the k loop. */
template <bool KC, int ROWS, typename E>
static __device__ __forceinline__ void load_tile(E *s, const E *x, long long ld, int row0,
                                                 int rows, int k0, int k)
{
  enum { PER_THREAD = ROWS * BK / NTHREADS };
  int tid = (int)threadIdx.x;
  asm volatile("" : "+r"(tid));
#pragma unroll
  for (int i = 0; i < PER_THREAD; i++) {
    const int c = tid + i * NTHREADS;
    const int r = KC ? c / BK : c % ROWS, kk = KC ? c % BK : c / ROWS;
    const int gr = row0 + r, gk = k0 + kk;
    const bool in = gr < rows && gk < k;
    const E *src = in ? x + 2 * (KC ? (long long)gr * ld + gk : gr + (long long)gk * ld) : x;
    copy(dmma::saddr(s + at<KC, ROWS>(r, kk)), src, in ? 2 * sizeof(E) : 0);
  }
}

/* The same for a tile wholly inside the matrix, k included: this thread's
 * elements are a fixed distance apart in memory and in the tile, each one
 * add from the last. */
template <bool KC, int ROWS, typename E>
struct tile_walk {
  enum { PER_THREAD = ROWS * BK / NTHREADS, ALONG = KC ? NTHREADS / BK : NTHREADS / ROWS };
  const E *base;
  long long step, kstep; /* parts */
  int soff;
  __device__ __forceinline__ void init(const E *x, long long ld, int row0)
  {
    const int tid = (int)threadIdx.x;
    const int r = KC ? tid / BK : tid % ROWS, kk = KC ? tid % BK : tid / ROWS;
    base = x + 2 * (KC ? (long long)(row0 + r) * ld + kk : (row0 + r) + (long long)kk * ld);
    step = 2 * (long long)ALONG * ld, kstep = KC ? 2 * BK : 2 * (long long)BK * ld;
    soff = at<KC, ROWS>(r, kk);
  }
  __device__ __forceinline__ void copy_to(E *s, int tile) const
  {
    enum { SSTEP = KC ? 2 * ALONG * (BK + 2) : 2 * ALONG * (ROWS + 4) };
    const E *src = base + tile * kstep;
    const unsigned dst = dmma::saddr(s + soff);
#pragma unroll
    for (int i = 0; i < PER_THREAD; i++) {
      copy(dst + i * SSTEP * (unsigned)sizeof(E), src, 2 * sizeof(E));
      src += step;
      asm volatile("" : "+l"(src));
    }
  }
};

/* x with its sign bit flipped where mask says (0 or 0x80000000). */
static __device__ __forceinline__ double flip(double x, unsigned mask)
{
  return __hiloint2double(__double2hiint(x) ^ (int)mask, __double2loint(x));
}

/* C's tile t: bands of BAND tile columns, each walked across the band and
 * then down m, so that the resident tiles share panels of A and B in L2. */
template <int BM, int BN>
static __device__ __forceinline__ void tile_at(const dlg_zgemm_args &p, int t, int &m0, int &n0)
{
  const int gm = (p.m + BM - 1) / BM, gn = (p.n + BN - 1) / BN;
  const int band = t / (BAND * gm), in_band = t % (BAND * gm), width = min(BAND, gn - band * BAND);
  m0 = (in_band / width) * BM, n0 = (band * BAND + in_band % width) * BN;
}

/* C's BM x BN tile (complex elements): two warps along m, each TM rows
 * (2 TM real ones, I DMMA tiles) by TN columns (J DMMA tiles). */
template <typename E, bool A_KC, bool B_KC, int BM, int BN>
static __device__ __forceinline__ void gemm(const dlg_zgemm_args &p)
{
  enum { TM = BM / WM, TN = BN / (NTHREADS / 32 / WM), I = 2 * TM / MM, J = TN / 8,
         A_TILE = DLG_ZGEMM_TILE(BM), DOUBLES = A_TILE + DLG_ZGEMM_TILE(BN) };
  static_assert(2 * TM % MM == 0 && TN % 8 == 0, "whole DMMA tiles");
  extern __shared__ __align__(16) unsigned char shared[];
  E *const smem = reinterpret_cast<E *>(shared);
  const long long z = blockIdx.z;
  const E *a = static_cast<const E *>(p.a) + 2 * z * p.sa,
          *b = static_cast<const E *>(p.b) + 2 * z * p.sb;
  E *c = static_cast<E *>(p.c) + 2 * z * p.sc;
  const int k = p.k_last && blockIdx.z == gridDim.z - 1 ? p.k_last : p.k;
  const int lane = (int)threadIdx.x % 32, warp = (int)threadIdx.x / 32;
  const int wm = (warp % WM) * TM, wn = (warp / WM) * TN; /* complex */
  const int g = lane / 4, q4 = lane % 4, tiles = (k + BK - 1) / BK;
  /* the lane's part of A' (real 0, imaginary 1) and of B', and signs */
  const int pa = (g ^ q4) & 1, pb = q4 & 1;
  const unsigned ma = pa && (g & 1) == p.conj_a ? 0x80000000u : 0u,
                 mb = pb && p.conj_b ? 0x80000000u : 0u;
  int m0, n0;
  tile_at<BM, BN>(p, (int)blockIdx.x, m0, n0);
  double acc[I][J][CE];
  double fa[2][I][AE], fb[2][J][BE];
  dmma::zero(acc);

  tile_walk<A_KC, BM, E> wa;
  tile_walk<B_KC, BN, E> wb;
  wa.init(a, p.lda, m0);
  wb.init(b, p.ldb, n0);
  const int inside = m0 + BM <= p.m && n0 + BN <= p.n ? k / BK : 0;
  auto load_stage = [&](int t) {
    E *s = smem + (t % NSTAGES) * DOUBLES;
    if (t < inside) {
      wa.copy_to(s, t);
      wb.copy_to(s + A_TILE, t);
    } else {
      load_tile<A_KC, BM>(s, a, p.lda, m0, p.m, t * BK, k);
      load_tile<B_KC, BN>(s + A_TILE, b, p.ldb, n0, p.n, t * BK, k);
    }
  };
  /* real k-step ks of stage t's tile: A' element e at real row g + 8 (e %
   * 2), real k q4 + 4 (e / 2); B' element e at real k q4 + 4 e */
  auto load_frags = [&](int buf, int t, int ks) {
    const E *sa = smem + (t % NSTAGES) * DOUBLES, *sb = sa + A_TILE;
    const int kc = ks * MK / 2 + q4 / 2;
#pragma unroll
    for (int j = 0; j < J; j++)
#pragma unroll
      for (int e = 0; e < BE; e++)
        fb[buf][j][e] = flip((double)sb[at<B_KC, BN>(wn + j * 8 + g, kc + 2 * e) + pb], mb);
#pragma unroll
    for (int i = 0; i < I; i++)
#pragma unroll
      for (int e = 0; e < AE; e++)
        fa[buf][i][e] =
            flip((double)sa[at<A_KC, BM>(wm + i * MM / 2 + g / 2 + 4 * (e % 2), kc + 2 * (e / 2)) + pa],
                 ma);
  };

  dmma::cp_async_loop<NSTAGES, KS>(tiles, load_stage, load_frags,
                                   [&](int buf) { dmma::products(acc, fa[buf], fb[buf]); });

  /* alpha x: its real part ar re - ai im, its imaginary part ar im + ai
   * re, so a lane's own part v and its partner's (the lane 4 away) w give
   * ar v -+ ai w; every lane sends its own part before it is replaced */
  const int part = g & 1;
  const double ai = part ? p.alpha_im : -p.alpha_im;
#pragma unroll
  for (int i = 0; i < I; i++)
#pragma unroll
    for (int j = 0; j < J; j++)
#pragma unroll
      for (int e = 0; e < CE; e++) {
        const double v = acc[i][j][e], w = __shfl_xor_sync(0xffffffffu, v, 4);
        acc[i][j][e] = __fma_rn(ai, w, p.alpha_re * v);
      }
  /* then C' as a real matrix of twice C's rows: element e of DMMA tile
   * (i, j) at complex row g / 2 + 4 (e / 2), part g % 2, column 2 q4 + e %
   * 2; alpha is in the sums already */
  dmma::store_c(c, 2 * p.ldc, 2 * p.m, p.n, 1.0, p.beta, acc,
                [&](int i, int j, int e, int &row, int &col) {
                  row = 2 * (m0 + wm + i * MM / 2 + g / 2 + 4 * (e / 2)) + part;
                  col = n0 + wn + j * 8 + 2 * q4 + e % 2;
                });
}

} // namespace zdmma

/* dlg_<z|c>gemm_dmma_<ab>: complex128 or complex64 (widened to double as
 * its fragments are read, so FP64 DMMA's rate and rounding; C rounded once
 * to float) on the 64 x 64 tile; a = op(A)'s rows k-contiguous (r: its rows
 * are the contiguous dimension), b the same for op(B)'s columns.
 * dlg_<z|c>gemm_dmma32_<ab>: the same on the 32 x 32 tile (zgemm_args.h). */
#define DLG_ZGEMM_KERNEL(NAME, E, AKC, BKC, BM, BN, BLOCKS)                              \
  extern "C" __global__ void __launch_bounds__(DLG_ZGEMM_THREADS, BLOCKS) NAME(dlg_zgemm_args p) \
  {                                                                                    \
    zdmma::gemm<E, AKC, BKC, BM, BN>(p);                                               \
  }
#define DLG_ZGEMM_KERNELS(TILE, BM, BN, BLOCKS)                                               \
  DLG_ZGEMM_KERNEL(dlg_zgemm_dmma##TILE##_rr, double, false, false, BM, BN, BLOCKS)            \
  DLG_ZGEMM_KERNEL(dlg_zgemm_dmma##TILE##_rk, double, false, true, BM, BN, BLOCKS)             \
  DLG_ZGEMM_KERNEL(dlg_zgemm_dmma##TILE##_kr, double, true, false, BM, BN, BLOCKS)             \
  DLG_ZGEMM_KERNEL(dlg_zgemm_dmma##TILE##_kk, double, true, true, BM, BN, BLOCKS)              \
  DLG_ZGEMM_KERNEL(dlg_cgemm_dmma##TILE##_rr, float, false, false, BM, BN, BLOCKS)             \
  DLG_ZGEMM_KERNEL(dlg_cgemm_dmma##TILE##_rk, float, false, true, BM, BN, BLOCKS)              \
  DLG_ZGEMM_KERNEL(dlg_cgemm_dmma##TILE##_kr, float, true, false, BM, BN, BLOCKS)              \
  DLG_ZGEMM_KERNEL(dlg_cgemm_dmma##TILE##_kk, float, true, true, BM, BN, BLOCKS)
DLG_ZGEMM_KERNELS(, DLG_ZGEMM_BM, DLG_ZGEMM_BN, DLG_ZGEMM_BLOCKS_PER_SM)
DLG_ZGEMM_KERNELS(32, DLG_ZGEMM_SMALL, DLG_ZGEMM_SMALL, DLG_ZGEMM_SMALL_BLOCKS_PER_SM)
#undef DLG_ZGEMM_KERNELS
#undef DLG_ZGEMM_KERNEL
/* complex64's split-K second pass (zdmma.c; complex128's is
 * dlg_dgemm_splitk_reduce): C = the sum of the splits' partial products
 * (m2 x n floats each, one after the other in work) + beta C, summed in
 * double in split order, so the result does not depend on the launch, and
 * rounded once. */
extern "C" __global__ void dlg_cgemm_splitk_reduce(const float *work, float *c, int m2, int n,
                                                   int splits, long long ldc2, double beta)
{
  const long long mn = (long long)m2 * n;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < mn;
       e += (long long)gridDim.x * blockDim.x) {
    double s = 0.0;
    for (int q = 0; q < splits; q++) s += (double)work[q * mn + e];
    float *cp = c + (e / m2) * ldc2 + e % m2;
    *cp = (float)(beta == 0.0 ? s : s + beta * (double)*cp);
  }
}
