/*
 * sgemm_sgpr.cu - the GCN "SGPR-broadcast" SGEMM (kernels/gcn) ported to
 * NVIDIA as an experiment: routed only when DLGEMM_SGEMM_KERNEL=sgpr asks
 * for it, and measured against the SIMT kernel and cuBLAS (bench/NOTES.md).
 *
 * The design, as on Vega: each thread owns one column j of a 64-row strip of
 * C and keeps its 64 sums in registers.  For each k every lane of the warp
 * needs the same 64 values A(i0..i0+63, k), contiguous in a column-major A:
 * they are read with warp-uniform loads (one address for all 32 lanes, so
 * the L1 serves each as a single broadcast; NVIDIA has no scalar register
 * file to put them in, so they land in every lane's registers).  B(k, j) is
 * private to the lane and contiguous in k: one 16-byte load per 4 k, the next
 * one in flight while the current one is used.  No shared memory, no
 * barriers.  Blocks are 128 threads: a 64 x 128 tile of C.
 *
 * Operands: the "rk" case of the SIMT kernels' convention (sgemm_simt.cu):
 * a is column-major (a[i + l*lda]), b is k-contiguous (b[l + j*ldb]), c is
 * column-major.  Any m, n, k >= 0, any leading dimension, batches in
 * blockIdx.z.
 */
#include "sgemm_args.h"

#define DLG_SGPR_ROWS 64
#define DLG_SGPR_THREADS 128

namespace {

/* acc[r] += A(row0 + r, l) * bl for the 64 rows.  FULL: all rows exist and
 * 16-byte loads are legal; otherwise rows past m re-read row m - 1. */
template <bool FULL>
__device__ __forceinline__ void strip_step(float (&acc)[DLG_SGPR_ROWS], const float *al, int rows,
                                           float bl)
{
  if (FULL) {
    const float4 *a4 = reinterpret_cast<const float4 *>(al);
#pragma unroll
    for (int q = 0; q < DLG_SGPR_ROWS / 4; q++) {
      const float4 v = __ldg(a4 + q); /* the same address in every lane: a broadcast */
      acc[4 * q + 0] = fmaf(v.x, bl, acc[4 * q + 0]);
      acc[4 * q + 1] = fmaf(v.y, bl, acc[4 * q + 1]);
      acc[4 * q + 2] = fmaf(v.z, bl, acc[4 * q + 2]);
      acc[4 * q + 3] = fmaf(v.w, bl, acc[4 * q + 3]);
    }
  } else {
#pragma unroll
    for (int r = 0; r < DLG_SGPR_ROWS; r++)
      acc[r] = fmaf(__ldg(al + (r < rows ? r : rows - 1)), bl, acc[r]);
  }
}

template <bool FULL>
__device__ __forceinline__ void strip(float (&acc)[DLG_SGPR_ROWS], const float *a, long long lda,
                                      int rows, const float *b, int k, bool vec_b)
{
  int l = 0;
  if (FULL && vec_b && k >= 4) {
    const float4 *b4 = reinterpret_cast<const float4 *>(b);
    float4 next = __ldg(b4);
    for (; l + 4 <= k; l += 4) {
      const float4 cur = next;
      if (l + 8 <= k) next = __ldg(b4 + l / 4 + 1); /* in flight during this step */
      strip_step<FULL>(acc, a + (l + 0) * lda, rows, cur.x);
      strip_step<FULL>(acc, a + (l + 1) * lda, rows, cur.y);
      strip_step<FULL>(acc, a + (l + 2) * lda, rows, cur.z);
      strip_step<FULL>(acc, a + (l + 3) * lda, rows, cur.w);
    }
  }
#pragma unroll 1
  for (; l < k; l++) strip_step<FULL>(acc, a + l * lda, rows, __ldg(b + l));
}

} // namespace

/* FULL: every block has 64 rows and A and B allow 16-byte loads; the host
 * sends the rows past the last multiple of 64, and unaligned operands, to
 * the guarded instance.  Two kernels rather than a branch: registers are
 * allocated per kernel, and the guarded path's would cost the fast one its
 * occupancy. */
template <bool FULL>
__device__ __forceinline__ void sgpr_kernel(const dlg_sgemm_args &p)
{
  const int col = blockIdx.x * DLG_SGPR_THREADS + threadIdx.x;
  const int j = col < p.n ? col : p.n - 1; /* idle lanes read a real column */
  const int row0 = blockIdx.y * DLG_SGPR_ROWS;
  const int rows = FULL || p.m - row0 >= DLG_SGPR_ROWS ? DLG_SGPR_ROWS : p.m - row0;
  const float *a = p.a + blockIdx.z * p.sa + row0;
  const float *b = p.b + blockIdx.z * p.sb + (long long)j * p.ldb;
  float *c = p.c + blockIdx.z * p.sc + (long long)col * p.ldc + row0;
  float acc[DLG_SGPR_ROWS];
#pragma unroll
  for (int r = 0; r < DLG_SGPR_ROWS; r++) acc[r] = 0.f;
  strip<FULL>(acc, a, p.lda, rows, b, p.k, FULL);

  if (col >= p.n) return;
  /* k = 0 (or alpha = 0, which the host turns into k = 0): C = beta * C,
   * alpha never multiplies anything, as in BLAS. */
  const float alpha = p.k ? p.alpha : 0.f;
#pragma unroll
  for (int r = 0; r < DLG_SGPR_ROWS; r++)
    if (r < rows) c[r] = p.beta != 0.f ? fmaf(p.beta, c[r], alpha * acc[r]) : alpha * acc[r];
}

extern "C" __global__ void __launch_bounds__(DLG_SGPR_THREADS)
dlg_sgemm_sgpr_64x128(const dlg_sgemm_args p)
{
  sgpr_kernel<true>(p);
}

extern "C" __global__ void __launch_bounds__(DLG_SGPR_THREADS)
dlg_sgemm_sgpr_64x128_edge(const dlg_sgemm_args p)
{
  sgpr_kernel<false>(p);
}
