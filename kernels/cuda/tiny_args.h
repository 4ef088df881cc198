/*
 * tiny_args.h - the kernel parameter and shape constants of the tiny
 * kernels (tiny.cu: products whose m, n and k are all 64 or less, usually
 * many of them in a batch), shared with their launcher
 * (plugin/cuda/device/tiny.c, plain C), so the two cannot disagree.
 */
#ifndef DLG_TINY_ARGS_H
#define DLG_TINY_ARGS_H

#include "hgemm_args.h" /* DLG_HOUT_*: C's type for 16-bit inputs */

/* C = alpha * A B + beta * C for batch entries z in [0, batch), at
 *   A(i, l) = a[z * sa + i * ars + l * acs]
 *   B(l, j) = b[z * sb + l * brs + j * bcs]
 *   C(i, j) = c[z * sc + i * crs + j * ccs]
 * (element strides; a batch stride of 0 broadcasts).  Block x takes
 * entries [x * per_block, (x + 1) * per_block).  alpha == 0 arrives as
 * k == 0 (A and B not read); beta == 0 never reads C. */
typedef struct dlg_tiny_args {
  const void *a, *b;
  void *c;
  long long ars, acs, sa, brs, bcs, sb, crs, ccs, sc;
  long long batch;
  double alpha, beta; /* the float kernels round them to float */
  int m, n, k;
  int per_block; /* products a block holds: as many as 256 threads and the smem cap allow */
  int c_type;    /* DLG_HOUT_*: C's type for float16 / bfloat16 inputs */
  int vec;       /* DLG_TINY_VEC_* bits: the operands moved 16 bytes an access */
} dlg_tiny_args;

/* An operand whose contiguous dimension (stride 1) spans a whole number of
 * 16-byte runs in every product and chunk of k, whose other strides are
 * multiples of 16 bytes and whose base is 16-byte aligned. */
#define DLG_TINY_VEC_A 1
#define DLG_TINY_VEC_B 2
#define DLG_TINY_VEC_C 4

/* Input types: the kernels are dlg_tiny[4]_<f32|f64|f16|bf16|c64|c128>. */
enum { DLG_TINY_F32, DLG_TINY_F64, DLG_TINY_F16, DLG_TINY_BF16, DLG_TINY_C64, DLG_TINY_C128,
       DLG_TINY_TYPES };

/* The largest m, n and k; threads a block at most; its shared memory at
 * most (above the 48 KB default: one complex128 product of 64 x 64 takes
 * 66 KB); k is taken DLG_TINY_KC at a time. */
#define DLG_TINY_MAX 64
#define DLG_TINY_THREADS 256
#define DLG_TINY_SMEM_CAP 98304
#define DLG_TINY_KC 32

/* Each thread owns an r x r piece of one product's C, r = 2 (the
 * dlg_tiny_* kernels, products up to 32 x 32) or 4 (dlg_tiny4_*, any; the
 * launcher picks by type and size), so that a product takes ceil(m / r) *
 * ceil(n / r) threads, 256 at most. */
#define DLG_TINY_UP(x, r) (((x) + (r) - 1) / (r) * (r))
#define DLG_TINY_THREADS_PER(m, n, r) ((DLG_TINY_UP(m, r) / (r)) * (DLG_TINY_UP(n, r) / (r)))
/* One product's shared memory, in accumulator elements, for chunks of kc
 * of k: A as kc rows of m (rounded up to r), B as kc rows of n, the whole
 * rounded up to 32 and offset by the wider row, so that the products a
 * warp reads side by side start on different banks (tiny.cu says why). */
#define DLG_TINY_STRIDE(m, n, kc, r)                                               \
  (((kc) * (DLG_TINY_UP(m, r) + DLG_TINY_UP(n, r)) + 31) / 32 * 32 +              \
   (DLG_TINY_UP(m, r) > DLG_TINY_UP(n, r) ? DLG_TINY_UP(m, r) : DLG_TINY_UP(n, r)))
/* ... and what a block's products need: the operands, or C staged for its
 * stores, whichever is larger. */
#define DLG_TINY_SLOT(m, n, kc, r) \
  (DLG_TINY_STRIDE(m, n, kc, r) > (m) * (n) ? DLG_TINY_STRIDE(m, n, kc, r) : (m) * (n))

#endif
