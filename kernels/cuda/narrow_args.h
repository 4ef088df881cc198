/*
 * narrow_args.h - the kernel parameter and shape constants of the narrow
 * kernels (narrow.cu: products whose C is at most 16 wide on one side),
 * shared with their launcher (plugin/cuda/device/narrow.c, plain C), so
 * the two cannot disagree.
 */
#ifndef DLG_NARROW_ARGS_H
#define DLG_NARROW_ARGS_H

#include "hgemm_args.h" /* DLG_HOUT_*: C's type for 16-bit inputs */

/* C = alpha * W X + beta * C with W rows x k (the wide operand), X k x nn
 * (nn <= 16), C rows x nn, for batch entry z (blockIdx.z) at
 *   W(i, l) = w[z * sw + i * ldw + l]   (the dot kernels: W k-contiguous)
 *   W(i, l) = w[z * sw + i + l * ldw]   (the axpy kernels: W rows-contiguous)
 *   X(l, j) = x[z * sx + l * xks + j * xjs]
 *   C(i, j) = c[z * sc + i * crs + j * ccs].
 * Split s (blockIdx.y) covers k in [s * kchunk, min(k, (s + 1) * kchunk)).
 * With work NULL the blocks write C; otherwise each writes its unscaled
 * partial sums to work[((z * splits + s) * nn + j) * rows + i] (float, or
 * double for the FP64 kernels), and they are added into C in split order:
 * with count (zeroed, an int per block of rows: count[z * gridDim.x +
 * blockIdx.x]) by the last of the block's splits to arrive, in the same
 * kernel; without it (these kernels on code older than sm_90, and
 * hgemm.c's split wgmma products) by dlg_narrow_reduce_*.  alpha == 0
 * arrives as k == 0: A and B are not read. */
/* The complex kernels (dlg_narrow_<dot|axpy>_<c64|c128>_<bucket>, the
 * bucket in complex columns) run the real kernel of twice the columns on
 * the interleaved storage (narrow.cu says how): w, ldw, sw, rows and k
 * describe W's real view (dot: rows x 2k, ldw twice W's; axpy: 2 rows x
 * k, its rows re, im, re, ...), nn is twice C's complex columns, and X's
 * and C's strides count reals: complex X(l, j) is x[z * sx + l * xks + j
 * * xjs] and the real after it, C(i, j) likewise.  alpha and beta are
 * real.  The workspace holds the real product's partial sums. */
typedef struct dlg_narrow_args {
  const void *w, *x;
  void *c, *work;
  int *count;
  long long ldw, xks, xjs, crs, ccs;
  long long sw, sx, sc; /* batch strides (elements); 0 broadcasts */
  double alpha, beta;   /* the float kernels round them to float */
  int rows, k, nn;
  int kchunk, splits;
  int vec;    /* W, its ld and batch stride allow 16-byte loads */
  int c_type; /* DLG_HOUT_*: C's type for float / float16 / bfloat16 inputs */
} dlg_narrow_args;

/* Input types, nn buckets (kernels for nn up to 1, 2, 4, 8, 16, and 32 for
 * float32 alone), layouts of W; the kernels are
 * dlg_narrow_<dot|axpy>_<f32|f64|f16|bf16|c64|c128>_<bucket>.
 * DLG_NARROW_MAX_NN is the width every real type has kernels for; float32
 * goes to DLG_NARROW_MAX_F32 (the other types' 17-64 wide products have
 * their thin tensor-core tiles), the complex types to DLG_NARROW_WIDEST. */
enum { DLG_NARROW_F32, DLG_NARROW_F64, DLG_NARROW_F16, DLG_NARROW_BF16, DLG_NARROW_C64,
       DLG_NARROW_C128, DLG_NARROW_TYPES };
enum { DLG_NARROW_BUCKETS = 6, DLG_NARROW_MAX_NN = 16, DLG_NARROW_MAX_F32 = 32 };
/* The widest bucket of each type, in its own columns: complex64 is float32's
 * 32 real columns, complex128 float64's 16. */
#define DLG_NARROW_WIDEST(t)                                                          \
  ((t) == DLG_NARROW_F32 ? DLG_NARROW_MAX_F32 : (t) == DLG_NARROW_C64 ? DLG_NARROW_MAX_F32 / 2 \
   : (t) == DLG_NARROW_C128                   ? DLG_NARROW_MAX_NN / 2                  \
                                              : DLG_NARROW_MAX_NN)
/* A complex type's real one (the kernels' loads and FMAs), a real type itself. */
#define DLG_NARROW_REAL(t) \
  ((t) == DLG_NARROW_C64 ? DLG_NARROW_F32 : (t) == DLG_NARROW_C128 ? DLG_NARROW_F64 : (t))
enum { DLG_NARROW_DOT = 0, DLG_NARROW_AXPY = 1 };

#define DLG_NARROW_THREADS 256
/* Split boundaries are multiples of this: of every kernel's step along k
 * (dot: 8 lanes of 16 bytes; axpy: 8 warps of 4 or 8 columns), so only
 * the end of k has a partial step. */
#define DLG_NARROW_KALIGN 64
#define DLG_NARROW_ES(t) ((t) == DLG_NARROW_F64 ? 8 : (t) == DLG_NARROW_F32 ? 4 : 2)
/* Rows of W per lane: dot, R rows for each group of 8 lanes (4 groups a
 * warp, 8 warps a block, all on the block's whole k range); axpy, RT
 * consecutive rows (one warp wide, the 8 warps splitting k).  narrow.cu
 * says why; both keep R * bucket accumulators at 64 registers or fewer.
 * float32 at 16 columns takes R = 2 (32 accumulators, 110 registers, two
 * blocks an SM) rather than 4 (64, 142-164 registers, one block): with one
 * block of 8 warps an SM too few loads of W were in flight to keep HBM
 * busy.  FP32 and 3xTF32 16-wide products with W k-contiguous went from
 * 0.72-1.02 of cuBLAS to 0.76-1.25 (TN 16 x 4096 x 4096 0.75 -> 0.87-0.92;
 * H100, session 46, two alternating runs). */
#define DLG_NARROW_DOT_R(t, nn) \
  (((t) == DLG_NARROW_F64 && (nn) > 8) || ((t) == DLG_NARROW_F32 && (nn) == 16) || (nn) > 16 ? 2 : 4)
#define DLG_NARROW_AXPY_RT(t, nn) \
  (16 / DLG_NARROW_ES(t) < 64 / (nn) ? 16 / DLG_NARROW_ES(t) : 64 / (nn))
/* The tensor-core dot kernels (16-bit W k-contiguous, 16-byte aligned, nn
 * 5 to 16): 8 warps of 16 rows a block. */
#define DLG_NARROW_TC_ROWS 128
#define DLG_NARROW_BLOCK_ROWS(layout, t, nn) \
  (32 * ((layout) == DLG_NARROW_AXPY ? DLG_NARROW_AXPY_RT(t, nn) : DLG_NARROW_DOT_R(t, nn)))

#endif
