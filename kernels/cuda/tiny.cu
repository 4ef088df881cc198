/*
 * tiny.cu - products whose m, n and k are all 64 or less, usually a large
 * batch of them (small batched kernels, 4 x 4 to 64 x 64 blocks of a
 * solver, per-element transforms): C = alpha * A B + beta * C, indexing in
 * tiny_args.h.  float32 and float64 (and their complex pairs) accumulate
 * in their own precision, float16 and bfloat16 in FP32; alpha and beta are
 * applied once at the end and C rounded once to its type.
 *
 * A tile kernel gives each product a 64 x 64 or 128 x 128 block and
 * computes mostly padding: a batch of 4^3 products ran at 0.03 of cuBLAS
 * and 16^3 at 0.1-0.4 (H100, the sweep, bench/NOTES.md).  Such a batch is
 * a stream of memory with s / 3 flops a byte (16-bit): here a block holds
 * as many whole products as its threads cover, and the work is three
 * passes through shared memory.  Why it is laid out as it is:
 *
 * - Loads: a block's products lie side by side in memory when the batch is
 *   packed, so the block reads all its A, then all its B, as one run of
 *   elements in memory order (the operand's contiguous dimension fastest),
 *   each thread one element per step: every warp reads consecutive
 *   addresses whatever the layout.  A thread issues four loads before it
 *   stores the first (one wait on memory a round, not one an element), and
 *   finds each element's place by float reciprocals, not divisions.  Each
 *   element is widened to the accumulator type once, on the way into
 *   shared memory.  k comes 32 at a time (two chunks at most), so that a
 *   64 x 64 complex128 product fits in 66 KB.
 * - Shared memory holds a product's A as k rows of m (A^T: the rows a
 *   thread needs for one step of k are adjacent) and B as k rows of n,
 *   both rounded up with zeros to the piece of C a thread owns, so that
 *   its loop has no edge test.
 * - 2 x 2 per thread (up to 32 x 32: at most 256 threads a product) or 4 x
 *   4 (any; the launcher picks, tiny.c): R^2 FMAs for R paired shared
 *   reads (8 or 16 bytes), of which threads on the same rows or columns
 *   share most (broadcasts): at 32^3 with 2 x 2 a product's 256 threads
 *   read 32 consecutive B values and 4 A values a step.  4 x 4 puts 4-7
 *   products of 24^3-32^3 in a block where 2 x 2 put one, and does 16 FMAs
 *   a step for 2 shared reads.  The 4 x 4 kernels hold 16 accumulators (64
 *   registers of a complex128's).
 * - Products under 16 x 16 share a warp: their slots are spaced so that
 *   their rows start on different banks (DLG_TINY_STRIDE: a multiple of
 *   32 plus the wider row), or four 4^3 products a warp would read the
 *   same bank four times over.
 * - Stores: C is staged in shared memory in C's memory order and leaves as
 *   one run per block, as the loads came in; beta * C is read in the same
 *   run (never when beta == 0: BLAS semantics, C may be NaN).
 * - Where an operand's rows or columns are whole 16-byte runs (the
 *   launcher's DLG_TINY_VEC_* bits), it moves 16 bytes an access
 *   (stage): the 2-byte loads of the 16-bit types left a block's few
 *   warps waiting on eight times as many accesses.
 * - alpha == 0 arrives as k == 0: A and B are not read.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "hgemm_convert.cuh"
#include "tiny_args.h"

namespace tiny {

/* An input type: its accumulator, and reading one element as one - itself,
 * except the 16-bit types, which accumulate in float. */
template <typename T> struct in {
  typedef T acc;
  static __device__ __forceinline__ T cvt(T x) { return x; }
};
template <> struct in<__half> {
  typedef float acc;
  static __device__ __forceinline__ float cvt(__half x) { return hconv::widen(x); }
};
template <> struct in<__nv_bfloat16> {
  typedef float acc;
  static __device__ __forceinline__ float cvt(__nv_bfloat16 x) { return hconv::widen(x); }
};

template <typename A> static __device__ __forceinline__ A zero() { return A(0); }
template <> __device__ __forceinline__ float2 zero<float2>() { return make_float2(0.f, 0.f); }
template <> __device__ __forceinline__ double2 zero<double2>() { return make_double2(0., 0.); }

static __device__ __forceinline__ void mad(float &c, float a, float b) { c = __fmaf_rn(a, b, c); }
static __device__ __forceinline__ void mad(double &c, double a, double b) { c = __fma_rn(a, b, c); }
static __device__ __forceinline__ void mad(float2 &c, float2 a, float2 b)
{
  c.x = __fmaf_rn(a.x, b.x, c.x), c.x = __fmaf_rn(-a.y, b.y, c.x);
  c.y = __fmaf_rn(a.x, b.y, c.y), c.y = __fmaf_rn(a.y, b.x, c.y);
}
static __device__ __forceinline__ void mad(double2 &c, double2 a, double2 b)
{
  c.x = __fma_rn(a.x, b.x, c.x), c.x = __fma_rn(-a.y, b.y, c.x);
  c.y = __fma_rn(a.x, b.y, c.y), c.y = __fma_rn(a.y, b.x, c.y);
}

/* alpha * v + beta * *p into *p, rounded once to C's type; p is read only
 * when beta != 0. */
template <typename C> static __device__ __forceinline__ void put(C *p, float v, float al, float be)
{
  *p = hconv::narrow<C>(be != 0.f ? fmaf(be, hconv::widen(*p), al * v) : al * v);
}
static __device__ __forceinline__ void put(double *p, double v, double al, double be)
{
  *p = be != 0. ? fma(be, *p, al * v) : al * v;
}
static __device__ __forceinline__ void put(float2 *p, float2 v, float al, float be)
{
  float2 r = make_float2(al * v.x, al * v.y);
  if (be != 0.f) {
    const float2 o = *p;
    r.x = fmaf(be, o.x, r.x), r.y = fmaf(be, o.y, r.y);
  }
  *p = r;
}
static __device__ __forceinline__ void put(double2 *p, double2 v, double al, double be)
{
  double2 r = make_double2(al * v.x, al * v.y);
  if (be != 0.) {
    const double2 o = *p;
    r.x = fma(be, o.x, r.x), r.y = fma(be, o.y, r.y);
  }
  *p = r;
}

/* e / d by a float reciprocal (inv = 1 / d): exact while (e / d + 1) * d
 * < 2^22, since (e + 0.5) / d is at least 0.5 / d from an integer and the
 * two roundings move it by (e / d + 1) * 2^-23 at most.  Here e < 2^19 (a
 * block's 256 products of 2048 elements at most).  An integer division is
 * some 20 instructions; this is three, once per element moved. */
static __device__ __forceinline__ int quot(int e, float inv) { return (int)(((float)e + 0.5f) * inv); }

/* Where element e of a run over products of rows x cols each, in the
 * memory order of a matrix whose row stride is rs (1: rows fastest),
 * lies: product p, row i, column j. */
struct walk {
  int rows, cols, size;
  float inv_size, inv_fast;
  bool rows_fast;
  __device__ __forceinline__ walk(int r, int c, long long rs)
      : rows(r), cols(c), size(r * c), inv_size(1.f / (float)(r * c)),
        inv_fast(1.f / (float)(rs == 1 ? r : c)), rows_fast(rs == 1)
  {
  }
  __device__ __forceinline__ void place(int e, int &p, int &i, int &j) const
  {
    const int r = e - (p = quot(e, inv_size)) * size;
    if (rows_fast) j = quot(r, inv_fast), i = r - j * rows;
    else i = quot(r, inv_fast), j = r - i * cols;
  }
};

enum { UNROLL = 4 }; /* elements a thread has in flight while moving a run */

/* What one access of stage() moves: one element (V = 1), widened on the
 * way in, or V = 16 / sizeof(T) elements adjacent along the operand's
 * contiguous dimension as one 16-byte load, stored `step` apart. */
template <typename T, int V> struct run {
  uint4 raw;
  __device__ __forceinline__ void load(const T *p) { raw = __ldg(reinterpret_cast<const uint4 *>(p)); }
  __device__ __forceinline__ void put(typename in<T>::acc *s, int step) const
  {
    const T *x = reinterpret_cast<const T *>(&raw);
#pragma unroll
    for (int r = 0; r < V; r++) s[r * step] = in<T>::cvt(x[r]);
  }
};
template <typename T> struct run<T, 1> {
  typename in<T>::acc v;
  __device__ __forceinline__ void load(const T *p) { v = in<T>::cvt(__ldg(p)); }
  __device__ __forceinline__ void put(typename in<T>::acc *s, int) const { *s = v; }
};

/* count products' rows x cols operand X(i, j) = g[(z0 + p) * bs + i * rs +
 * j * cs] into s[p * stride + off + i * si + j * sj], V elements an access
 * (run), UNROLL accesses issued before the first is stored, so that a
 * thread waits on memory once a round and not once an access.  V > 1 where
 * the launcher's DLG_TINY_VEC_* bits say the operand's rows or columns are
 * whole 16-byte runs (every other stride a multiple of them, the base
 * aligned): a block's loads are then an eighth as many for the 16-bit
 * types, and a thread's round fetches 4 V elements. */
template <typename T, int V>
static __device__ __forceinline__ void stage(typename in<T>::acc *s, const T *g, const walk &w,
                                             int count, long long rs, long long cs, long long bs,
                                             long long z0, int stride, int off, int si, int sj)
{
  const int total = count * w.size / V, nt = (int)blockDim.x, step = w.rows_fast ? si : sj;
  for (int e0 = (int)threadIdx.x; e0 < total; e0 += UNROLL * nt) {
    run<T, V> v[UNROLL];
    int at[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      const int e = e0 + u * nt;
      int p, i, j;
      at[u] = -1;
      if (e < total) {
        w.place(e * V, p, i, j);
        v[u].load(g + (z0 + p) * bs + i * rs + j * cs);
        at[u] = p * stride + off + i * si + j * sj;
      }
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
      if (at[u] >= 0) v[u].put(s + at[u], step);
  }
}

/* R adjacent accumulators (at an index that is a multiple of R: aligned
 * to R elements) in as few shared loads as the types allow: 8 or 16 bytes
 * each, 16 for R = 4 floats. */
template <int R> static __device__ __forceinline__ void row(const float *p, float (&v)[R])
{
  if constexpr (R == 4) {
    const float4 t = *reinterpret_cast<const float4 *>(p);
    v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
  } else {
#pragma unroll
    for (int r = 0; r < R; r += 2) {
      const float2 t = *reinterpret_cast<const float2 *>(p + r);
      v[r] = t.x, v[r + 1] = t.y;
    }
  }
}
template <int R> static __device__ __forceinline__ void row(const double *p, double (&v)[R])
{
#pragma unroll
  for (int r = 0; r < R; r += 2) {
    const double2 t = *reinterpret_cast<const double2 *>(p + r);
    v[r] = t.x, v[r + 1] = t.y;
  }
}
template <int R> static __device__ __forceinline__ void row(const float2 *p, float2 (&v)[R])
{
#pragma unroll
  for (int r = 0; r < R; r += 2) {
    const float4 t = *reinterpret_cast<const float4 *>(p + r);
    v[r] = make_float2(t.x, t.y), v[r + 1] = make_float2(t.z, t.w);
  }
}
template <int R> static __device__ __forceinline__ void row(const double2 *p, double2 (&v)[R])
{
#pragma unroll
  for (int r = 0; r < R; r++) v[r] = p[r];
}

/* What one access of the epilogue writes: one element of C (V = 1), or V
 * adjacent ones as one 16-byte access; C is read (first) only where beta
 * != 0. */
template <typename C, int V> struct out {
  uint4 *at, v;
  template <typename S> __device__ __forceinline__ void aim(C *p, S be)
  {
    at = reinterpret_cast<uint4 *>(p);
    if (be != S(0)) v = *at;
  }
  template <typename A, typename S> __device__ __forceinline__ void put(const A *x, S al, S be)
  {
    C *c = reinterpret_cast<C *>(&v);
#pragma unroll
    for (int r = 0; r < V; r++) tiny::put(c + r, x[r], al, be);
    *at = v;
  }
};
template <typename C> struct out<C, 1> {
  C *at;
  template <typename S> __device__ __forceinline__ void aim(C *p, S) { at = p; }
  template <typename A, typename S> __device__ __forceinline__ void put(const A *x, S al, S be)
  {
    tiny::put(at, x[0], al, be);
  }
};

/* C, staged in s in its memory order (total elements of the block's
 * products), to memory as one run, V elements an access (out), UNROLL
 * accesses aimed (and C read for beta) before the first is written: as
 * stage(), one wait on memory a round. */
template <typename C, int V, typename A, typename S>
static __device__ __forceinline__ void leave(C *gc, const A *s, const walk &wc, int total,
                                             const dlg_tiny_args &a, long long z0, S al, S be)
{
  const int nt = (int)blockDim.x;
  for (int e0 = (int)threadIdx.x; e0 < total / V; e0 += UNROLL * nt) {
    out<C, V> o[UNROLL];
    bool live[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      const int e = e0 + u * nt;
      int p, i, j;
      live[u] = e < total / V;
      if (live[u]) wc.place(e * V, p, i, j), o[u].aim(gc + (z0 + p) * a.sc + i * a.crs + j * a.ccs, be);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
      if (live[u]) o[u].put(s + (e0 + u * nt) * V, al, be);
  }
}

template <typename T, typename C, typename S, int R>
static __device__ __forceinline__ void body(const dlg_tiny_args &a)
{
  typedef typename in<T>::acc A;
  /* complex128's elements are 16 bytes already: its kernels keep the code
   * (and registers: 0.66-0.80x at 24^3-48^3 with it) they had without */
  constexpr bool VEC = sizeof(T) < 16;
  constexpr int WIDE = VEC ? 16 / (int)sizeof(T) : 1;
  extern __shared__ __align__(16) unsigned char smem[];
  A *s = reinterpret_cast<A *>(smem);
  const int m = a.m, n = a.n, k = a.k, kc = k < DLG_TINY_KC ? k : DLG_TINY_KC;
  const int mp = DLG_TINY_UP(m, R), np = DLG_TINY_UP(n, R), tn = np / R;
  const int per = DLG_TINY_THREADS_PER(m, n, R), stride = DLG_TINY_STRIDE(m, n, kc, R);
  const int nt = (int)blockDim.x, tid = (int)threadIdx.x;
  const long long z0 = (long long)blockIdx.x * a.per_block;
  const int count = (int)(a.batch - z0 < a.per_block ? a.batch - z0 : a.per_block);
  const T *ga = static_cast<const T *>(a.a), *gb = static_cast<const T *>(a.b);
  int p = tid / per;
  const int q = tid - p * per, i0 = R * (q / tn), j0 = R * (q % tn);
  A acc[R][R];
#pragma unroll
  for (int r = 0; r < R; r++)
#pragma unroll
    for (int c = 0; c < R; c++) acc[r][c] = zero<A>();

  /* the rounded widths' zero rows of A^T and B, once: the chunks never
   * write them */
  for (int e = tid; e < count * kc * (mp - m); e += nt) {
    const int pp = e / (kc * (mp - m)), r = e - pp * (kc * (mp - m));
    s[pp * stride + r / (mp - m) * mp + m + r % (mp - m)] = zero<A>();
  }
  for (int e = tid; e < count * kc * (np - n); e += nt) {
    const int pp = e / (kc * (np - n)), r = e - pp * (kc * (np - n));
    s[pp * stride + kc * mp + r / (np - n) * np + n + r % (np - n)] = zero<A>();
  }
  /* chunks of k: A(i, k0 + l) to s[p * stride + l * mp + i], B(k0 + l, j)
   * to s[p * stride + kc * mp + l * np + j] */
  for (int k0 = 0; k0 < k; k0 += kc) {
    const int len = k - k0 < kc ? k - k0 : kc;
    if (k0) __syncthreads(); /* the last chunk is read */
    if (VEC && (a.vec & DLG_TINY_VEC_A))
      stage<T, WIDE>(s, ga + k0 * a.acs, walk(m, len, a.ars), count, a.ars, a.acs, a.sa, z0,
                     stride, 0, 1, mp);
    else
      stage<T, 1>(s, ga + k0 * a.acs, walk(m, len, a.ars), count, a.ars, a.acs, a.sa, z0, stride,
                  0, 1, mp);
    if (VEC && (a.vec & DLG_TINY_VEC_B))
      stage<T, WIDE>(s, gb + k0 * a.brs, walk(len, n, a.brs), count, a.brs, a.bcs, a.sb, z0,
                     stride, kc * mp, np, 1);
    else
      stage<T, 1>(s, gb + k0 * a.brs, walk(len, n, a.brs), count, a.brs, a.bcs, a.sb, z0, stride,
                  kc * mp, np, 1);
    __syncthreads();
    if (p < count) {
      const A *as = s + p * stride + i0, *bs = s + p * stride + kc * mp + j0;
#pragma unroll 2
      for (int l = 0; l < len; l++) {
        A av[R], bv[R];
        row<R>(as + l * mp, av), row<R>(bs + l * np, bv);
#pragma unroll
        for (int r = 0; r < R; r++)
#pragma unroll
          for (int c = 0; c < R; c++) mad(acc[r][c], av[r], bv[c]);
      }
    }
  }
  __syncthreads(); /* the operands are read: their space holds C, in C's memory order */
  if (p < count) {
    A *cs = s + p * m * n;
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
      for (int c = 0; c < R; c++) {
        const int ii = i0 + r, jj = j0 + c;
        if (ii < m && jj < n) cs[a.crs == 1 ? ii + jj * m : ii * n + jj] = acc[r][c];
      }
  }
  __syncthreads();
  C *gc = static_cast<C *>(a.c);
  const S al = (S)a.alpha, be = (S)a.beta;
  const walk wc(m, n, a.crs);
  const int total = count * m * n;
  if (VEC && (a.vec & DLG_TINY_VEC_C)) /* 16 bytes a store, as stage<T, WIDE> loads */
    leave<C, 16 / (int)sizeof(C)>(gc, s, wc, total, a, z0, al, be);
  else
    leave<C, 1>(gc, s, wc, total, a, z0, al, be);
}

} // namespace tiny

/* Blocks an SM at least (B), so that the compiler keeps each kernel within
 * 65536 / (256 B) registers: a block's work is two waits on memory and a
 * short loop, so blocks side by side are what hides the waits (the 16-byte
 * accesses' registers took 2 x 2 bfloat16 from 48 to 72, three blocks an
 * SM where 48 fit five).  complex128's 4 x 4 needs its 154-170. */
#define DLG_TINY_KERNEL(name, R, B, T, C, S)                                               \
  extern "C" __global__ void __launch_bounds__(DLG_TINY_THREADS, B) name(dlg_tiny_args a) \
  {                                                                                        \
    tiny::body<T, C, S, R>(a);                                                             \
  }

/* 16-bit inputs: C's type a kernel argument, as the other kernels take it */
#define DLG_TINY_HALF(name, R, B, T)                                                       \
  extern "C" __global__ void __launch_bounds__(DLG_TINY_THREADS, B) name(dlg_tiny_args a) \
  {                                                                                        \
    if (a.c_type == DLG_HOUT_F16) tiny::body<T, __half, float, R>(a);                    \
    else if (a.c_type == DLG_HOUT_BF16) tiny::body<T, __nv_bfloat16, float, R>(a);       \
    else tiny::body<T, float, float, R>(a);                                                \
  }

/* B for float32, float64, complex64, complex128 and the 16-bit types: the
 * most that compile without spills (f32 2 x 2: 48 registers, five blocks;
 * the 16-bit ones spill there, so four), but complex128's one, as before
 * the 16-byte paths (which it does without) */
#define DLG_TINY_FAMILY(suffix, R, BF, BD, BC, BZ, BH)                             \
  DLG_TINY_KERNEL(dlg_tiny##suffix##_f32, R, BF, float, float, float)           \
  DLG_TINY_KERNEL(dlg_tiny##suffix##_f64, R, BD, double, double, double)        \
  DLG_TINY_KERNEL(dlg_tiny##suffix##_c64, R, BC, float2, float2, float)         \
  DLG_TINY_KERNEL(dlg_tiny##suffix##_c128, R, BZ, double2, double2, double)     \
  DLG_TINY_HALF(dlg_tiny##suffix##_f16, R, BH, __half)                          \
  DLG_TINY_HALF(dlg_tiny##suffix##_bf16, R, BH, __nv_bfloat16)

DLG_TINY_FAMILY(, 2, 5, 4, 4, 1, 4)
DLG_TINY_FAMILY(4, 4, 3, 2, 2, 1, 3)
