/*
 * hgemm_wgmma.cu - float16 / bfloat16 GEMM for sm_90a: wgmma fed by the
 * tensor memory accelerator (TMA), producer and consumer warpgroups, a
 * persistent grid.  Built only for sm_90a (one translation unit per tile width, CMakeLists.txt); on other chips
 * the mma.sync kernels (hgemm_mma.cu) run.
 *
 * The contract is the other kernels': the column-major product C = alpha *
 * op(A) op(B) + beta * C, the host having oriented every layout into it.
 * A_KC / B_KC: whether A's / B's contiguous dimension is k.
 *
 * Why it is laid out as it is:
 *
 * - A block is 1 + BM / 64 warpgroups.  Warpgroup 0 is the producer: one
 *   thread issues the TMA copies of each k-tile (BK = 64) of A (BM = 128
 *   rows) and B (BN = 256, 192 or 128 columns) into a ring of four
 *   shared-memory stages and gives the rest of its registers back
 *   (setmaxnreg.dec).  The others are the consumers: each computes
 *   64 x BN of the tile with wgmma.m64n<BN>k16 (BN / 2 FP32 accumulators a
 *   thread, setmaxnreg.inc), four per k-tile, reading both operands
 *   straight from shared memory.
 *   The 192- and 128-wide tiles are for problems whose 128 x 256 tiles
 *   would leave SMs idle in the last wave (the host chooses: at 3072^3,
 *   288 tiles of 256 make 2.2 waves on 132 SMs, 384 of 192 make 2.9).
 *   The 192 x 192 tile (16-bit kinds) has three consumers, each 64 x
 *   192: cuBLAS's tile for bfloat16 3000^3 (ncu, H100).  Against 128 x 192
 *   it asks L2 for a fifth fewer box rows per flop, which is what counts
 *   where B's rows straddle 128-byte lines, and at 3000^3 an SM stores two
 *   tiles instead of three.  Its consumers get 152 registers (96
 *   accumulators; the producer keeps 40 of the 64 K), so the element-store
 *   epilogue reads C a column block at a time (store_tile), and each has
 *   one staging buffer for C instead of two, so that four of its 48 KB
 *   stages fit.
 *   The 16-wide tile (wgmma.m64n16k16, ten stages of 18 KB) is for decode
 *   steps, 16 or fewer columns against a long k: they stream the wide
 *   operand, and what they have in flight is the stages.  Its narrow
 *   operand is k-contiguous (one TMA box of 16 rows) and its C leaves by
 *   element stores (the TMA epilogue's boxes are 64 wide).
 * - Each stage has a "full" mbarrier (the TMA's byte count completes it)
 *   and an "empty" one (one arrival per consumer warp once its wgmmas no
 *   longer read the stage).  The consumers keep one k-tile of wgmma in
 *   flight: they release stage t-1 after waiting for all but the newest
 *   group, so the tensor cores never wait for the release.
 * - Tiles are 128-byte swizzled (TMA's SWIZZLE_128B, the layout wgmma's
 *   descriptors name with swizzle mode 1): a k-contiguous operand lands as
 *   rows of 64 k (128 bytes), an m- or n-contiguous one as k-rows of 64
 *   elements, boxes of 64 side by side.  wgmma reads both: the descriptor's
 *   strides say where the next 8 rows (SBO, 1024 bytes) and the next 64
 *   columns (LBO, one box) are, and the instruction's transpose flag says
 *   which dimension is contiguous.  A k16 step moves the descriptor by 32
 *   bytes in a k-contiguous tile and by 16 rows (2048 bytes) otherwise.
 * - TMA zero-fills what lies outside the matrix, so edge tiles and the k
 *   tail need no code; the epilogue's stores are guarded.  TMA needs 16-byte
 *   aligned bases and leading dimensions: the host sends other operands to
 *   the mma.sync kernels.
 * - Persistent: one block per SM walks the tiles; consecutive tiles run
 *   down groups of walk_rows tile-rows (16) so that blocks working at the
 *   same time share panels of A and B in L2.  16 is the group that reads
 *   least: 132 tiles of 128 x 256 span 16 tile-rows by 8.25 columns, 2048
 *   rows of A and 2112 columns of B, where 8 by 16.5 span 1024 + 4224
 *   (measured level with 8 at 8192^3, within the noise).  While the
 *   consumers store one tile the producer is already loading the next.
 * - Pairs: launched in clusters of two (hgemm.c says when), the blocks of
 *   a cluster walk the tile-rows 2i and 2i + 1 in step and share the tile
 *   of B: each TMA-loads its half (its share of the boxes, or one box of
 *   BN / 2 rows) into both blocks' stages (multicast), and a stage's
 *   "empty" barrier counts the consumer warps of both blocks, each warp
 *   arriving on its own block's and on the peer's.  A stage is thus
 *   refilled only when both are done with it.  What it buys is half the
 *   requests for B per SM: with B's rows straddling 128-byte lines, that
 *   beat copying B to lines first.  The code takes any cluster size; four
 *   ran slower (bench/NOTES.md).
 * - The epilogue must not hold the tensor cores up: both consumers finish
 *   a tile together, and while they store C no wgmma runs.  A 16-bit C
 *   with beta = 0 (the common case) goes out through shared memory:
 *   stmatrix puts each 8 x 8 fragment into a 128-byte-swizzled 64 x 64
 *   buffer (two per consumer) and one thread hands the buffer to a TMA
 *   store, so a consumer spends 4 stmatrix a 64-column block instead of 32
 *   scattered 2-byte stores, and goes back to its main loop while the TMA
 *   writes (measured at 4096^3 bf16: 0.94 to 1.04 of cuBLAS).  FP32 C goes
 *   the same way, 32 columns a buffer (epilogue_tma_f32).  With beta != 0
 *   C comes in the same way: warp 1 of the producer's warpgroup (the C
 *   loader, load_c) TMA-loads each box into the buffer it will leave from,
 *   ahead of the epilogue, and each thread reads its elements back where it
 *   writes them.  C that TMA cannot address (not 16-byte aligned) is read
 *   and stored from the registers, pairs where C's layout allows.
 * - alpha and beta in FP32; beta == 0 never reads C; one rounding to C's
 *   type.
 * - TF32 is the k-contiguous variant with wgmma.m64n<BN>k8.tf32: its
 *   operands come as 16-bit halves (hgemm_args.h), so a k-tile is 32 TF32
 *   values in the same 128-byte rows and each 32-byte step one k8 wgmma.
 *   TF32 wgmma cannot transpose a shared-memory operand, so an m-contiguous
 *   A (NN) takes the rk variant (A_REG): A's k-tile lands as 32-row x 32-k
 *   boxes and each consumer thread loads its own fragments (16 LDS.32 a
 *   k-tile, conflict-free by the row map of tile_row) for register-A
 *   wgmmas.  Measured at 8192^3: 386 T against 367 T when a separate pass
 *   first made A k-contiguous.
 * - 3xTF32 (kind TF32X3, 128- and 192-wide tiles) promotes: the tensor cores'
 *   FP32 accumulation is not IEEE (measured on the H100: summing 3 x 8192
 *   products in one accumulator left 12 times SGEMM's relative error,
 *   growing linearly with k, the signature of biased rounding), so each
 *   group of four k-tiles (128 products) is summed alone (scale-d 0 on its
 *   first wgmma), waited for, and added to a second set of FP32 registers
 *   with ordinary FADDs, the other consumer's wgmmas keeping the tensor
 *   cores busy meanwhile.  Two sets of 64 or of 96 fit in a consumer's
 *   232 registers; of 128 they would not, hence no 256-wide TF32X3.
 */
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "hgemm_args.h"
#include "hgemm_convert.cuh"
#include "in_place.cuh"
#include "tma.cuh"

namespace wg {

#ifndef DLG_WGMMA_BUILD_BM
#define DLG_WGMMA_BUILD_BM 128
#endif
/* The tile's rows, one consumer warpgroup per 64 of them, and the
 * registers the warpgroups take (setmaxnreg): the producer 40, the
 * consumers the rest of the file's 64 K in multiples of 8 (232 each for
 * two, 152 for three). */
enum { BM = DLG_WGMMA_BUILD_BM, BK = DLG_WGMMA_BK, A_BYTES = BM * BK * 2,
       BOX = 64 * BK * 2 /* one 64-wide box of an m/n-contiguous operand */,
       CONSUMERS = BM / 64, C_BUFS = DLG_WGMMA_C_BUFS(BM), PRODUCER_REGS = 40,
       CONSUMER_REGS = (65536 / 128 - PRODUCER_REGS) / CONSUMERS / 8 * 8 };
static_assert(BM % 64 == 0 && DLG_WGMMA_THREADS(BM) == 128 * (1 + CONSUMERS),
              "a consumer per 64 rows");

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

static __device__ __forceinline__ unsigned saddr(const void *p)
{
  return (unsigned)__cvta_generic_to_shared(p);
}

/* The named barrier id among the threads of one consumer warpgroup. */
static __device__ __forceinline__ void consumer_sync(int id)
{
  asm volatile("bar.sync %0, 128;\n" ::"r"(id) : "memory");
}
/* Four 8 x 8 16-bit matrices, each in the mma fragment layout (lane l holds
 * row l / 4, columns 2 (l % 4) and +1 in one register), to shared memory:
 * lane l names the address of stored row l % 8 of matrix l / 8.  TRANS:
 * each stored row is a column of the fragment. */
template <bool TRANS>
static __device__ __forceinline__ void stmatrix4(unsigned addr, unsigned r0, unsigned r1, unsigned r2,
                                                 unsigned r3)
{
  if (TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
                 "r"(r0), "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
  else
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
                 "r"(r0), "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
}

/* The inverse of stmatrix4: the four matrices that stmatrix4 with the same
 * addresses would have written, read back into the same fragment layout. */
template <bool TRANS>
static __device__ __forceinline__ void ldmatrix4(unsigned addr, unsigned &r0, unsigned &r1,
                                                 unsigned &r2, unsigned &r3)
{
  if (TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr)
                 : "memory");
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr)
                 : "memory");
}

/* A shared-memory matrix descriptor: start, LBO and SBO in 16-byte units,
 * swizzle mode 1 (128 bytes) in bits 62-63. */
static __device__ __forceinline__ unsigned long long desc(unsigned addr, unsigned lbo, unsigned sbo)
{
  return (unsigned long long)((addr & 0x3ffff) >> 4) | (unsigned long long)(lbo >> 4) << 16 |
         (unsigned long long)(sbo >> 4) << 32 | 1ull << 62;
}

/* The accumulator operands of a wgmma: "%0, ..., %N-1" in the instruction
 * text and "+f"(d[0]) ... "+f"(d[N-1]) as asm operands, N = 64 or 128. */
#define WGMMA_D10(t) "%" #t "0, %" #t "1, %" #t "2, %" #t "3, %" #t "4, %" #t "5, %" #t "6, %" #t "7, %" #t "8, %" #t "9, "
#define WGMMA_D60 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, " WGMMA_D10(1) WGMMA_D10(2) WGMMA_D10(3) WGMMA_D10(4) \
  WGMMA_D10(5)
#define WGMMA_D64 WGMMA_D60 "%60, %61, %62, %63"
#define WGMMA_D32 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, " WGMMA_D10(1) WGMMA_D10(2) "%30, %31"
#define WGMMA_D96 \
  WGMMA_D60 WGMMA_D10(6) WGMMA_D10(7) WGMMA_D10(8) "%90, %91, %92, %93, %94, %95"
#define WGMMA_D128 \
  WGMMA_D60 WGMMA_D10(6) WGMMA_D10(7) WGMMA_D10(8) WGMMA_D10(9) WGMMA_D10(10) WGMMA_D10(11) \
  "%120, %121, %122, %123, %124, %125, %126, %127"
#define WGMMA_F8(i) \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
  "+f"(d[i + 6]), "+f"(d[i + 7])
#define WGMMA_F32(i) WGMMA_F8(i), WGMMA_F8(i + 8), WGMMA_F8(i + 16), WGMMA_F8(i + 24)
#define WGMMA_F64(i) \
  WGMMA_F8(i), WGMMA_F8(i + 8), WGMMA_F8(i + 16), WGMMA_F8(i + 24), WGMMA_F8(i + 32), \
  WGMMA_F8(i + 40), WGMMA_F8(i + 48), WGMMA_F8(i + 56)
/* One wgmma of shape SHAPE on TYPE operands: d += A(64 x 16) * B(16 x N),
 * both from shared memory (descriptors da, db), A and B scaled by 1, d kept;
 * TA / TB = 1 when that operand is m- / n-contiguous (the instruction
 * transposes it).  DESC names the operand numbers after the accumulators. */
#define WGMMA_ASM(SHAPE, TYPE, DLIST, DESC, ...)                                          \
  asm volatile("wgmma.mma_async.sync.aligned." SHAPE ".f32." TYPE "." TYPE " {" DLIST "}, " \
               DESC ";\n"                                                                  \
               : __VA_ARGS__                                                               \
               : "l"(da), "l"(db), "n"(TA), "n"(TB))

/* TF32 has no transpose flags (its operands are k-contiguous): its text
 * stops after the scales and leaves TA / TB unused.  ACC = false: d = A B,
 * the accumulator's old value ignored (scale-d 0; TF32 kinds only).  One
 * overload per tile width BN, its N = BN / 2 accumulators a thread:
 * wgmma.m64n<BN>k16 on 16-bit operands, m64n<BN>k8 on TF32.  DESC16 / DESC
 * / DESC0 name the operands after the accumulators (16-bit, with the
 * transpose flags; TF32; TF32 with scale-d 0), the rest are the
 * accumulators' asm operands. */
#define WGMMA_WIDTH(N, BN, DLIST, DESC16, DESC, DESC0, ...)                                  \
  template <int KIND, int TA, int TB, bool ACC = true>                                      \
  static __device__ __forceinline__ void wgmma(float(&d)[N], unsigned long long da,        \
                                               unsigned long long db)                      \
  {                                                                                         \
    if (KIND == DLG_TC_BF16) WGMMA_ASM("m64n" #BN "k16", "bf16", DLIST, DESC16, __VA_ARGS__); \
    else if (KIND == DLG_TC_F16) WGMMA_ASM("m64n" #BN "k16", "f16", DLIST, DESC16, __VA_ARGS__); \
    else if (ACC) WGMMA_ASM("m64n" #BN "k8", "tf32", DLIST, DESC, __VA_ARGS__);             \
    else WGMMA_ASM("m64n" #BN "k8", "tf32", DLIST, DESC0, __VA_ARGS__);                     \
  }
WGMMA_WIDTH(128, 256, WGMMA_D128, "%128, %129, 1, 1, 1, %130, %131", "%128, %129, 1, 1, 1",
            "%128, %129, 0, 1, 1", WGMMA_F64(0), WGMMA_F64(64))
WGMMA_WIDTH(96, 192, WGMMA_D96, "%96, %97, 1, 1, 1, %98, %99", "%96, %97, 1, 1, 1",
            "%96, %97, 0, 1, 1", WGMMA_F64(0), WGMMA_F8(64), WGMMA_F8(72), WGMMA_F8(80),
            WGMMA_F8(88))
WGMMA_WIDTH(64, 128, WGMMA_D64, "%64, %65, 1, 1, 1, %66, %67", "%64, %65, 1, 1, 1",
            "%64, %65, 0, 1, 1", WGMMA_F64(0))
WGMMA_WIDTH(32, 64, WGMMA_D32, "%32, %33, 1, 1, 1, %34, %35", "%32, %33, 1, 1, 1",
            "%32, %33, 0, 1, 1", WGMMA_F32(0))

/* The narrow tile's: 16-bit kinds only (dlg_hgemm_wgmma16_*). */
template <int KIND, int TA, int TB, bool ACC = true>
static __device__ __forceinline__ void wgmma(float (&d)[8], unsigned long long da,
                                             unsigned long long db)
{
  static_assert(KIND == DLG_TC_BF16 || KIND == DLG_TC_F16, "no TF32 narrow tile");
  if (KIND == DLG_TC_BF16)
    WGMMA_ASM("m64n16k16", "bf16", "%0, %1, %2, %3, %4, %5, %6, %7", "%8, %9, 1, 1, 1, %10, %11",
              WGMMA_F8(0));
  else
    WGMMA_ASM("m64n16k16", "f16", "%0, %1, %2, %3, %4, %5, %6, %7", "%8, %9, 1, 1, 1, %10, %11",
              WGMMA_F8(0));
}

/* The accumulator operands and A's four registers of a register-A TF32
 * wgmma: d += A(64 x 8, this thread's fragment a) * B(8 x N, descriptor db). */
#define WGMMA_RS_ASM(SHAPE, DLIST, AB, ...)                                                  \
  asm volatile("wgmma.mma_async.sync.aligned." SHAPE ".f32.tf32.tf32 {" DLIST "}, " AB       \
               ", 1, 1, 1;\n"                                                                 \
               : __VA_ARGS__                                                                 \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db))
/* Each translation unit builds one tile width (the end of this file), so
 * three of these four go unused there. */
__attribute__((unused)) static __device__ __forceinline__ void wgmma_rs(
    float (&d)[128], const unsigned *a, unsigned long long db)
{
  WGMMA_RS_ASM("m64n256k8", WGMMA_D128, "{%128, %129, %130, %131}, %132", WGMMA_F64(0),
               WGMMA_F64(64));
}
__attribute__((unused)) static __device__ __forceinline__ void wgmma_rs(
    float (&d)[96], const unsigned *a, unsigned long long db)
{
  WGMMA_RS_ASM("m64n192k8", WGMMA_D96, "{%96, %97, %98, %99}, %100", WGMMA_F64(0), WGMMA_F8(64),
               WGMMA_F8(72), WGMMA_F8(80), WGMMA_F8(88));
}
__attribute__((unused)) static __device__ __forceinline__ void wgmma_rs(
    float (&d)[64], const unsigned *a, unsigned long long db)
{
  WGMMA_RS_ASM("m64n128k8", WGMMA_D64, "{%64, %65, %66, %67}, %68", WGMMA_F64(0));
}
__attribute__((unused)) static __device__ __forceinline__ void wgmma_rs(
    float (&d)[32], const unsigned *a, unsigned long long db)
{
  WGMMA_RS_ASM("m64n64k8", WGMMA_D32, "{%32, %33, %34, %35}, %36", WGMMA_F32(0));
}

/* A 32-bit word of shared memory, as TF32 rounded to nearest even (the
 * tensor cores would truncate).  cvt.rn is one F2FP.TF32 on sm_90, where
 * cvt.rna (ties away) is three instructions, a guard for Inf and NaN, an
 * add and a mask: 32 fewer instructions a k-tile between a consumer's
 * wgmma wait and its next wgmmas, TF32 8192^3 NN 2-3% faster
 * (bench/NOTES.md).  volatile: it must stay after the stage's wait. */
static __device__ __forceinline__ unsigned lds_tf32(unsigned addr)
{
  unsigned v;
  asm volatile("{\n.reg .f32 x;\nld.shared.f32 x, [%1];\ncvt.rn.tf32.f32 %0, x;\n}\n"
               : "=r"(v)
               : "r"(addr));
  return v;
}

/* Which of the consumer's 64 tile rows a thread's accumulators (and, in
 * the A_REG kernels, its A fragments) stand for.  wgmma gives lane l of
 * warp w fragment rows 16w + l / 4 and +8; any one-to-one map of those to
 * tile rows works, as long as A's fragments are loaded by the same map.
 * RSTEP 8 is the plain one: row 16w + l / 4, and +8.  RSTEP 4 (A_REG)
 * makes the A loads free of bank conflicts (a_frag_offsets): row 32 (w / 2)
 * + 8 (w % 2) + 16 (g / 4) + g % 4, and +4, for g = l / 4. */
template <int RSTEP> static __device__ __forceinline__ int tile_row()
{
  const int w = (threadIdx.x / 32) % 4, g = (threadIdx.x % 32) / 4;
  return RSTEP == 8 ? 16 * w + g : 32 * (w / 2) + 8 * (w % 2) + 16 * (g / 4) + g % 4;
}

/* Where this thread's fragment of an m-contiguous TF32 A lies in a stage:
 * the byte offsets, from the consumer's first box, of fragment registers
 * e = 0..3 of the k8 step 0 (step kk adds 1024).  Register e holds row
 * tile_row + RSTEP (e & 1), k = l % 4 + 4 (e >> 1).  The stage holds the
 * consumer's 64 rows as two TMA boxes of 32 rows x 32 k (4 KB, 128-byte
 * swizzled): k is the line (128 bytes), row r of a box is 16-byte chunk
 * r / 4, word r % 4, and chunk c of line L is stored at chunk c ^ (L % 8).
 * With RSTEP 4 a warp's 8 row groups fall on chunks c and c ^ 4 (c + 4),
 * whose XOR with the 4 lines (k) of one load gives 8 different chunks:
 * 32 banks.  (RSTEP 8's chunks c, c + 1 collide: two-way conflicts.) */
template <int RSTEP> static __device__ __forceinline__ void a_frag_offsets(unsigned (&off)[4])
{
  const int t = threadIdx.x % 4, r0 = tile_row<RSTEP>();
#pragma unroll
  for (int e = 0; e < 4; e++) {
    const int r = r0 + RSTEP * (e & 1), rr = r % 32, line = t + 4 * (e >> 1);
    off[e] = (r / 32) * 4096 + line * 128 + (((rr / 4) ^ line) << 4) + 4 * (rr % 4);
  }
}

using hconv::load_pair;
using hconv::narrow;
using hconv::store_pair;
using hconv::unpack;
using hconv::widen;

/* Accumulator 4j + e of a consumer thread: row 16 * warp + lane / 4 (+8 for
 * e >= 2) of its 64 rows, column 8j + 2 (lane % 4) + e % 2.  With c_trans the
 * kernel computes C^T (the host swapped the operands) and element (row, col)
 * is C[row * ldc + col]: a thread's column pairs are adjacent in memory and
 * go out as one store of two (PAIR: c_pair, aligned for it).  BETA: beta is
 * not 0, C is read.  Everything that does not change per element is decided
 * once, outside the unrolled loop (measured: per-element tests of beta and
 * of the layout made the epilogue cost a quarter of the time at 4096^3).
 *
 * C is read a part of the tile at a time (PART column blocks of 8), every
 * element of the part before any is written: a store may
 * alias the next load, so loads interleaved with stores are issued one
 * latency apart (as the FP64 kernel's epilogue measured, dgemm_dmma.cu),
 * and with beta != 0 the tile's 64 to 128 reads then cost more than its
 * products at 4096^3 (bf16 beta 1 ran at 0.53 of cuBLAS).  A part is a
 * quarter of the tile's columns, an eighth of the 256-wide tile's: 16 to
 * 24 registers (a quarter beside the 256-wide tile's 128 accumulators
 * spilled); one column block in the 192-row tile, whose consumers have 152
 * registers. */
template <typename T, int ND, int RSTEP, bool PAIR, bool BETA>
static __device__ __forceinline__ void store_tile(const dlg_hgemm_args &p, T *C, int r0, int c0,
                                                  const float (&d)[ND])
{
  constexpr int NJ = ND / 4,
                PART = CONSUMER_REGS < 200 ? 1 : NJ > 24 ? NJ / 8 : NJ > 4 ? NJ / 4 : NJ;
  const long long rs = p.c_trans ? p.ldc : 1, cs = p.c_trans ? 1 : p.ldc;
#pragma unroll
  for (int j0 = 0; j0 < NJ; j0 += PART) {
    float old[PART][4]; /* C's element (j0 + j, h, e) at old[j][2h + e] */
#pragma unroll
    for (int j = 0; j < PART; j++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int row = r0 + RSTEP * h, col = c0 + 8 * (j0 + j);
        const T *cp = C + row * rs + col * cs;
        float &o0 = old[j][2 * h], &o1 = old[j][2 * h + 1];
        o0 = o1 = 0.f;
        if (!BETA || row >= p.m) continue;
        if (PAIR && col + 1 < p.n) load_pair(cp, o0, o1);
        else {
          if (col < p.n) o0 = widen(cp[0]);
          if (col + 1 < p.n) o1 = widen(cp[cs]);
        }
      }
#pragma unroll
    for (int j = 0; j < PART; j++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int row = r0 + RSTEP * h, col = c0 + 8 * (j0 + j), e = 4 * (j0 + j) + 2 * h;
        T *cp = C + row * rs + col * cs;
        float v0 = p.alpha * d[e], v1 = p.alpha * d[e + 1];
        if (BETA) v0 = fmaf(p.beta, old[j][2 * h], v0), v1 = fmaf(p.beta, old[j][2 * h + 1], v1);
        if (row >= p.m) continue;
        if (PAIR && col + 1 < p.n) store_pair(cp, v0, v1);
        else {
          if (col < p.n) *cp = narrow<T>(v0);
          if (col + 1 < p.n) cp[cs] = narrow<T>(v1);
        }
      }
  }
}

template <typename T, int RSTEP, int ND>
static __device__ __forceinline__ void epilogue(const dlg_hgemm_args &p, int z, int row0, int col0,
                                                const float (&d)[ND])
{
  T *C = (T *)p.c + (long long)z * p.sc;
  const int r0 = row0 + tile_row<RSTEP>(), c0 = col0 + 2 * (threadIdx.x % 4);
  const bool pair = p.c_trans && p.c_pair;
  if (pair && p.beta != 0.f) store_tile<T, ND, RSTEP, true, true>(p, C, r0, c0, d);
  else if (pair) store_tile<T, ND, RSTEP, true, false>(p, C, r0, c0, d);
  else if (p.beta != 0.f) store_tile<T, ND, RSTEP, false, true>(p, C, r0, c0, d);
  else store_tile<T, ND, RSTEP, false, false>(p, C, r0, c0, d);
}

/* The staging buffer for this consumer's next box of C (of C_BUFS, 8 KB
 * each, in turn with stored), once the TMA store that read it C_BUFS boxes
 * ago is done with it. */
__attribute__((unused)) /* (not in the narrow tile) */
static __device__ __forceinline__ unsigned staging_next(unsigned buf0, int stored, int cons)
{
  if (threadIdx.x % 128 == 0) tma_store_wait_read<C_BUFS - 1>();
  consumer_sync(1 + cons);
  return buf0 + ((unsigned)stored % C_BUFS) * 8192;
}
/* Where part `part` of box q of a consumer's C (its rows from row0, its
 * columns from col0) lies in the tensor map of C, in 16-bit units along C's
 * contiguous dimension (c_tensor_map, hgemm.c): a 16-bit box is 64 x 64;
 * an FP32 one 32 columns, as one 64-row box with c_trans and otherwise as
 * two of 32 rows (parts 0 and 1, 4 KB apart in the staging buffer).  The
 * epilogues' stores and the C loader's loads both ask here. */
static __device__ __forceinline__ int c_parts(const dlg_hgemm_args &p)
{
  return p.c_type == DLG_HOUT_F32 && !p.c_trans ? 2 : 1;
}
static __device__ __forceinline__ int2 c_box(const dlg_hgemm_args &p, int row0, int col0, int q,
                                             int part)
{
  if (p.c_type != DLG_HOUT_F32)
    return p.c_trans ? make_int2(col0 + 64 * q, row0) : make_int2(row0, col0 + 64 * q);
  return p.c_trans ? make_int2(2 * (col0 + 32 * q), row0)
                   : make_int2(2 * (row0 + 32 * part), col0 + 32 * q);
}
/* The TMA stores of box q from buf, one bulk group. */
__attribute__((unused)) /* (not in the narrow tile) */
static __device__ __forceinline__ void store_box(const dlg_hgemm_args &p, const CUtensorMap *mc,
                                                 unsigned buf, int row0, int col0, int q, int z)
{
  for (int part = 0; part < c_parts(p); part++) {
    const int2 at = c_box(p, row0, col0, q, part);
    tma_store(mc, buf + 4096 * part, at.x, at.y, z);
  }
  tma_commit();
}

/* With beta != 0 the staging buffers are filled by the C loader (gemm's
 * warp 1): this consumer's next one once the TMA load of its box of C has
 * landed.  cbars: the consumer's C_BUFS "loaded" mbarriers; its "free"
 * ones are FREE_BARS bytes on (after every consumer's "loaded" ones). */
enum { FREE_BARS = 8 * C_BUFS * CONSUMERS };
__attribute__((unused)) /* (not in the narrow tile) */
static __device__ __forceinline__ unsigned staging_loaded(unsigned buf0, unsigned cbars, int stored)
{
  bar_wait(cbars + 8 * ((unsigned)stored % C_BUFS), ((unsigned)stored / C_BUFS) & 1);
  return buf0 + ((unsigned)stored % C_BUFS) * 8192;
}
/* The TMA store just issued has read the buffer: the loader may refill it.
 * (Waiting here, a store's 8 KB read of shared memory, rather than before
 * the next box: the loader then has a whole box's work to land the next
 * load in; two buffers leave no more slack than that.) */
__attribute__((unused)) /* (not in the narrow tile) */
static __device__ __forceinline__ void staging_release(unsigned cbars, int stored)
{
  tma_store_wait_read<0>();
  bar_arrive(cbars + FREE_BARS + 8 * ((unsigned)stored % C_BUFS));
}

/* The buffer written: made visible to the TMA (the stores went through the
 * generic proxy, the TMA reads through the async one); true for the one
 * thread that then issues the TMA store. */
__attribute__((unused)) /* (not in the narrow tile) */
static __device__ __forceinline__ bool staging_written(int cons)
{
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  consumer_sync(1 + cons);
  return threadIdx.x % 128 == 0;
}

/* C (16-bit T) through shared memory and TMA stores: the consumer's
 * 64 x BN rows leave as 64 x 64 boxes through two 8 KB buffers (buf0, then
 * buf0 + 8192, alternating with *stored).  Each buffer is one TMA box with
 * 128-byte swizzling: 64 lines of 128 bytes (C's contiguous dimension
 * along a line), 16-byte chunk c of line L at chunk c ^ (L % 8).
 * stmatrix writes a fragment's 8 rows as 8 lines (TRANS when C's
 * contiguous dimension is the tile's rows, i.e. !c_trans), so the 8
 * addresses of one matrix fall on 8 different chunks: no bank conflicts.
 * The consumer then goes back to the main loop while the TMA writes C and
 * clips what lies outside it; only the buffer's next use waits.
 * BETA (beta != 0): the buffer already holds the box of C (staging_loaded),
 * and each thread reads its fragments back from where it is about to write
 * them (ldmatrix with stmatrix's addresses), so C is read and written by
 * the TMA only, whole boxes at a time, its loads issued ahead by the C
 * loader (measured: C read element by element from the registers left the
 * bf16 4096^3 beta = 1 product at 0.53-0.67 of cuBLAS). */
template <typename T, bool BETA, int ND>
static __device__ __forceinline__ void epilogue_tma(const dlg_hgemm_args &p, const CUtensorMap *mc,
                                                    unsigned buf0, unsigned cbars, int cons,
                                                    int &stored, int z, int row0, int col0,
                                                    const float (&d)[ND])
{
  const int lane = threadIdx.x % 32, w = (threadIdx.x / 32) % 4, r = lane & 7;
  const int h = (lane >> 3) & 1, jl_lane = lane >> 4; /* this lane's matrix: row half, column block */
#pragma unroll
  for (int q = 0; q < ND / 32; q++, stored++) {
    const unsigned buf = BETA ? staging_loaded(buf0, cbars, stored) : staging_next(buf0, stored, cons);
#pragma unroll
    for (int jp = 0; jp < 4; jp++) {
      const int j = 8 * q + 2 * jp, jl = 2 * jp + jl_lane;
      /* c_trans: line = tile row 16w + 8h + r, chunk = column block jl;
       * else line = tile column 8 jl + r, chunk = rows 16w + 8h.. */
      const unsigned at = p.c_trans ? buf + (16 * w + 8 * h + r) * 128 + ((jl ^ r) << 4)
                                    : buf + (8 * jl + r) * 128 + (((2 * w + h) ^ r) << 4);
      float v[8];
#pragma unroll
      for (int e = 0; e < 8; e++) v[e] = p.alpha * d[4 * j + e];
      if (BETA) {
        unsigned c[4];
        if (p.c_trans) ldmatrix4<false>(at, c[0], c[1], c[2], c[3]);
        else ldmatrix4<true>(at, c[0], c[1], c[2], c[3]);
#pragma unroll
        for (int e = 0; e < 4; e++) {
          const float2 old = unpack<T>(c[e]);
          v[2 * e] = fmaf(p.beta, old.x, v[2 * e]), v[2 * e + 1] = fmaf(p.beta, old.y, v[2 * e + 1]);
        }
      }
      const unsigned r0 = hconv::pack<T>(v[0], v[1]), r1 = hconv::pack<T>(v[2], v[3]);
      const unsigned r2 = hconv::pack<T>(v[4], v[5]), r3 = hconv::pack<T>(v[6], v[7]);
      if (p.c_trans) stmatrix4<false>(at, r0, r1, r2, r3);
      else stmatrix4<true>(at, r0, r1, r2, r3);
    }
    if (staging_written(cons)) {
      store_box(p, mc, buf, row0, col0, q, z);
      if (BETA) staging_release(cbars, stored);
    }
  }
}

/* FP32 C the same way (BETA as there): the consumer's 64 x BN rows leave 32
 * columns at a time through the two 8 KB buffers, as 128-byte lines of 32
 * floats, 16-byte chunk c of line L at chunk c ^ (L % 8).  c_trans (C's
 * contiguous dimension is the tile's columns): one 32-column x 64-row box,
 * line = tile row, a thread's column pairs one 8-byte store.  Otherwise:
 * two 32-row x 32-column boxes (rows 0-31 and 32-63), line = tile column,
 * one 4-byte store an element; with RSTEP 8 a warp's 32 stores then fall
 * on 8 chunks x 4 words (no conflicts), with RSTEP 4 on half of those. */
__attribute__((unused)) /* (not in the narrow tile) */
static __device__ __forceinline__ float lds_f32(unsigned addr)
{
  float v;
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr) : "memory");
  return v;
}
__attribute__((unused)) /* (not in the narrow tile) */
static __device__ __forceinline__ void sts_f32(unsigned addr, float v)
{
  asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(addr), "f"(v) : "memory");
}

template <int RSTEP, bool BETA, int ND>
static __device__ __forceinline__ void epilogue_tma_f32(const dlg_hgemm_args &p, const CUtensorMap *mc,
                                                        unsigned buf0, unsigned cbars, int cons,
                                                        int &stored, int z, int row0, int col0,
                                                        const float (&d)[ND])
{
  const int t = threadIdx.x % 4, r0 = tile_row<RSTEP>();
#pragma unroll
  for (int q = 0; q < ND / 16; q++, stored++) {
    const unsigned buf = BETA ? staging_loaded(buf0, cbars, stored) : staging_next(buf0, stored, cons);
#pragma unroll
    for (int jj = 0; jj < 4; jj++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int j = 4 * q + jj, r = r0 + RSTEP * h;
        float v0 = p.alpha * d[4 * j + 2 * h], v1 = p.alpha * d[4 * j + 2 * h + 1];
        /* c_trans: the pair at one 8-byte address; else lines l0, l0 + 1 */
        const int l0 = 8 * jj + 2 * t;
        const unsigned box = buf + (r / 32) * 4096, rc = (r % 32) / 4, rw = 4 * (r % 4);
        const unsigned a0 = p.c_trans ? buf + r * 128 + (((2 * jj + t / 2) ^ (r % 8)) << 4) + 8 * (t % 2)
                                      : box + l0 * 128 + ((rc ^ (l0 % 8)) << 4) + rw;
        const unsigned a1 = p.c_trans ? a0 + 4 : box + (l0 + 1) * 128 + ((rc ^ ((l0 + 1) % 8)) << 4) + rw;
        if (BETA) v0 = fmaf(p.beta, lds_f32(a0), v0), v1 = fmaf(p.beta, lds_f32(a1), v1);
        if (p.c_trans)
          asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(a0), "f"(v0), "f"(v1) : "memory");
        else
          sts_f32(a0, v0), sts_f32(a1, v1);
      }
    if (staging_written(cons)) {
      store_box(p, mc, buf, row0, col0, q, z);
      if (BETA) staging_release(cbars, stored);
    }
  }
}

/* Compile-time flags for the consumer's k-tile step: whether its first
 * wgmma starts the accumulator afresh. */
struct fresh_no { static constexpr bool value = false; };
struct fresh_yes { static constexpr bool value = true; };

/* acc += d, element by element, in IEEE FP32 (the TF32X3 kernels). */
template <int N>
static __device__ __forceinline__ void promote(float (&acc)[N], const float (&d)[N])
{
#pragma unroll
  for (int i = 0; i < N; i++) acc[i] += d[i];
}

/* A block's walk over the tiles: groups of `rows` tile-rows, column by
 * column inside a group, batch outermost.  In a cluster of `ctas` (pairs)
 * the walk is over groups of that many tile-rows: the cluster's blocks
 * take the same step at the same time, rank r the group's row r, so that
 * they share the tile of B.  A tile-row past C's (the tile-rows rounded
 * up) is computed on TMA's zeros and its stores are clipped or guarded:
 * the peer still needs its half of B.  Made by each role after its
 * setmaxnreg (m taken through an opaque move so that nothing is computed
 * before): a value live across the register-count change went through
 * local memory (the 192-wide rr kernels). */
struct walk {
  int tiles_m, tiles_n, rows; /* tiles_m and rows in groups of ctas tile-rows */
  int first, step, tiles;     /* this block's first step, its stride, the steps */
  int ctas, rank;

  template <int BN> static __device__ __forceinline__ walk make(const dlg_hgemm_args &p)
  {
    walk w;
    w.ctas = (int)cluster_ctas(), w.rank = (int)cluster_rank();
    w.tiles_m = (((int)in_place((unsigned)p.m) + BM - 1) / BM + w.ctas - 1) / w.ctas;
    w.tiles_n = (p.n + BN - 1) / BN;
    w.rows = max(p.walk_rows / w.ctas, 1);
    w.first = blockIdx.x / w.ctas, w.step = gridDim.x / w.ctas;
    w.tiles = w.tiles_m * w.tiles_n * p.batch * p.splits;
    return w;
  }
  /* step t's tile */
  __device__ __forceinline__ void at(int t, int &tm, int &tn, int &z) const
  {
    const int per = tiles_m * tiles_n, u = t % per, group = u / (rows * tiles_n);
    const int top = group * rows, size = min(rows, tiles_m - top), in = u % (rows * tiles_n);
    z = t / per;
    tm = (top + in % size) * ctas + rank;
    tn = in / size;
  }
};

/* Split-K (p.splits > 1): the walk's batch index z counts (batch entry,
 * split) pairs, split innermost; the operands are read at entry z / splits,
 * from k0 = split * kchunk (a multiple of BK) to the chunk's end or k's,
 * and the tile's sum goes to C's entry z - a workspace the host adds up.
 * The k-tiles of the tile, and k0. */
static __device__ __forceinline__ int k_span(const dlg_hgemm_args &p, int z, int &k0)
{
  k0 = (z % p.splits) * p.kchunk;
  return (min(p.k - k0, p.kchunk) + BK - 1) / BK;
}

/* The C loader (beta != 0, C addressed by TMA): one thread walking the
 * block's tiles as the consumers do, loading each consumer's boxes of C
 * into its staging buffers, in the order the epilogues take them, each once
 * the store of its previous box has read it (staging_release).  A thread of
 * its own rather than the producer's: the producer must not wait for an
 * epilogue while the next tile's operands could be loading. */
template <int BN>
static __device__ __forceinline__ void load_c(const dlg_hgemm_args &p, const CUtensorMap *mc,
                                              unsigned c_stage, unsigned bars, const walk &w)
{
  constexpr int STAGES = DLG_WGMMA_STAGES_FOR(BN);
  const int boxes = p.c_type == DLG_HOUT_F32 ? BN / 32 : BN / 64;
  int n = 0; /* boxes loaded per consumer */
  for (int t = w.first; t < w.tiles; t += w.step) {
    int tm, tn, z;
    w.at(t, tm, tn, z);
    for (int q = 0; q < boxes; q++, n++)
      for (int cons = 0; cons < CONSUMERS; cons++) {
        const unsigned full = bars + 8 * (2 * STAGES + C_BUFS * cons + (unsigned)n % C_BUFS);
        const unsigned buf = c_stage + (C_BUFS * cons + (unsigned)n % C_BUFS) * 8192;
        const int row0 = tm * BM + 64 * cons, col0 = tn * BN;
        bar_wait(full + FREE_BARS, (((unsigned)n / C_BUFS) & 1) ^ 1);
        bar_expect(full, 8192);
        for (int part = 0; part < c_parts(p); part++) {
          const int2 at = c_box(p, row0, col0, q, part);
          tma_load(buf + 4096 * part, mc, full, at.x, at.y, z);
        }
      }
  }
}

template <int KIND, bool A_KC, bool B_KC, int BN>
static __device__ __forceinline__ void gemm(const dlg_hgemm_args &p, const CUtensorMap *ma,
                                            const CUtensorMap *mb, const CUtensorMap *mc)
{
  enum { B_BYTES = BN * BK * 2, STAGE_BYTES = A_BYTES + B_BYTES };
  constexpr int STAGES = DLG_WGMMA_STAGES_FOR(BN);
  /* the narrow tile: B k-contiguous (one box of 16 rows), C through the
   * element stores (the host gives it no tensor map of C) */
  static_assert(BN >= 64 || B_KC, "a narrow B must be k-contiguous");
  static_assert(DLG_WGMMA_SMEM(BM, BN) <= 227 * 1024, "the stages fit the SM's shared memory");
  constexpr bool PROMOTE = KIND == DLG_TC_TF32X3; /* k-contiguous operands only */
  /* TF32 with an m-contiguous A: A goes through registers (wgmma's A may
   * come from registers in any layout; from shared memory TF32 must be
   * k-contiguous) */
  constexpr bool A_REG = KIND == DLG_TC_TF32 && !A_KC;
  constexpr int RSTEP = A_REG ? 4 : 8; /* tile_row */
  /* k-tiles between FP32 adds.  Measured at 8192^3: 2, 4, 8, 16 and 64 all
   * ran at 95-99 TFLOP/s; the relative error was 2.8e-7, 3.7e-7, 6.4e-7,
   * 1.2e-6 and 4.8e-6 (cuBLAS SGEMM's 1.6e-6) */
  constexpr int PROMOTE_EVERY = 4;
  extern __shared__ unsigned char smem_raw[];
  /* 128-byte swizzling repeats every 1024 bytes: stages start on that grain */
  const unsigned s0 = (saddr(smem_raw) + 1023) & ~1023u;
  const unsigned c_stage = s0 + STAGES * STAGE_BYTES; /* 16 KB per consumer, 1024-aligned */
  /* full[s], then empty[s], then the staging buffers'
   * loaded[consumer][C_BUFS] and free[consumer][C_BUFS] (C read through
   * them), 8 bytes each */
  const unsigned bars = c_stage + DLG_WGMMA_C_STAGE(BM);
  const int wgroup = threadIdx.x / 128;
  /* a split product's reduce may launch now (hgemm.c): it waits for this
   * grid's end and its memory before it reads, and it cannot take an SM
   * from these blocks (they hold the whole register file) */
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; s++) {
      bar_init(bars + 8 * s, 1);                /* the producer's expect_tx */
      /* one per consumer warp of the cluster */
      bar_init(bars + 8 * (STAGES + s), 4 * CONSUMERS * cluster_ctas());
    }
    for (int b = 0; b < 2 * C_BUFS * CONSUMERS; b++) bar_init(bars + 8 * (2 * STAGES + b), 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  /* in a pair, the peer's barriers too are ready before any arrival on
   * them; alone, a block barrier (the cluster's fences the pair needs,
   * MEMBAR.GPU and an L1 invalidation, would cost small products) */
  if (cluster_ctas() > 1) cluster_sync();
  else __syncthreads();

  if (wgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"((int)PRODUCER_REGS));
    if constexpr (BN >= 64)
      if (threadIdx.x == 32 && p.c_tma && p.beta != 0.f) {
        load_c<BN>(p, mc, c_stage, bars, walk::make<BN>(p));
      }
    if (threadIdx.x != 0) return;
    const walk w = walk::make<BN>(p);
    int it = 0;
    for (int t = w.first; t < w.tiles; t += w.step) {
      int tm, tn, z, k0;
      w.at(t, tm, tn, z);
      const int ktiles = k_span(p, z, k0);
      const int za = p.sa ? z / p.splits : 0, zb = p.sb ? z / p.splits : 0;
      for (int kt = 0; kt < ktiles; kt++, it++) {
        const int kc = k0 + kt * BK; /* the k-tile's first k */
        const int s = it % STAGES;
        const unsigned sa = s0 + s * STAGE_BYTES, sb = sa + A_BYTES, full = bars + 8 * s;
        bar_wait(bars + 8 * (STAGES + s), ((it / STAGES) & 1) ^ 1);
        bar_expect(full, STAGE_BYTES);
        if (A_KC) tma_load(sa, ma, full, kc, tm * BM, za);
        else if (A_REG) /* boxes of 32 rows (64 halves) x 32 k */
          for (int b = 0; b < BM / 32; b++) tma_load(sa + b * 4096, ma, full, 2 * (tm * BM + 32 * b), kc / 2, za);
        else
          for (int b = 0; b < BM / 64; b++) tma_load(sa + b * BOX, ma, full, tm * BM + 64 * b, kc, za);
        if (w.ctas > 1) { /* a share of B each, to every block (the map's box is BN / ctas rows) */
          const unsigned short all = (unsigned short)((1u << w.ctas) - 1);
          if (B_KC) {
            const int part = BN / w.ctas;
            tma_load_multicast(sb + w.rank * part * 128, mb, full, kc, tn * BN + w.rank * part, zb, all);
          } else
#pragma unroll
            for (int b = 0; b < BN / 64; b++)
              if (b % w.ctas == w.rank) tma_load_multicast(sb + b * BOX, mb, full, tn * BN + 64 * b, kc, zb, all);
        } else if (B_KC) tma_load(sb, mb, full, kc, tn * BN, zb);
        else
          for (int b = 0; b < BN / 64; b++) tma_load(sb + b * BOX, mb, full, tn * BN + 64 * b, kc, zb);
      }
    }
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"((int)CONSUMER_REGS));
  const walk w = walk::make<BN>(p);
  /* C read through the staging buffers; like the walk, worked out after
   * the register-count change (computed before it, it went through local
   * memory: the 256-wide kernels) */
  const bool c_loaded = p.c_tma && in_place((unsigned)(p.beta != 0.f));
  const int cons = wgroup - 1; /* rows 64 * cons .. of the tile */
  /* a stage is free once every consumer warp of the cluster is done with
   * it (in a pair, the peer's producer fills half of it): lane r arrives
   * for its warp on block r's barrier (a block launched alone is rank 0 of
   * a cluster of one).  One predicated arrive, no branch: the warp leader
   * looping over the blocks cost the TF32 register-A kernels a branch and
   * a reconvergence between every two k-tiles (bench/NOTES.md). */
  auto free_stage = [&](int s) {
    if (threadIdx.x % 32 < (unsigned)w.ctas) bar_arrive_cta(bars + 8 * (STAGES + s), threadIdx.x % 32);
  };
  /* k-tile `it` of this block's walk: wait for its stage, queue its
   * wgmmas into dd (FRESH: ignoring dd's old value), and once all but
   * these are done, free the stage of the k-tile before (when there is one) */
  auto ktile = [&](auto fresh, float(&dd)[BN / 2], int it, bool free_prev) {
    const int s = it % STAGES;
    const unsigned sa = s0 + s * STAGE_BYTES + cons * (A_KC ? 64 * 128 : BOX), sb = s0 + s * STAGE_BYTES + A_BYTES;
    bar_wait(bars + 8 * s, (it / STAGES) & 1);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++) {
      const unsigned long long da = A_KC ? desc(sa + 32 * kk, 16, 1024) : desc(sa + 2048 * kk, BOX, 1024);
      const unsigned long long db = B_KC ? desc(sb + 32 * kk, 16, 1024) : desc(sb + 2048 * kk, BOX, 1024);
      if (decltype(fresh)::value && kk == 0) wgmma<KIND, A_KC ? 0 : 1, B_KC ? 0 : 1, false>(dd, da, db);
      else wgmma<KIND, A_KC ? 0 : 1, B_KC ? 0 : 1>(dd, da, db);
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    if (free_prev) free_stage((it - 1) % STAGES);
  };
  /* The same for A_REG: this thread's A fragments of the stage (ar, 4 per
   * k8 step) are loaded first, and the k-tile's wgmmas are waited for
   * before the next k-tile loads its own: ptxas serialises every wgmma
   * when an instruction writes a wgmma's input registers while wgmmas are
   * in flight.  The other consumer's wgmmas keep the tensor cores busy
   * across this one's gap. */
  unsigned a_off[4];
  a_frag_offsets<RSTEP>(a_off);
  auto ktile_rs = [&](float(&dd)[BN / 2], int it) {
    const int s = it % STAGES;
    const unsigned sa = s0 + s * STAGE_BYTES + cons * 8192, sb = s0 + s * STAGE_BYTES + A_BYTES;
    unsigned ar[16];
    bar_wait(bars + 8 * s, (it / STAGES) & 1);
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++)
#pragma unroll
      for (int e = 0; e < 4; e++) ar[4 * kk + e] = lds_tf32(sa + 1024 * kk + a_off[e]);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    if constexpr (A_REG) { /* (TF32 only: no narrow-tile form) */
#pragma unroll
      for (int kk = 0; kk < BK / 16; kk++) wgmma_rs(dd, ar + 4 * kk, desc(sb + 32 * kk, 16, 1024));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    free_stage(s);
  };
  int it = 0, stored = 0;
  for (int t = w.first; t < w.tiles; t += w.step) {
    int tm, tn, z, k0;
    w.at(t, tm, tn, z);
    const int ktiles = k_span(p, z, k0);
    /* d: the tensor cores' sum (PROMOTE: of the current group of k-tiles;
     * acc the IEEE FP32 total, unused and gone otherwise) */
    float d[BN / 2], acc[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; i++) d[i] = 0.f, acc[i] = 0.f;
    if constexpr (A_REG) {
      for (int kt = 0; kt < ktiles; kt++, it++) ktile_rs(d, it);
    } else if (!PROMOTE) {
      for (int kt = 0; kt < ktiles; kt++, it++) ktile(fresh_no{}, d, it, kt > 0);
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      if (ktiles > 0) free_stage((it - 1) % STAGES);
    } else {
      /* groups of PROMOTE_EVERY k-tiles: the first starts d afresh, the
       * group is waited for, its sum joins acc.  (Reading one buffer while
       * the next group's wgmmas ran in another made ptxas serialise every
       * wgmma; waiting after each k-tile cost a third of the speed.) */
      for (int kt = 0; kt < ktiles;) {
        ktile(fresh_yes{}, d, it++, false);
        for (kt++; kt % PROMOTE_EVERY && kt < ktiles; kt++) ktile(fresh_no{}, d, it++, true);
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        free_stage((it - 1) % STAGES);
        promote(acc, d);
      }
    }
    const int row0 = tm * BM + 64 * cons, col0 = tn * BN;
    const float(&sum)[BN / 2] = PROMOTE ? acc : d;
    const unsigned buf0 = c_stage + cons * C_BUFS * 8192;
    const unsigned cbars = bars + 8 * (2 * STAGES + C_BUFS * cons);
    if constexpr (BN >= 64) { /* the narrow tile's C: element stores (gemm's start) */
      if (p.c_tma && p.c_type == DLG_HOUT_F32) {
        if (c_loaded) epilogue_tma_f32<RSTEP, true>(p, mc, buf0, cbars, cons, stored, z, row0, col0, sum);
        else epilogue_tma_f32<RSTEP, false>(p, mc, buf0, cbars, cons, stored, z, row0, col0, sum);
        continue;
      }
    }
    if constexpr ((KIND == DLG_TC_F16 || KIND == DLG_TC_BF16) && BN >= 64) {
      if (p.c_tma && p.c_type == DLG_HOUT_F16) {
        if (c_loaded) epilogue_tma<__half, true>(p, mc, buf0, cbars, cons, stored, z, row0, col0, sum);
        else epilogue_tma<__half, false>(p, mc, buf0, cbars, cons, stored, z, row0, col0, sum);
        continue;
      }
      if (p.c_tma) {
        if (c_loaded)
          epilogue_tma<__nv_bfloat16, true>(p, mc, buf0, cbars, cons, stored, z, row0, col0, sum);
        else epilogue_tma<__nv_bfloat16, false>(p, mc, buf0, cbars, cons, stored, z, row0, col0, sum);
        continue;
      }
    }
    if (p.c_type == DLG_HOUT_F32) epilogue<float, RSTEP>(p, z, row0, col0, sum);
    else if (p.c_type == DLG_HOUT_F16) epilogue<__half, RSTEP>(p, z, row0, col0, sum);
    else epilogue<__nv_bfloat16, RSTEP>(p, z, row0, col0, sum);
  }
  /* shared memory must outlive the TMA stores that read it */
  if (stored && threadIdx.x % 128 == 0) tma_store_wait_all();
  /* the peer still arrives on this block's barriers until its last k-tile */
  if (w.ctas > 1) cluster_sync();
}

#endif

} /* namespace wg */

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define DLG_WGMMA_BODY(KIND, AKC, BKC, BN) wg::gemm<KIND, AKC, BKC, BN>(p, &ma, &mb, &mc);
#else
#define DLG_WGMMA_BODY(KIND, AKC, BKC, BN)
#endif
#define DLG_WGMMA_KERNEL(NAME, KIND, AKC, BKC, BN)                                              \
  extern "C" __global__ void __launch_bounds__(DLG_WGMMA_THREADS(DLG_WGMMA_BUILD_BM), 1)        \
      NAME(const dlg_hgemm_args p, const __grid_constant__ CUtensorMap ma,                      \
           const __grid_constant__ CUtensorMap mb, const __grid_constant__ CUtensorMap mc)     \
  {                                                                                             \
    DLG_WGMMA_BODY(KIND, AKC, BKC, BN)                                                          \
  }
/* dlg_hgemm_wgmma_<type>_<a><b> (128 x 256 tiles), dlg_hgemm_wgmma192_...
 * and dlg_hgemm_wgmma128_... (128 x 192 and 128 x 128, for problems that
 * leave SMs idle with the larger tile); a/b as the mma.sync kernels, TF32
 * k-contiguous, or (rk) with an m-contiguous A. */
#define DLG_WGMMA_FAMILY16(PREFIX, BN)                                \
  DLG_WGMMA_KERNEL(PREFIX##_f16_rr, DLG_TC_F16, false, false, BN)     \
  DLG_WGMMA_KERNEL(PREFIX##_f16_rk, DLG_TC_F16, false, true, BN)      \
  DLG_WGMMA_KERNEL(PREFIX##_f16_kr, DLG_TC_F16, true, false, BN)      \
  DLG_WGMMA_KERNEL(PREFIX##_f16_kk, DLG_TC_F16, true, true, BN)       \
  DLG_WGMMA_KERNEL(PREFIX##_bf16_rr, DLG_TC_BF16, false, false, BN)   \
  DLG_WGMMA_KERNEL(PREFIX##_bf16_rk, DLG_TC_BF16, false, true, BN)    \
  DLG_WGMMA_KERNEL(PREFIX##_bf16_kr, DLG_TC_BF16, true, false, BN)    \
  DLG_WGMMA_KERNEL(PREFIX##_bf16_kk, DLG_TC_BF16, true, true, BN)
#define DLG_WGMMA_FAMILY(PREFIX, BN)                                  \
  DLG_WGMMA_FAMILY16(PREFIX, BN)                                      \
  DLG_WGMMA_KERNEL(PREFIX##_tf32_rk, DLG_TC_TF32, false, true, BN)    \
  DLG_WGMMA_KERNEL(PREFIX##_tf32_kk, DLG_TC_TF32, true, true, BN)
/* One tile per translation unit: the build compiles this file once for
 * each (-DDLG_WGMMA_BUILD_BN=256, 192, 128, 64, 16; with
 * -DDLG_WGMMA_BUILD_BM=192, the 192 x 192 tile), so the tiles, most of
 * the library's compile time, build in parallel. */
#if DLG_WGMMA_BUILD_BM == 192 && DLG_WGMMA_BUILD_BN == 192 /* 16-bit kinds only */
DLG_WGMMA_FAMILY16(dlg_hgemm_wgmma192x192, 192)
#elif DLG_WGMMA_BUILD_BM != 128
#error "the 192-row tile is built 192 wide only"
#elif DLG_WGMMA_BUILD_BN == 256
DLG_WGMMA_FAMILY(dlg_hgemm_wgmma, 256)
#elif DLG_WGMMA_BUILD_BN == 16 /* the narrow tile: 16-bit kinds, B k-contiguous */
DLG_WGMMA_KERNEL(dlg_hgemm_wgmma16_f16_rk, DLG_TC_F16, false, true, 16)
DLG_WGMMA_KERNEL(dlg_hgemm_wgmma16_f16_kk, DLG_TC_F16, true, true, 16)
DLG_WGMMA_KERNEL(dlg_hgemm_wgmma16_bf16_rk, DLG_TC_BF16, false, true, 16)
DLG_WGMMA_KERNEL(dlg_hgemm_wgmma16_bf16_kk, DLG_TC_BF16, true, true, 16)
#elif DLG_WGMMA_BUILD_BN == 192
DLG_WGMMA_KERNEL(dlg_hgemm_wgmma192_tf32x3_kk, DLG_TC_TF32X3, true, true, 192)
DLG_WGMMA_FAMILY(dlg_hgemm_wgmma192, 192)
#elif DLG_WGMMA_BUILD_BN == 128
DLG_WGMMA_KERNEL(dlg_hgemm_wgmma128_tf32x3_kk, DLG_TC_TF32X3, true, true, 128)
DLG_WGMMA_FAMILY(dlg_hgemm_wgmma128, 128)
#elif DLG_WGMMA_BUILD_BN == 64 /* products 17-64 wide: eight stages in flight */
DLG_WGMMA_FAMILY(dlg_hgemm_wgmma64, 64)
#else
#error "define DLG_WGMMA_BUILD_BN as 256, 192, 128, 64 or 16 (CMakeLists.txt does)"
#endif
