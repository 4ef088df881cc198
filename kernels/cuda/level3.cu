/*
 * level3.cu - the small kernels of the level-3 routines on the GPU
 * (plugin/cuda/level3/blas3.c), in the four types s, d, c, z: what is left
 * once every product has gone to the GEMM kernels.
 *
 *   scale       C = alpha C over a rectangle (alpha 0: zeros, C not read)
 *   tri_scale   the same over a lower triangle, diagonal made real for the
 *               Hermitian routines (rank-k updates with alpha 0 or k 0)
 *   tri_merge   C = beta C + W over the lower triangle of a diagonal block
 *               (beta 0: C not read), W the square the GEMM computed whole
 *   symmetrize  the strict upper triangle from the lower one (conjugated
 *               for HEMM, the diagonal made real): SYMM's A made a matrix
 *   tri_fill    the strict upper triangle zeroed, the diagonal ones where
 *               the diagonal is unit: TRMM's A made a matrix
 *   trsm_leaf   forward substitution with a lower triangle of order <= 32
 *               (conjugated or not), one vector per thread
 *   cpack       alpha op(A) of a complex product as the real 2m x 2k matrix
 *               of 2 x 2 blocks [re -im; im re] (blas3.c's complex GEMM)
 *   cplain      a complex view copied to a plain column-major matrix,
 *               conjugated or not
 *   csplit      a complex k x n view as the real k x 2n [re | im] (the
 *               other embedding: A read in place)
 *   ccombine    C = alpha P + beta C from a real product's terms
 *               (all four over a batch, blockIdx.z: entry z read sa elements
 *               on from the last, written right after it)
 *   csmallk     C = alpha op(A) op(B) + beta C for k <= DLG_L3_SMALL_K,
 *               in place, no real product (a batch as the four above)
 *
 * Matrices are views (rs, cs element strides, either may be negative), so
 * an upper triangle is the lower one of the transposed view, or of the view
 * read backwards.  Triangles here are "lower" in the view given.
 */
#include <stdint.h>
#include "level3_args.h"

template <typename T> struct cx {
  T re, im;
};

/* Real and complex arithmetic under one name. */
__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
template <typename T> __device__ __forceinline__ cx<T> mul(cx<T> a, cx<T> b)
{
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
template <typename T> __device__ __forceinline__ cx<T> add(cx<T> a, cx<T> b)
{
  return {a.re + b.re, a.im + b.im};
}
__device__ __forceinline__ float sub(float a, float b) { return a - b; }
__device__ __forceinline__ double sub(double a, double b) { return a - b; }
template <typename T> __device__ __forceinline__ cx<T> sub(cx<T> a, cx<T> b)
{
  return {a.re - b.re, a.im - b.im};
}
/* a / b, as the reference computes B(k,j)/A(k,k): the real quotient, and
 * the complex one scaled by the larger part of b (Smith's), so that it
 * neither overflows nor underflows where the true quotient does not. */
__device__ __forceinline__ float quo(float a, float b) { return a / b; }
__device__ __forceinline__ double quo(double a, double b) { return a / b; }
template <typename T> __device__ __forceinline__ cx<T> quo(cx<T> a, cx<T> b)
{
  if (fabs(b.re) >= fabs(b.im)) {
    const T r = b.im / b.re, d = b.re + b.im * r;
    return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
  }
  const T r = b.re / b.im, d = b.im + b.re * r;
  return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
}
__device__ __forceinline__ float conj_if(float a, int) { return a; }
__device__ __forceinline__ double conj_if(double a, int) { return a; }
template <typename T> __device__ __forceinline__ cx<T> conj_if(cx<T> a, int c)
{
  return {a.re, c ? -a.im : a.im};
}
__device__ __forceinline__ float real_only(float a) { return a; }
__device__ __forceinline__ double real_only(double a) { return a; }
template <typename T> __device__ __forceinline__ cx<T> real_only(cx<T> a) { return {a.re, T(0)}; }
__device__ __forceinline__ bool is_zero(float a) { return a == 0.0f; }
__device__ __forceinline__ bool is_zero(double a) { return a == 0.0; }
template <typename T> __device__ __forceinline__ bool is_zero(cx<T> a)
{
  return a.re == T(0) && a.im == T(0);
}
template <typename E> __device__ __forceinline__ E zero() { return E(); }
template <typename E> __device__ __forceinline__ E one();
template <> __device__ __forceinline__ float one<float>() { return 1.0f; }
template <> __device__ __forceinline__ double one<double>() { return 1.0; }
template <> __device__ __forceinline__ cx<float> one<cx<float>>() { return {1.0f, 0.0f}; }
template <> __device__ __forceinline__ cx<double> one<cx<double>>() { return {1.0, 0.0}; }

/* Threads: x over rows; blocks of y over columns, stepping by the grid's
 * height (at most 65535) for matrices with more columns than that. */
__device__ __forceinline__ long long row_index()
{
  return blockIdx.x * (long long)blockDim.x + threadIdx.x;
}
#define FOR_COLUMNS(j, n) for (long long j = blockIdx.y; j < (n); j += gridDim.y)

template <typename E>
__device__ void scale(E *c, long long rs, long long cs, long long m, long long n, E alpha)
{
  const long long i = row_index();
  if (i >= m) return;
  FOR_COLUMNS(j, n)
  {
    E *p = c + i * rs + j * cs;
    *p = is_zero(alpha) ? zero<E>() : mul(alpha, *p);
  }
}

template <typename E>
__device__ void tri_scale(E *c, long long rs, long long cs, long long n, E beta, int herm)
{
  const long long i = row_index();
  if (i >= n) return;
  FOR_COLUMNS(j, i + 1)
  {
    E *p = c + i * rs + j * cs;
    const E v = herm && i == j ? real_only(*p) : *p;
    *p = is_zero(beta) ? zero<E>() : mul(beta, v);
  }
}

template <typename E>
__device__ void tri_merge(E *c, long long rs, long long cs, const E *w, int n, E beta, int herm)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (i >= n || i < j) return;
  E *p = c + i * rs + j * cs;
  E v = w[i + (long long)j * n];
  if (!is_zero(beta)) v = add(mul(beta, herm && i == j ? real_only(*p) : *p), v);
  *p = herm && i == j ? real_only(v) : v;
}

template <typename E>
__device__ void symmetrize(E *a, long long rs, long long cs, long long n, int herm)
{
  const long long i = row_index();
  if (i >= n) return;
  FOR_COLUMNS(j, n)
  {
    if (i < j)
      a[i * rs + j * cs] = conj_if(a[j * rs + i * cs], herm);
    else if (i == j && herm)
      a[i * rs + j * cs] = real_only(a[i * rs + j * cs]);
  }
}

template <typename E>
__device__ void tri_fill(E *a, long long rs, long long cs, long long n, int unit)
{
  const long long i = row_index();
  if (i >= n) return;
  FOR_COLUMNS(j, n)
  {
    if (i < j)
      a[i * rs + j * cs] = zero<E>();
    else if (i == j && unit)
      a[i * rs + j * cs] = one<E>();
  }
}

/* x := op(L)^-1 x for nvec vectors (element e of vector v at x[v*vs + e*xs]),
 * L lower of order n <= DLG_L3_LEAF (element (i,k) at l[i*lrs + k*lcs]),
 * conjugated where conj, its diagonal ones where unit. */
template <typename E>
__device__ void trsm_leaf(const E *l, long long lrs, long long lcs, int n, int unit, int conj, E *x,
                          long long xs, long long vs, long long nvec)
{
  __shared__ E s[DLG_L3_LEAF][DLG_L3_LEAF + 1];
  for (int t = threadIdx.x; t < DLG_L3_LEAF * DLG_L3_LEAF; t += blockDim.x) {
    const int i = t % DLG_L3_LEAF, k = t / DLG_L3_LEAF;
    s[i][k] = (i < n && k <= i) ? conj_if(l[i * lrs + k * lcs], conj) : zero<E>();
  }
  __syncthreads();
  const long long v = row_index();
  if (v >= nvec) return;
  E *p = x + v * vs;
  E r[DLG_L3_LEAF];
#pragma unroll
  for (int i = 0; i < DLG_L3_LEAF; i++) {
    if (i < n) {
      E acc = p[i * xs];
#pragma unroll
      for (int k = 0; k < i; k++) acc = sub(acc, mul(s[i][k], r[k]));
      r[i] = unit ? acc : quo(acc, s[i][i]);
      p[i * xs] = r[i];
    }
  }
}

/* w (2m x 2k, column-major, ld 2m) from a (m x k view): each element
 * alpha conj?(a) = (re, im) becomes [re -im; im re], so that w times the
 * interleaved storage of a complex k x n matrix (a real 2k x n one) is the
 * interleaved storage of the complex product. */
template <typename T>
__device__ void cpack(const cx<T> *a, long long rs, long long cs, long long m, long long k,
                      int conj, cx<T> alpha, T *w)
{
  const long long i = row_index(), ld = 2 * m;
  if (i >= m) return;
  FOR_COLUMNS(l, k)
  {
    const cx<T> v = mul(alpha, conj_if(a[i * rs + l * cs], conj));
    T *col = w + 2 * l * ld + 2 * i;
    col[0] = v.re, col[1] = v.im;        /* column 2l:     [re; im] */
    col[ld] = -v.im, col[ld + 1] = v.re; /* column 2l + 1: [-im; re] */
  }
}

template <typename T>
__device__ void cplain(const cx<T> *a, long long rs, long long cs, long long m, long long k,
                       int conj, cx<T> *w)
{
  const long long i = row_index();
  if (i >= m) return;
  FOR_COLUMNS(l, k) w[i + l * m] = conj_if(a[i * rs + l * cs], conj);
}

/* w (k x 2n, column-major, ld k) from b (k x n view): conj?(b)'s real
 * parts, then its imaginary ones, so that a complex m x k matrix read as
 * its interleaved real 2m x k storage, times w, gives the four real
 * products of the complex one (ccombine adds them up). */
template <typename T>
__device__ void csplit(const cx<T> *b, long long rs, long long cs, long long k, long long n,
                       int conj, T *w)
{
  const long long p = row_index();
  if (p >= k) return;
  FOR_COLUMNS(j, n)
  {
    const cx<T> v = conj_if(b[p * rs + j * cs], conj);
    w[p + j * k] = v.re;
    w[p + (n + j) * k] = v.im;
  }
}

/* c = alpha P + beta c (beta 0: c not read) over an m x n view, P a complex
 * product held in real x (leading dimension ldx) as its terms: for (i, j)
 * from x[2i + j ldx] = e, P = (e + s1 e[oa + ob]) + i (e[ob] + s2 e[oa]).
 * csplit's products: oa 1 (A's imaginary row), ob n ldx (B's imaginary
 * columns), s1 -1 and s2 1 (+1 and -1 with A conjugated); a product already
 * interleaved: ob 1, s1 = s2 = 0. */
template <typename T>
__device__ void ccombine(const T *x, long long ldx, long long oa, long long ob, int s1, int s2,
                         long long m, long long n, cx<T> alpha, T beta, cx<T> *c, long long rs,
                         long long cs)
{
  const long long i = row_index();
  if (i >= m) return;
  FOR_COLUMNS(j, n)
  {
    const T *e = x + 2 * i + j * ldx;
    cx<T> v = mul(alpha, cx<T>{e[0] + (s1 ? s1 * e[oa + ob] : T(0)),
                               e[ob] + (s2 ? s2 * e[oa] : T(0))});
    cx<T> *out = c + i * rs + j * cs;
    if (beta != T(0)) v.re += beta * out->re, v.im += beta * out->im;
    *out = v;
  }
}

/* c = alpha conj?(a) conj?(b) + beta c (beta 0: c not read) over an m x n
 * view, a m x k and b k x n views, k <= DLG_L3_SMALL_K.  A product this
 * short is C's stream: the embedding wrote C through a real GEMM whose
 * tile's epilogue ran at 2.2 TB/s (complex64 4096 x 4096 x 1: 60.8 us
 * behind 11 us of packing passes, against cuBLAS's 33.9; H200, session
 * 36).  Here a thread holds its row of alpha op(A) in registers and takes
 * the block's columns DLG_L3_SMALL_K_COLS at a time: their values of B
 * (one load every lane of the warp shares) and, with beta, of C are all
 * loaded before any is used, so that a warp waits one latency a group of
 * columns, not one a column (one at a time, C went at 1.2 TB/s).  The
 * lanes of a warp are 32 consecutive rows: where C is column-major each
 * column's reads and writes are whole lines.  Each element's sum is over
 * l in order, each term rounded as a complex multiply-add. */
template <typename T>
__device__ void csmallk(const cx<T> *a, long long ars, long long acs, int ca, const cx<T> *b,
                        long long brs, long long bcs, int cb, long long m, long long n, int k,
                        cx<T> alpha, T beta, cx<T> *c, long long rs, long long cs)
{
  enum { K = DLG_L3_SMALL_K, J = DLG_L3_SMALL_K_COLS };
  const long long i = row_index();
  cx<T> ar[K];
  if (i >= m) return;
#pragma unroll
  for (int l = 0; l < K; l++)
    ar[l] = l < k ? mul(alpha, conj_if(a[i * ars + l * acs], ca)) : cx<T>{T(0), T(0)};
  for (long long j0 = blockIdx.y * (long long)J; j0 < n; j0 += (long long)gridDim.y * J) {
    cx<T> v[J];
    cx<T> *out = c + i * rs + j0 * cs;
#pragma unroll
    for (int q = 0; q < J; q++) v[q] = cx<T>{T(0), T(0)};
#pragma unroll
    for (int l = 0; l < K; l++)
      if (l < k)
#pragma unroll
        for (int q = 0; q < J; q++)
          if (j0 + q < n) v[q] = add(v[q], mul(ar[l], conj_if(b[l * brs + (j0 + q) * bcs], cb)));
    if (beta != T(0)) {
      cx<T> old[J];
#pragma unroll
      for (int q = 0; q < J; q++) old[q] = j0 + q < n ? out[q * cs] : cx<T>{T(0), T(0)};
#pragma unroll
      for (int q = 0; q < J; q++) v[q].re += beta * old[q].re, v[q].im += beta * old[q].im;
    }
#pragma unroll
    for (int q = 0; q < J; q++)
      if (j0 + q < n) out[q * cs] = v[q];
  }
}

#define DLG_LEVEL3_KERNELS(E, x)                                                                   \
  extern "C" __global__ void dlg_l3_scale_##x(E *c, long long rs, long long cs, long long m,       \
                                              long long n, E alpha)                              \
  {                                                                                              \
    scale<E>(c, rs, cs, m, n, alpha);                                                            \
  }                                                                                              \
  extern "C" __global__ void dlg_l3_tri_scale_##x(E *c, long long rs, long long cs, long long n,  \
                                                  E beta, int herm)                              \
  {                                                                                              \
    tri_scale<E>(c, rs, cs, n, beta, herm);                                                      \
  }                                                                                              \
  extern "C" __global__ void dlg_l3_tri_merge_##x(E *c, long long rs, long long cs, const E *w,   \
                                                  int n, E beta, int herm)                       \
  {                                                                                              \
    tri_merge<E>(c, rs, cs, w, n, beta, herm);                                                   \
  }                                                                                              \
  extern "C" __global__ void dlg_l3_symmetrize_##x(E *a, long long rs, long long cs, long long n, \
                                                   int herm)                                     \
  {                                                                                              \
    symmetrize<E>(a, rs, cs, n, herm);                                                           \
  }                                                                                              \
  extern "C" __global__ void dlg_l3_tri_fill_##x(E *a, long long rs, long long cs, long long n,   \
                                                 int unit)                                       \
  {                                                                                              \
    tri_fill<E>(a, rs, cs, n, unit);                                                             \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(DLG_L3_THREADS)                                   \
      dlg_l3_trsm_leaf_##x(const E *l, long long lrs, long long lcs, int n, int unit, int conj,  \
                           E *xv, long long xs, long long vs, long long nvec)                    \
  {                                                                                              \
    trsm_leaf<E>(l, lrs, lcs, n, unit, conj, xv, xs, vs, nvec);                                  \
  }

DLG_LEVEL3_KERNELS(float, s)
DLG_LEVEL3_KERNELS(double, d)
DLG_LEVEL3_KERNELS(cx<float>, c)
DLG_LEVEL3_KERNELS(cx<double>, z)

#define DLG_COMPLEX_KERNELS(T, x)                                                                  \
  extern "C" __global__ void dlg_l3_cpack_##x(const cx<T> *a, long long rs, long long cs,         \
                                              long long m, long long k, int conj, cx<T> alpha,   \
                                              T *w, long long sa)                                \
  {                                                                                              \
    cpack<T>(a + blockIdx.z * sa, rs, cs, m, k, conj, alpha, w + blockIdx.z * 4 * m * k);        \
  }                                                                                              \
  extern "C" __global__ void dlg_l3_cplain_##x(const cx<T> *a, long long rs, long long cs,        \
                                               long long m, long long k, int conj, cx<T> *w,     \
                                               long long sa)                                     \
  {                                                                                              \
    cplain<T>(a + blockIdx.z * sa, rs, cs, m, k, conj, w + blockIdx.z * m * k);                  \
  }                                                                                              \
  extern "C" __global__ void dlg_l3_csplit_##x(const cx<T> *b, long long rs, long long cs,        \
                                               long long k, long long n, int conj, T *w,         \
                                               long long sb)                                     \
  {                                                                                              \
    csplit<T>(b + blockIdx.z * sb, rs, cs, k, n, conj, w + blockIdx.z * 2 * k * n);              \
  }                                                                                              \
  extern "C" __global__ void dlg_l3_ccombine_##x(const T *p, long long ldp, long long oa,         \
                                                 long long ob, int s1, int s2, long long m,      \
                                                 long long n, cx<T> alpha, T beta, cx<T> *out,   \
                                                 long long rs, long long cs, long long sp,       \
                                                 long long so)                                   \
  {                                                                                              \
    ccombine<T>(p + blockIdx.z * sp, ldp, oa, ob, s1, s2, m, n, alpha, beta,                     \
                out + blockIdx.z * so, rs, cs);                                                  \
  }                                                                                              \
  extern "C" __global__ void dlg_l3_csmallk_##x(                                                 \
      const cx<T> *a, long long ars, long long acs, int ca, long long sa, const cx<T> *b,         \
      long long brs, long long bcs, int cb, long long sb, long long m, long long n, int k,        \
      cx<T> alpha, T beta, cx<T> *c, long long rs, long long cs, long long sc)                   \
  {                                                                                              \
    csmallk<T>(a + blockIdx.z * sa, ars, acs, ca, b + blockIdx.z * sb, brs, bcs, cb, m, n, k,    \
               alpha, beta, c + blockIdx.z * sc, rs, cs);                                        \
  }

DLG_COMPLEX_KERNELS(float, c)
DLG_COMPLEX_KERNELS(double, z)
