/*
 * tf32_pack.cu - operands made fit for the tensor-core kernels before a
 * product: the FP32 precision policies' packing pass (an FP32 operand of
 * any layout into the k-contiguous TF32 form the kernels read;
 * plugin/cuda/device/tf32.c decides when it runs), and the copy of a 16-bit
 * operand that TMA cannot address to a 16-byte-aligned leading dimension
 * (dlg_pad16; plugin/cuda/device/pad.c decides).  hgemm_args.h has the
 * argument contracts.
 *
 * Why it exists and is laid out as it is:
 *
 * - TF32 wgmma has no transposed form: an operand whose contiguous
 *   dimension is m or n must be turned k-contiguous once, before the GEMM,
 *   not inside its main loop.
 * - 3xTF32 writes x as hi + lo, hi = tf32(x) and lo = tf32(x - hi) (x - hi
 *   is exact in FP32), and wants hi_a hi_b + hi_a lo_b + lo_a hi_b, the
 *   lo_a lo_b term being below FP32's rounding.  Those three products are
 *   one TF32 GEMM over k' = 3k when A's row is (hi, lo, hi) and B's column
 *   (lo, hi, hi): the segments are where this pass writes them, the GEMM
 *   kernels do not know.  The small products come first, so they are summed
 *   while the accumulator is still small.
 * - Rounding is to nearest (cvt.rna): hi is then within 2^-11 of x and lo
 *   within 2^-22 of x - hi.  A finite x that would round to infinity keeps
 *   its truncation as hi; a non-finite x is its own hi with lo = 0, so that
 *   infinities and NaN reach the product (hi times the other operand's lo
 *   can still make Inf - Inf = NaN where FP32 gives an infinity: 3xTF32's
 *   one departure from SGEMM, documented in the README).
 * - A block moves a 32 x 32 tile through shared memory: lanes read along
 *   whichever dimension is contiguous in the source and write along k, so
 *   both sides are coalesced.  The tile row is padded to 33 words so the
 *   transposed reads from shared memory do not share a bank.
 */
#include "hgemm_args.h"

namespace tf32p {

static __device__ __forceinline__ float to_tf32(float x)
{
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
}

static __device__ __forceinline__ void split(float x, float &hi, float &lo)
{
  hi = to_tf32(x);
  if (isinf(hi) && !isinf(x)) hi = __uint_as_float(__float_as_uint(x) & ~0x1fffu);
  lo = isfinite(hi) ? to_tf32(x - hi) : 0.f;
}

} /* namespace tf32p */

extern "C" __global__ void __launch_bounds__(DLG_TF32_PACK_TILE * DLG_TF32_PACK_ROWS)
    dlg_tf32_pack(const dlg_tf32_pack_args p, int batch)
{
  enum { T = DLG_TF32_PACK_TILE, R = DLG_TF32_PACK_ROWS };
  __shared__ float tile[T][T + 1]; /* [row][k] */
  const int tx = threadIdx.x, ty = threadIdx.y, l0 = blockIdx.x * T;
  const int row_tiles = (p.rows + T - 1) / T;
  const bool k_unit = p.ks == 1;
  for (int z = blockIdx.z; z < batch; z += gridDim.z)
    for (int rt = blockIdx.y; rt < row_tiles; rt += gridDim.y) {
      const int i0 = rt * T;
      const float *src = p.src + z * p.bs;
      float *dst = p.dst + z * p.dbs;
      __syncthreads(); /* the previous tile's readers are done */
      for (int j = ty; j < T; j += R) {
        const int r = k_unit ? j : tx, c = k_unit ? tx : j;
        if (i0 + r < p.rows && l0 + c < p.k) tile[r][c] = src[(i0 + r) * p.rs + (l0 + c) * p.ks];
      }
      __syncthreads();
      for (int j = ty; j < T; j += R) {
        const int i = i0 + j, l = l0 + tx;
        if (i < p.rows && l < p.k) {
          float hi, lo, *out = dst + i * p.ld + l;
          tf32p::split(tile[j][tx], hi, lo);
          for (int s = 0; s < p.segs; s++) out[(long long)s * p.k] = (p.lo_mask >> s & 1) ? lo : hi;
        }
      }
    }
}

/* Each thread copies eight elements of one column and stores them as 16
 * bytes.  The source is what is misaligned: where its columns still start
 * on 16 bytes (only off the 128-byte lines the wgmma kernels want: 3000
 * bfloat16 values are 6000 bytes) the eight come in one 16-byte load,
 * else in eight 2-byte loads (a warp's loads still cover 512 contiguous
 * bytes).  The group's indices are worked out in 32 bits where the copy
 * is small enough (64-bit divisions cost far more).  A 3000 x 3000
 * bfloat16 operand takes 13 us on the H100, a device copy's speed.  The
 * tail of a column past len is written as zeros, so the copy never leaves
 * uninitialised pool memory inside a row of 16 bytes that a TMA box may
 * read (TMA clips at len anyway). */
template <typename I>
static __device__ __forceinline__ void pad16(const dlg_pad16_args &p, bool vec, I groups, I per,
                                             I total)
{
  for (I u = blockIdx.x * (I)blockDim.x + threadIdx.x; u < total; u += (I)gridDim.x * blockDim.x) {
    const I z = u / per, r = u - z * per, j = r / groups, i0 = (r - j * groups) * 8;
    const unsigned short *src = p.src + z * p.sbs + j * p.sld + i0;
    unsigned w[4];
    if (vec && i0 + 8 <= p.len) {
      const uint4 v = __ldg(reinterpret_cast<const uint4 *>(src));
      w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
    } else {
      unsigned short v[8];
#pragma unroll
      for (int e = 0; e < 8; e++) v[e] = i0 + e < p.len ? src[e] : 0;
#pragma unroll
      for (int e = 0; e < 4; e++) w[e] = v[2 * e] | (unsigned)v[2 * e + 1] << 16;
    }
    /* one 16-byte store, written out: as a uint4 assignment nvcc split it in four */
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"l"(p.dst + z * p.dbs + j * p.dld + i0),
                 "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
                 : "memory");
  }
}

extern "C" __global__ void __launch_bounds__(DLG_PAD16_THREADS) dlg_pad16(const dlg_pad16_args p)
{
  const long long groups = (p.len + 7) / 8, per = groups * p.cols, total = per * p.batch;
  const bool vec = (unsigned long long)p.src % 16 == 0 && p.sld % 8 == 0 && p.sbs % 8 == 0;
  if (total + (long long)gridDim.x * blockDim.x < (1ll << 31))
    pad16<unsigned>(p, vec, (unsigned)groups, (unsigned)per, (unsigned)total);
  else
    pad16<long long>(p, vec, groups, per, total);
}
