/*
 * hgemm_mma.cu - float16 / bfloat16 GEMM on the tensor cores through
 * mma.sync (sm_80 and later): FP32 accumulation, C in float32, float16 or
 * bfloat16, alpha and beta in FP32.
 *
 * The contract is the SIMT kernel's: the column-major product C = alpha *
 * op(A) op(B) + beta * C, every layout having been turned into it by the
 * host; A_KC / B_KC say whether A's and B's contiguous dimension is k.
 *
 * Why it is laid out as it is:
 *
 * - mma.m16n8k16 wants A as 16 x 16 "row" fragments (a lane holds pairs
 *   adjacent in k) and B as 16 x 8 "col" fragments (pairs adjacent in k).
 *   ldmatrix reads them from shared memory, one 8 x 8 matrix per 8 lanes,
 *   each lane giving the address of one 16-byte row.  When the operand is
 *   k-contiguous in memory a shared row is a run of k and plain ldmatrix
 *   delivers the fragment; when it is m- (n-) contiguous a shared row is a
 *   run of m (n) and ldmatrix.trans transposes on the way.  So tiles are
 *   copied as they lie in memory, 16 bytes per cp.async, and only the
 *   fragment load knows the orientation.
 * - 128 threads = 4 warps as 2 x 2, each warp a BM / 2 x BN / 2 block of
 *   C.  The 128 x 128 tile: per k16 a warp issues 4 ldmatrix.x4 for A, 4
 *   for B and 32 mma, 128 FP32 accumulators a lane; four cp.async stages of
 *   128 x 32 per operand (16 KB a stage) keep three tiles of loads in
 *   flight.  The 64 x 64 and 32 x 32 tiles are the same code with fewer
 *   fragments a warp (2 x 4 and 1 x 2 mma a k16): they are for products
 *   (and batches of them, a block each) that would leave most of the big
 *   tile padding or most SMs idle - a batch of 1024 bfloat16 64^3
 *   products gave each 128 x 128 block a quarter of real work and ran at
 *   0.33 of cuBLAS.  Their blocks are small (24 KB, 8 KB of stages), so
 *   that many of them share an SM: while one waits on its loads the others
 *   compute, which is what hides the latency a short k loop cannot.
 * - Shared rows are 64 bytes (k-contiguous tiles, 32 k; or 32 m or n) or
 *   128-256 bytes (64-128 m or n).  An ldmatrix phase reads 8 rows at one
 *   logical 16-byte chunk; unswizzled those would share banks.  The chunk
 *   index is XORed with (row / 2) % 4 for 64-byte rows and with row % 8 for
 *   longer ones, which puts the 8 rows of a phase on 8 distinct 16-byte
 *   bank groups.
 * - Chunks wholly inside the matrix copy with cp.async; chunks wholly
 *   outside zero-fill (source size 0); a chunk cut by the edge, or any chunk
 *   of an operand that is not 16-byte aligned, is gathered element by
 *   element and stored to shared memory, so any m, n, k and leading
 *   dimension is exact.
 * - TF32 (the FP32 precision policies, plugin/cuda/device/tf32.c) is the
 *   k-contiguous variant with m16n8k8.tf32 for m16n8k16: the host passes the
 *   FP32 operands as 16-bit halves, so BK = 32 halves is 16 TF32 values and
 *   each k16 step of the loop one k8 mma (hgemm_args.h says why the
 *   fragments agree).
 * - The epilogue applies alpha and beta in FP32 (beta == 0 never reads C)
 *   and rounds once to C's type.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "hgemm_args.h"
#include "hgemm_convert.cuh"

namespace hmma {

enum { BK = DLG_HMMA_BK, NTHREADS = DLG_HMMA_THREADS };

/* Tile TILE's shape (hgemm_args.h): MI 16-row and NJ 8-column fragments a
 * warp. */
template <int TILE> struct shape {
  enum { BM = DLG_HMMA_BM(TILE), BN = DLG_HMMA_BN(TILE), STAGES = DLG_HMMA_STAGES(TILE),
         MI = BM / 32, NJ = BN / 16, A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2,
         STAGE_BYTES = A_BYTES + B_BYTES };
  static_assert(STAGES * STAGE_BYTES == DLG_HMMA_SMEM(TILE), "hgemm_args.h agrees");
  static_assert(NJ % 2 == 0, "B's ldmatrix.x4 loads two n8 fragments");
};

static __device__ __forceinline__ unsigned saddr(const void *p)
{
  return (unsigned)__cvta_generic_to_shared(p);
}

/* Byte offset of 16-byte chunk c of row r in a tile of W-element rows. */
template <int W> static __device__ __forceinline__ unsigned swz(int r, int c)
{
  return (unsigned)(r * W * 2 + ((W == 32 ? c ^ ((r >> 1) & 3) : c ^ (r & 7)) << 4));
}

/* One operand tile of ELEMS elements, as it lies in memory: R rows of W
 * elements, row r global row r0 + r (of rlim), element e global column c0
 * + e (of clim), at x[row * ld + column]. */
template <int W, int ELEMS>
static __device__ __forceinline__ void load_tile(unsigned s, const unsigned short *x, long long ld,
                                                 int r0, int rlim, int c0, int clim, bool vec)
{
  enum { R = ELEMS / W, CPR = W / 8, PER_THREAD = R * CPR / NTHREADS };
  static_assert(R * CPR % NTHREADS == 0, "every thread copies as many chunks");
#pragma unroll
  for (int i = 0; i < PER_THREAD; i++) {
    const int q = (int)threadIdx.x + i * NTHREADS, r = q / CPR, c = q % CPR;
    const int gr = r0 + r, gc = c0 + c * 8;
    const unsigned dst = s + swz<W>(r, c);
    const unsigned short *src = x + (long long)gr * ld + gc;
    if (gr < rlim && gc + 8 <= clim && vec) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
    } else if (gr >= rlim || gc >= clim) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, 0;\n" ::"r"(dst), "l"(x) : "memory");
    } else {
      unsigned v[4];
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const unsigned lo = gc + 2 * e < clim ? src[2 * e] : 0u;
        const unsigned hi = gc + 2 * e + 1 < clim ? src[2 * e + 1] : 0u;
        v[e] = lo | hi << 16;
      }
      asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(v[0]), "r"(v[1]),
                   "r"(v[2]), "r"(v[3])
                   : "memory");
    }
  }
}

static __device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], unsigned a)
{
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(a));
}
static __device__ __forceinline__ void ldsm_x4_t(unsigned (&r)[4], unsigned a)
{
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(a));
}

template <int KIND>
static __device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                           unsigned b1)
{
#define DLG_MMA_ASM(SHAPE, TYPE)                                                            \
  asm volatile("mma.sync.aligned." SHAPE ".row.col.f32." TYPE "." TYPE ".f32 {%0, %1, %2, %3}, " \
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"                            \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))
  if (KIND == DLG_TC_BF16) DLG_MMA_ASM("m16n8k16", "bf16");
  else if (KIND == DLG_TC_F16) DLG_MMA_ASM("m16n8k16", "f16");
  else DLG_MMA_ASM("m16n8k8", "tf32");
#undef DLG_MMA_ASM
}

using hconv::narrow;
using hconv::store_pair;
using hconv::widen;

/* Accumulator (i, j, e) of a lane is row wm + 16i + lane/4 (+8 for e >= 2),
 * column wn + 8j + 2(lane%4) + e%2 of the tile at (m0, n0).  With beta != 0
 * the 4 NJ elements of one i are all read before any is written: a store
 * may alias the next load, so interleaved they would go one memory latency
 * apart (hgemm_wgmma.cu's store_tile measured what that costs). */
template <typename T, bool BETA, int MI, int NJ>
static __device__ __forceinline__ void store_rows(const dlg_hgemm_args &p, T *C, int row0, int col0,
                                                  const float (&acc)[MI][NJ][4])
{
  const int lane = threadIdx.x % 32;
  /* element (i, j, e) of the lane: its place in C, or NULL outside C */
  auto at = [&](int i, int j, int e) -> T * {
    const int row = row0 + 16 * i + lane / 4 + (e >= 2 ? 8 : 0);
    const int col = col0 + 8 * j + 2 * (lane % 4) + e % 2;
    return row < p.m && col < p.n ? C + (long long)col * p.ldc + row : NULL;
  };
#pragma unroll
  for (int i = 0; i < MI; i++) {
    float old[NJ][4];
#pragma unroll
    for (int j = 0; j < NJ; j++)
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const T *cp = at(i, j, e);
        old[j][e] = BETA && cp ? widen(*cp) : 0.f;
      }
#pragma unroll
    for (int j = 0; j < NJ; j++)
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const float r = p.alpha * acc[i][j][e];
        if (T *cp = at(i, j, e)) *cp = narrow<T>(BETA ? fmaf(p.beta, old[j][e], r) : r);
      }
  }
}

template <typename T, int MI, int NJ>
static __device__ __forceinline__ void epilogue(const dlg_hgemm_args &p, int z, int row0, int col0,
                                                const float (&acc)[MI][NJ][4])
{
  T *C = (T *)p.c + (long long)z * p.sc;
  if (p.beta != 0.f) store_rows<T, true>(p, C, row0, col0, acc);
  else store_rows<T, false>(p, C, row0, col0, acc);
}

template <int TILE, int KIND, bool A_KC, bool B_KC>
static __device__ __forceinline__ void gemm(const dlg_hgemm_args &p)
{
  typedef shape<TILE> S;
  enum { BM = S::BM, BN = S::BN, MI = S::MI, NJ = S::NJ, STAGES = S::STAGES };
  extern __shared__ __align__(128) unsigned char smem[];
  const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN, z = blockIdx.z;
  const unsigned short *A = (const unsigned short *)p.a + z * p.sa;
  const unsigned short *B = (const unsigned short *)p.b + z * p.sb;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int wm = (warp % 2) * (BM / 2), wn = (warp / 2) * (BN / 2);
  const unsigned s0 = saddr(smem);
  const int ktiles = (p.k + BK - 1) / BK;

  auto issue = [&](int t) {
    const unsigned sa = s0 + (t % STAGES) * S::STAGE_BYTES, sb = sa + S::A_BYTES;
    const int k0 = t * BK;
    if (t < ktiles) {
      if (A_KC) load_tile<BK, BM * BK>(sa, A, p.lda, m0, p.m, k0, p.k, p.vec_a);
      else load_tile<BM, BM * BK>(sa, A, p.lda, k0, p.k, m0, p.m, p.vec_a);
      if (B_KC) load_tile<BK, BN * BK>(sb, B, p.ldb, n0, p.n, k0, p.k, p.vec_b);
      else load_tile<BN, BN * BK>(sb, B, p.ldb, k0, p.k, n0, p.n, p.vec_b);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  };

  float acc[MI][NJ][4];
#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int j = 0; j < NJ; j++)
#pragma unroll
      for (int e = 0; e < 4; e++) acc[i][j][e] = 0.f;

#pragma unroll
  for (int t = 0; t < STAGES - 1; t++) issue(t);

  /* ldmatrix lane roles: lane l addresses row l % 8 of matrix l / 8. */
  const int lr = lane % 8, lq = lane / 8;
  for (int t = 0; t < ktiles; t++) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory");
    __syncthreads(); /* tile t landed for all; stage t-1 is free */
    issue(t + STAGES - 1);
    const unsigned sa = s0 + (t % STAGES) * S::STAGE_BYTES, sb = sa + S::A_BYTES;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      unsigned af[MI][4], bf[NJ][2];
#pragma unroll
      for (int i = 0; i < MI; i++) {
        /* matrix q: m offset (q % 2) * 8, k offset (q / 2) * 8 */
        const int mrow = wm + i * 16 + (lq % 2) * 8, kc = kk + (lq / 2) * 8;
        if (A_KC) ldsm_x4(af[i], sa + swz<BK>(mrow + lr, kc / 8));
        else ldsm_x4_t(af[i], sa + swz<BM>(kc + lr, mrow / 8));
      }
#pragma unroll
      for (int j = 0; j < NJ / 2; j++) {
        /* matrix q: n offset (q / 2) * 8, k offset (q % 2) * 8: b0, b1 of
         * n-tile 2j, then of 2j + 1 */
        const int ncol = wn + j * 16 + (lq / 2) * 8, kc = kk + (lq % 2) * 8;
        unsigned r[4];
        if (B_KC) ldsm_x4(r, sb + swz<BK>(ncol + lr, kc / 8));
        else ldsm_x4_t(r, sb + swz<BN>(kc + lr, ncol / 8));
        bf[2 * j][0] = r[0], bf[2 * j][1] = r[1], bf[2 * j + 1][0] = r[2], bf[2 * j + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NJ; j++) mma<KIND>(acc[i][j], af[i], bf[j][0], bf[j][1]);
    }
  }
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");

  if (p.c_type == DLG_HOUT_F32) epilogue<float>(p, z, m0 + wm, n0 + wn, acc);
  else if (p.c_type == DLG_HOUT_F16) epilogue<__half>(p, z, m0 + wm, n0 + wn, acc);
  else epilogue<__nv_bfloat16>(p, z, m0 + wm, n0 + wn, acc);
}

} /* namespace hmma */

/* The blocks an SM holds at once, by tile: the register cap is 65536 /
 * (128 x this); the big tile's 128 accumulators a lane need the 255 of 2,
 * the small tiles' 32 and 8 fit 128 and 64. */
#define DLG_HMMA_MIN_BLOCKS(TILE) ((TILE) == 0 ? 2 : (TILE) == 1 ? 4 : 8)
#define DLG_HMMA_KERNEL(NAME, TILE, KIND, AKC, BKC)                                          \
  extern "C" __global__ void __launch_bounds__(DLG_HMMA_THREADS, DLG_HMMA_MIN_BLOCKS(TILE))  \
      NAME(dlg_hgemm_args p)                                                                 \
  {                                                                                          \
    hmma::gemm<TILE, KIND, AKC, BKC>(p);                                                     \
  }
/* dlg_hgemm_mma<tile>_<type>_<a><b>: tile "" (128 x 128), 64 or 32; a/b =
 * 'k' when that operand is k-contiguous, 'r' when its m / n dimension is
 * (the SIMT kernels' naming).  TF32 comes k-contiguous only (hgemm_args.h). */
#define DLG_HMMA_FAMILY(PREFIX, TILE)                                 \
  DLG_HMMA_KERNEL(PREFIX##_f16_rr, TILE, DLG_TC_F16, false, false)   \
  DLG_HMMA_KERNEL(PREFIX##_f16_rk, TILE, DLG_TC_F16, false, true)    \
  DLG_HMMA_KERNEL(PREFIX##_f16_kr, TILE, DLG_TC_F16, true, false)    \
  DLG_HMMA_KERNEL(PREFIX##_f16_kk, TILE, DLG_TC_F16, true, true)     \
  DLG_HMMA_KERNEL(PREFIX##_bf16_rr, TILE, DLG_TC_BF16, false, false) \
  DLG_HMMA_KERNEL(PREFIX##_bf16_rk, TILE, DLG_TC_BF16, false, true)  \
  DLG_HMMA_KERNEL(PREFIX##_bf16_kr, TILE, DLG_TC_BF16, true, false)  \
  DLG_HMMA_KERNEL(PREFIX##_bf16_kk, TILE, DLG_TC_BF16, true, true)   \
  DLG_HMMA_KERNEL(PREFIX##_tf32_kk, TILE, DLG_TC_TF32, true, true)
DLG_HMMA_FAMILY(dlg_hgemm_mma, 0)
DLG_HMMA_FAMILY(dlg_hgemm_mma64, 1)
DLG_HMMA_FAMILY(dlg_hgemm_mma32, 2)
