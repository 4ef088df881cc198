/*
 * narrow.cu - products whose C is at most 16 wide on one side (GEMV,
 * decode): C = alpha * W X + beta * C with W the wide operand (rows x k),
 * X k x nn, nn <= 16 (narrow_args.h has the indexing).  float32 and float64
 * inputs accumulate in their own precision, float16 and bfloat16 in FP32;
 * alpha and beta are applied once at the end and C rounded once to its type.
 *
 * Such a product is a stream of W with a few FMAs per element: the big-tile
 * kernels leave most of their tile idle and read W at a fraction of the
 * bandwidth.  Here every block streams its rows of W once, at 16 bytes a
 * lane, and X comes from shared memory.  Why it is laid out as it is:
 *
 * - Two kernels by W's layout.  W k-contiguous ("dot", e.g. decode's TN):
 *   a group of 8 lanes reads 128 bytes of a row per load (a whole L2 line)
 *   and owns R rows (DLG_NARROW_DOT_R: 4, or 2 where 64 accumulators
 *   would leave one block an SM); 4 groups a warp, 8 warps
 *   a block, all walking the block's k range, so each row's nn sums are
 *   split over 8 lanes and added by 3 shuffles at the end.  W
 *   rows-contiguous ("axpy", GEMV's N): a lane owns RT consecutive rows
 *   (16 bytes; 8 for 16-bit types with nn > 8, to hold 64 accumulators)
 *   and one warp covers 32 * RT rows, 512 contiguous bytes per column of k;
 *   the block's 8 warps share those rows and split its k range 4 or 8
 *   columns at a time, their sums added through shared memory in a fixed
 *   tree.  (8 warps on the same rows rather than on 8 times as many: with
 *   4096 rows the second choice would leave 4 blocks for 132 SMs.)
 * - X (the k x nn operand) is staged in shared memory as accumulators, k
 *   by chunks of at most 32 KB, read from global along its contiguous
 *   dimension whichever that is.  dot stores it [j][l] (rows padded by 16
 *   bytes): the 8 lanes of a group read 8 consecutive 16-byte pieces, no
 *   conflict, each value reused for the R rows.  axpy stores it [l][j]:
 *   every lane of a warp reads the same row, a broadcast.  (Staging a
 *   k-contiguous X then puts a warp's 32 stores on NN / 32 of the banks;
 *   rows padded to NN + 4 spread them over 8, and measured slower: float32
 *   4096 x 16 x 4096 NN 1.06-1.15 of cuBLAS against 1.20-1.26, 24 and 32
 *   columns 0.42-0.55 against 0.55-0.59, H200, session 34: the smaller
 *   chunks of k the padding leaves cost more than the conflicts.)  The shared reads
 *   per FMA are what bounds R from below: at 1/R of a 4-byte read per FMA
 *   a bfloat16 decode needs about 110 FMAs and 110 bytes of shared reads
 *   per SM cycle to keep up with HBM at nn = 16; R = 4 keeps both under
 *   the SM's 128.
 * - nn is rounded up to a bucket (1, 2, 4, 8, 16), each its own kernel, so
 *   the accumulators are registers (R * bucket of them, at most 64);
 *   the staged X is zero past nn and those columns are computed and never
 *   stored.
 * - Loads in flight: HBM's rate times its latency is about 20 KB per SM.
 *   dot loads the next step of W (R x 16 bytes a lane) while the current
 *   one is multiplied; axpy issues 16 registers' worth of columns (4 or 8)
 *   before using the first.  The launch bounds give 128 registers (2 blocks
 *   of 8 warps an SM, 32 KB in flight or more), or 255 where the
 *   accumulators alone take 64 (at 128 those spilled): one block, whose
 *   dot loop still holds two steps.
 * - The sums leave through shared memory (rows x nn of the block) and one
 *   loop of stores, consecutive threads on consecutive rows: one inlined
 *   copy of the epilogue (alpha, beta, C's type or the workspace) instead
 *   of one per accumulator, which cost registers and spilled.
 * - W goes through 16-byte loads when the host says they are aligned
 *   (`vec`); otherwise element by element, the same run per lane (the
 *   loads that follow the first hit L1).  The last partial step of k, and
 *   the lanes of axpy's last rows, load element by element with a guard,
 *   zero past the edge.  Rows past the end of W read the last row and are
 *   not stored.
 * - Too few rows for the SMs (4096 rows are 32 blocks of 128) are made up
 *   by splitting k across blocks (blockIdx.y): each split writes its
 *   unscaled sums to a workspace and counts itself in; the last of a block
 *   of rows to arrive adds them in split order (deterministic) and applies
 *   alpha, beta and C's type.  Split boundaries are multiples of
 *   DLG_NARROW_KALIGN (both kernels' steps).
 * - beta == 0 never reads C; alpha == 0 arrives as k == 0 (W and X not read).
 * - Complex (the _c64 / _c128 kernels): the real kernel of twice the
 *   columns on W's interleaved storage, so the main loops are the real
 *   ones and there is no packing pass (cgemm.c's embedding had one or two
 *   around the same stream).  Only the staging of X and the stores know:
 *   dot multiplies W's row (wr, wi, ...) by X staged as (xr, -xi), (xi,
 *   xr) row pairs, whose columns come out as C's re and im; axpy
 *   multiplies W's row pairs (wr; wi) by X's (xr, xi) columns and adds the
 *   four real products of each complex element in the store (stage says
 *   which is which).
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "hgemm_convert.cuh"
#include "narrow_args.h"

namespace narrow {

enum { THREADS = DLG_NARROW_THREADS, WARPS = THREADS / 32, SMEM = 32768, KC_MAX = 4096 };

/* An input type: its accumulator, its index, element e of a run of it held
 * in 32-bit words (at), storing one into zeroed words (put), widening. */
template <typename T> struct in;
template <> struct in<float> {
  typedef float acc;
  static constexpr int ID = DLG_NARROW_F32;
  static __device__ __forceinline__ float at(const unsigned *u, int e) { return __uint_as_float(u[e]); }
  static __device__ __forceinline__ void put(unsigned *u, int e, const float *p)
  {
    u[e] = __float_as_uint(*p);
  }
  static __device__ __forceinline__ float widen(float x) { return x; }
};
template <> struct in<double> {
  typedef double acc;
  static constexpr int ID = DLG_NARROW_F64;
  static __device__ __forceinline__ double at(const unsigned *u, int e)
  {
    return __hiloint2double((int)u[2 * e + 1], (int)u[2 * e]);
  }
  static __device__ __forceinline__ void put(unsigned *u, int e, const double *p)
  {
    const unsigned long long b = (unsigned long long)__double_as_longlong(*p);
    u[2 * e] = (unsigned)b, u[2 * e + 1] = (unsigned)(b >> 32);
  }
  static __device__ __forceinline__ double widen(double x) { return x; }
};
template <> struct in<__half> {
  typedef float acc;
  static constexpr int ID = DLG_NARROW_F16;
  static __device__ __forceinline__ float at(const unsigned *u, int e)
  {
    return __half2float(__ushort_as_half((unsigned short)(u[e >> 1] >> (e & 1) * 16)));
  }
  static __device__ __forceinline__ void put(unsigned *u, int e, const __half *p)
  {
    u[e >> 1] |= (unsigned)__half_as_ushort(*p) << (e & 1) * 16;
  }
  static __device__ __forceinline__ float widen(__half x) { return __half2float(x); }
};
template <> struct in<__nv_bfloat16> {
  typedef float acc;
  static constexpr int ID = DLG_NARROW_BF16;
  /* a bfloat16 is the top half of its float: no conversion instruction */
  static __device__ __forceinline__ float at(const unsigned *u, int e)
  {
    return __uint_as_float(e & 1 ? u[e >> 1] & 0xffff0000u : u[e >> 1] << 16);
  }
  static __device__ __forceinline__ void put(unsigned *u, int e, const __nv_bfloat16 *p)
  {
    u[e >> 1] |= (unsigned)__bfloat16_as_ushort(*p) << (e & 1) * 16;
  }
  static __device__ __forceinline__ float widen(__nv_bfloat16 x) { return __bfloat162float(x); }
};

static __device__ __forceinline__ float mad(float a, float b, float c) { return __fmaf_rn(a, b, c); }
static __device__ __forceinline__ double mad(double a, double b, double c) { return __fma_rn(a, b, c); }

/* 16 bytes of staged X: 4 floats or 2 doubles. */
static __device__ __forceinline__ void lds16(float (&v)[4], const float *p)
{
  const float4 t = *reinterpret_cast<const float4 *>(p);
  v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
}
static __device__ __forceinline__ void lds16(double (&v)[2], const double *p)
{
  const double2 t = *reinterpret_cast<const double2 *>(p);
  v[0] = t.x, v[1] = t.y;
}

/* N elements of T at p (16 or 8 bytes, aligned) into u in one load. */
template <typename T, int N>
static __device__ __forceinline__ void load_vec(unsigned *u, const T *p)
{
  if constexpr (N * sizeof(T) == 16) {
    const uint4 v = __ldg(reinterpret_cast<const uint4 *>(p));
    u[0] = v.x, u[1] = v.y, u[2] = v.z, u[3] = v.w;
  } else {
    const uint2 v = __ldg(reinterpret_cast<const uint2 *>(p));
    u[0] = v.x, u[1] = v.y;
  }
}

/* The same element by element, those from `valid` on zero (not read). */
template <typename T, int N>
static __device__ __forceinline__ void load_elems(unsigned *u, const T *p, int valid)
{
#pragma unroll
  for (int i = 0; i < N * (int)sizeof(T) / 4; i++) u[i] = 0;
#pragma unroll
  for (int e = 0; e < N; e++)
    if (e < valid) in<T>::put(u, e, p + e);
}

/* Where the sums go: CX_REAL C itself; the complex kernels' real product
 * on the interleaved storage (narrow_args.h), whose columns are C's re, im
 * (CX_COLS: the dot kernels) or whose row pairs are (CX_ROWS: axpy). */
enum { CX_REAL, CX_COLS, CX_ROWS };

/* X(l, j) for l in [c0, c0 + len), j < nn, into s[(l - c0) * sl + j * sj],
 * zero for columns nn to NN and for l - c0 in [len, fill): partial steps
 * and unused columns then multiply by zero.  Read along X's contiguous
 * dimension, so that the loads coalesce.  Complex (CX): the real X the
 * kernel multiplies by, from complex X(l, j) = xr + i xi (l, j counting
 * complex elements): for CX_COLS, W's rows interleaved (wr, wi, ...) times
 * rows 2l, 2l + 1 of columns 2j, 2j + 1 = (xr, -xi), (xi, xr) are C's re
 * and im, so c0, len and fill count reals of k; for CX_ROWS, W's row pair
 * (wr, wi) times columns 2j, 2j + 1 = xr, xi are the four real products
 * that put_block adds up. */
template <typename T, int NN, int CX = CX_REAL>
static __device__ __forceinline__ void stage(typename in<T>::acc *s, const T *x,
                                             const dlg_narrow_args &a, int c0, int len, int fill,
                                             int sl, int sj)
{
  typedef typename in<T>::acc A;
  if constexpr (CX != CX_REAL) {
    enum { KR = CX == CX_COLS ? 2 : 1, NC = NN / 2 }; /* reals of staged k a complex k */
    const int l0 = c0 / KR, cl = len / KR, cf = fill / KR, nc = a.nn / 2;
    const bool kfast = a.xks == 2; /* complex X k-contiguous */
    for (int e = (int)threadIdx.x; e < cf * NC; e += THREADS) {
      const int l = kfast ? e % cf : e / NC, j = kfast ? e / cf : e % NC;
      A xr = A(0), xi = A(0);
      if (l < cl && j < nc) {
        const T *p = x + (long long)(l0 + l) * a.xks + (long long)j * a.xjs;
        xr = p[0], xi = p[1];
      }
      A *d = s + KR * l * sl + 2 * j * sj;
      d[0] = xr, d[sj] = xi;
      if constexpr (CX == CX_COLS) d[sl] = -xi, d[sl + sj] = xr;
    }
    return;
  }
  if (a.xks == 1) {
#pragma unroll 1
    for (int j = 0; j < NN; j++)
      for (int l = (int)threadIdx.x; l < fill; l += THREADS)
        s[l * sl + j * sj] = l < len && j < a.nn ? A(in<T>::widen(x[c0 + l + j * a.xjs])) : A(0);
  } else {
    for (int e = (int)threadIdx.x; e < fill * NN; e += THREADS) {
      const int j = e % NN, l = e / NN;
      s[l * sl + j * sj] =
          l < len && j < a.nn ? A(in<T>::widen(x[(long long)(c0 + l) * a.xks + j * a.xjs])) : A(0);
    }
  }
}

/* C(i, j) of batch entry z = alpha * v + beta * C, rounded once to C's type. */
template <typename C>
static __device__ __forceinline__ void store(void *c, long long e, float r, float beta)
{
  C *p = static_cast<C *>(c) + e;
  *p = hconv::narrow<C>(beta != 0.f ? fmaf(beta, hconv::widen(*p), r) : r);
}
/* The same at element e of C's buffer. */
static __device__ __forceinline__ void store_at(const dlg_narrow_args &a, long long e, float v)
{
  const float r = (float)a.alpha * v, beta = (float)a.beta;
  if (a.c_type == DLG_HOUT_F16) store<__half>(a.c, e, r, beta);
  else if (a.c_type == DLG_HOUT_BF16) store<__nv_bfloat16>(a.c, e, r, beta);
  else store<float>(a.c, e, r, beta);
}
static __device__ __forceinline__ void store_at(const dlg_narrow_args &a, long long e, double v)
{
  double *p = static_cast<double *>(a.c) + e;
  const double r = a.alpha * v;
  *p = a.beta != 0.0 ? __fma_rn(a.beta, *p, r) : r;
}
template <typename A>
static __device__ __forceinline__ void store_c(const dlg_narrow_args &a, long long z, int i, int j,
                                               A v)
{
  store_at(a, z * a.sc + i * a.crs + j * a.ccs, v);
}

/* Real sum (i, j) of the product, val(i, j), to C: itself (CX_REAL), C's
 * part j % 2 of complex column j / 2 (CX_COLS); CX_ROWS, at i and j both
 * even, adds the four sums of rows i, i + 1 and columns j, j + 1 into
 * complex C(i / 2, j / 2). */
template <int CX, typename A, typename F>
static __device__ __forceinline__ void store_out(const dlg_narrow_args &a, long long z, int i, int j,
                                                 F val)
{
  if constexpr (CX == CX_REAL) {
    store_c(a, z, i, j, (A)val(i, j));
  } else if constexpr (CX == CX_COLS) {
    store_at(a, z * a.sc + i * a.crs + (j >> 1) * a.ccs + (j & 1), (A)val(i, j));
  } else {
    const long long e = z * a.sc + (i >> 1) * a.crs + (j >> 1) * a.ccs;
    store_at(a, e, (A)(val(i, j) - val(i + 1, j + 1)));
    store_at(a, e + 1, (A)(val(i, j + 1) + val(i + 1, j)));
  }
}

/* Every sum of `rows` rows from row0 through store_out: CX_ROWS one
 * complex element (a 2 x 2 block) each, the others one real, consecutive
 * threads on consecutive rows. */
template <int CX, typename A, typename F>
static __device__ __forceinline__ void store_rows(const dlg_narrow_args &a, long long z, int rows,
                                                  int row0, F val)
{
  enum { S = CX == CX_ROWS ? 2 : 1 };
  for (int e = (int)threadIdx.x; e < rows * a.nn / (S * S); e += THREADS) {
    const int i = row0 + S * (e % (rows / S)), j = S * (e / (rows / S));
    if (i < a.rows) store_out<CX, A>(a, z, i, j, val);
  }
}

/* The splits' partial sums of C(i, j) of batch entry z, added in split
 * order (the same sum whichever pass adds them); unrolled so that several
 * partials' loads are in flight at once, and read past L1 (__ldcg): they
 * are other blocks' writes, and an SM's L1 is not kept coherent with them. */
template <typename A>
static __device__ __forceinline__ A sum_splits(const dlg_narrow_args &a, long long z, int i, int j)
{
  const long long per = (long long)a.rows * a.nn;
  const A *p = static_cast<const A *>(a.work) + z * a.splits * per + (long long)j * a.rows + i;
  A s = A(0);
#pragma unroll 4
  for (int q = 0; q < a.splits; q++) s += __ldcg(p + q * per);
  return s;
}

/* After a split's partials of `rows` rows from row0: the last of the
 * splits to arrive adds them all into C.  Inlined: as a called function
 * its saved registers spilled 12-68 bytes in four kernels. */
template <int CX, typename A>
static __device__ __forceinline__ void last_split(const dlg_narrow_args &a, int rows, int row0, int z)
{
  /* (the count's index in 32 bits: a 64-bit one spilled dot_f32_8; it
   * fits, as the workspace of nb x grid blocks of 32 rows or more was
   * allocated) */
  __threadfence(); /* this block's partials, before its arrival is counted */
  if (!__syncthreads_or(threadIdx.x == 0 &&
                        atomicAdd(a.count + (z * (int)gridDim.x + (int)blockIdx.x), 1) ==
                            a.splits - 1))
    return;
  __threadfence(); /* the others' partials, counted before, are read after */
  store_rows<CX, A>(a, z, rows, row0, [&](int i, int j) { return sum_splits<A>(a, z, i, j); });
}

/* The block's sums, res[j * ROWS + i] for its ROWS rows from row0, to the
 * workspace or to C: one call site for the whole epilogue (inlined once,
 * not once per accumulator), consecutive threads on consecutive rows.
 * With count, the last of these rows' splits to get here adds them all
 * into C: no second kernel, whose launch and few loads in flight cost 5-6
 * us of a 31 us FP32 GEMV (H100, ncu; bench/NOTES.md). */
template <int ROWS, int CX, typename A>
static __device__ __forceinline__ void put_block(const dlg_narrow_args &a, const A *res, int row0,
                                                 int s, int z)
{
  if (CX == CX_ROWS && !a.work) { /* a complex element from each 2 x 2 block */
    store_rows<CX, A>(a, z, ROWS, row0, [&](int i, int j) { return res[j * ROWS + i - row0]; });
    return;
  }
  for (int e = (int)threadIdx.x; e < ROWS * a.nn; e += THREADS) {
    const int i = row0 + e % ROWS, j = e / ROWS;
    if (i >= a.rows) continue;
    if (a.work)
      static_cast<A *>(a.work)[(((long long)z * a.splits + s) * a.nn + j) * a.rows + i] = res[e];
    else
      store_out<CX == CX_ROWS ? CX_REAL : CX, A>(a, z, i, j, [&](int, int) { return res[e]; });
  }
#if __CUDA_ARCH__ >= 900 /* older targets: 4-60 bytes spilled; the reduce kernel instead */
  if (a.work && a.count) last_split<CX, A>(a, ROWS, row0, z);
#endif
}

/* ---- dot: W k-contiguous ---- */

template <typename T, int NN> struct dot_shape {
  typedef typename in<T>::acc A;
  enum { V = 16 / (int)sizeof(T),     /* elements of W per 16-byte load */
         STEP = 8 * V,                /* k per step of a group of 8 lanes */
         PER = 16 / (int)sizeof(A),   /* X values per 16-byte shared read */
         R = DLG_NARROW_DOT_R(in<T>::ID, NN),
         KC = SMEM / (NN * (int)sizeof(A)) < KC_MAX ? SMEM / (NN * (int)sizeof(A)) : KC_MAX,
         PITCH = KC + PER,            /* a row of staged X, 16 bytes over */
         MINB = R * NN * (int)sizeof(A) >= 256 ? 1 : 2,
         /* steps of W a lane has loaded or in flight (dot_rows says why) */
         DEPTH = NN <= 2 ? 4 : 2 };
};

/* One step of a lane: its R rows' V values of W (u) times the same V rows
 * of staged X (xs: at this lane's k). */
template <typename T, int NN>
static __device__ __forceinline__ void dot_fma(typename in<T>::acc (&acc)[dot_shape<T, NN>::R][NN],
                                               const unsigned (&u)[dot_shape<T, NN>::R][4],
                                               const typename in<T>::acc *xs)
{
  typedef dot_shape<T, NN> S;
  typedef typename S::A A;
#pragma unroll
  for (int g = 0; g < S::V / S::PER; g++) {
    A w[S::R][S::PER];
#pragma unroll
    for (int r = 0; r < S::R; r++)
#pragma unroll
      for (int e = 0; e < S::PER; e++) w[r][e] = in<T>::at(u[r], g * S::PER + e);
#pragma unroll
    for (int j = 0; j < NN; j++) {
      A xv[S::PER];
      lds16(xv, xs + j * S::PITCH + g * S::PER);
#pragma unroll
      for (int r = 0; r < S::R; r++)
#pragma unroll
        for (int e = 0; e < S::PER; e++) acc[r][j] = mad(w[r][e], xv[e], acc[r][j]);
    }
  }
}

template <typename T, int NN, bool VEC>
static __device__ __forceinline__ void dot_load(unsigned (&u)[dot_shape<T, NN>::R][4],
                                                const T *const (&wr)[dot_shape<T, NN>::R], int l)
{
  typedef dot_shape<T, NN> S;
#pragma unroll
  for (int r = 0; r < S::R; r++) {
    if constexpr (VEC) load_vec<T, S::V>(u[r], wr[r] + l);
    else load_elems<T, S::V>(u[r], wr[r] + l, S::V);
  }
}

/* A group of 8 lanes on R rows of W over the block's k range, X staged a
 * chunk at a time.  SASS (sm_90, CUDA 13), the VEC main loop, one step:
 *   bf16, nn 16 (decode): 623 instructions: 512 FFMA, 32 LDS.128, 4
 *     LDG.E.128, 16 SHF + 16 LOP3 (bfloat16 to float), 17 MOV (the step
 *     loaded ahead becoming the current one: before the ring); 240
 *     registers, one block an SM.  FFMA-bound: 0.82 of the issue slots,
 *     and keeping up with HBM takes about 110 FFMA per SM cycle of the 128.
 *   bf16, nn 8: 379 (256 FFMA, 16 LDS.128, 4 LDG.E.128); 128 registers.
 *   f32, nn 1 (GEMV's T): two steps unrolled, 180 instructions for 8
 *     LDG.E.128 and 32 FFMA, the rest addresses: far from any limit.
 * No local memory in any variant (the sass_gates test holds them to it). */
template <typename T, int NN, bool VEC, int CX>
static __device__ __forceinline__ void dot_rows(const dlg_narrow_args &a, typename in<T>::acc *xs)
{
  typedef dot_shape<T, NN> S;
  typedef typename S::A A;
  /* Steps loaded ahead (VEC): a ring of D steps of R x 4 registers, the
   * oldest multiplied while the others are in flight.  Element by element
   * (not VEC) one would hold R x V.  Two steps kept a GEMV's 256 blocks
   * at 32 KB in flight an SM, about HBM's rate times its latency, and
   * streamed 1-2 columns at 3.2-3.4 TB/s where cuBLAS's GEMV streams 3.7-4.1
   * (float64 4096 x 1 x 4096 in 42 us against 36, complex128 through its
   * real embedding 79 against 66; H200, session 36): 1-2 columns, few
   * FMAs a step, keep four. */
  enum { R = S::R, V = S::V, STEP = S::STEP, KC = S::KC, D = VEC ? S::DEPTH : 1 };
  const int q = (int)threadIdx.x & 7, row0 = (int)(blockIdx.x * 32 + threadIdx.x / 8) * R;
  const int split = (int)blockIdx.y, z = (int)blockIdx.z;
  const int kb = split * a.kchunk, ke = min(a.k, kb + a.kchunk);
  const T *w = static_cast<const T *>(a.w) + z * a.sw, *x = static_cast<const T *>(a.x) + z * a.sx;
  const T *wr[R];
  A acc[R][NN];
#pragma unroll
  for (int r = 0; r < R; r++) {
    wr[r] = w + (long long)min(row0 + r, a.rows - 1) * a.ldw + q * V;
#pragma unroll
    for (int j = 0; j < NN; j++) acc[r][j] = A(0);
  }
  for (int c0 = kb; c0 < ke; c0 += KC) {
    const int len = min((int)KC, ke - c0), full = len / STEP;
    unsigned ring[D][R][4];
    __syncthreads(); /* the last chunk's readers are done with xs */
    stage<T, NN, CX>(xs, x, a, c0, len, (len + STEP - 1) / STEP * STEP, 1, S::PITCH);
    __syncthreads();
#pragma unroll
    for (int d = 0; d + 1 < D; d++)
      if (d < full) dot_load<T, NN, VEC>(ring[d], wr, c0 + d * STEP);
    /* unrolled by D, so that every ring index is a constant (registers);
     * step s itself is always there (s < full), and left unguarded: a
     * guard on it too spilled dot_bf16_8 */
    for (int s = 0; s < full; s += D) {
#pragma unroll
      for (int d = 0; d < D; d++) {
        if (d > 0 && s + d >= full) break;
        if (s + d + D - 1 < full)
          dot_load<T, NN, VEC>(ring[(d + D - 1) % D], wr, c0 + (s + d + D - 1) * STEP);
        dot_fma<T, NN>(acc, ring[d], xs + (s + d) * STEP + q * V);
      }
    }
    if (full * STEP < len) { /* the end of k: part of a step */
      const int at = c0 + full * STEP;
#pragma unroll
      for (int r = 0; r < R; r++) load_elems<T, V>(ring[0][r], wr[r] + at, ke - at - q * V);
      dot_fma<T, NN>(acc, ring[0], xs + full * STEP + q * V);
    }
  }
  /* each row's sums over the group's 8 lanes, which its first lane puts
   * in shared memory for the block's stores */
#pragma unroll
  for (int r = 0; r < R; r++)
#pragma unroll
    for (int j = 0; j < NN; j++) {
      A v = acc[r][j];
      v += __shfl_xor_sync(0xffffffffu, v, 4);
      v += __shfl_xor_sync(0xffffffffu, v, 2);
      acc[r][j] = v + __shfl_xor_sync(0xffffffffu, v, 1);
    }
  __syncthreads(); /* every warp is done with xs */
  if (q == 0)
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
      for (int j = 0; j < NN; j++) xs[j * 32 * R + (int)(threadIdx.x / 8) * R + r] = acc[r][j];
  __syncthreads();
  put_block<32 * R, CX>(a, xs, (int)blockIdx.x * 32 * R, split, z);
}

/* CPLX: the complex kernel of NN / 2 columns (narrow_args.h). */
template <typename T, int NN, bool CPLX = false>
static __device__ __forceinline__ void dot(const dlg_narrow_args &a)
{
  typedef dot_shape<T, NN> S;
  enum { CX = CPLX ? CX_COLS : CX_REAL };
  __shared__ __align__(16) typename S::A xs[NN * S::PITCH];
  if (a.vec) dot_rows<T, NN, true, CX>(a, xs);
  else dot_rows<T, NN, false, CX>(a, xs);
}

/* ---- axpy: W rows-contiguous ---- */

template <typename T, int NN> struct axpy_shape {
  typedef typename in<T>::acc A;
  enum { RT = DLG_NARROW_AXPY_RT(in<T>::ID, NN),
         WORDS = RT * (int)sizeof(T) / 4,
         U = 16 / WORDS,           /* columns of W a warp loads at once: 16 registers */
         GROUP = WARPS * U,        /* columns the block covers per step */
         PER = 16 / (int)sizeof(A),
         KC = SMEM / (NN * (int)sizeof(A)) < KC_MAX ? SMEM / (NN * (int)sizeof(A)) : KC_MAX,
         TREE = WARPS / 2 * 32 * RT * NN, /* the first round of the warps' sums */
         ELEMS = KC * NN > TREE ? KC * NN : TREE,
         /* 64 accumulators: one block, except float32's 32 columns of 2
          * rows a lane, which fit 128 registers (ptxas: no spill) */
         MINB = RT * NN * (int)sizeof(A) >= 256 && NN < 32 ? 1 : 2 };
};

/* One column of W: a lane's RT rows (u) times X's row l (xrow, the same for
 * every lane: a broadcast). */
template <typename T, int NN>
static __device__ __forceinline__ void axpy_fma(
    typename in<T>::acc (&acc)[axpy_shape<T, NN>::RT][NN], const unsigned *u,
    const typename in<T>::acc *xrow)
{
  typedef axpy_shape<T, NN> S;
  typedef typename S::A A;
  A w[S::RT];
#pragma unroll
  for (int r = 0; r < S::RT; r++) w[r] = in<T>::at(u, r);
  if constexpr (NN % S::PER == 0) {
#pragma unroll
    for (int j0 = 0; j0 < NN; j0 += S::PER) {
      A xv[S::PER];
      lds16(xv, xrow + j0);
#pragma unroll
      for (int e = 0; e < S::PER; e++)
#pragma unroll
        for (int r = 0; r < S::RT; r++) acc[r][j0 + e] = mad(w[r], xv[e], acc[r][j0 + e]);
    }
  } else {
#pragma unroll
    for (int j = 0; j < NN; j++) {
      const A xv = xrow[j];
#pragma unroll
      for (int r = 0; r < S::RT; r++) acc[r][j] = mad(w[r], xv, acc[r][j]);
    }
  }
}

/* A warp on 32 * RT rows of W, its share of the block's k range, X staged
 * a chunk at a time.  SASS (sm_90, CUDA 13), the VEC main loop, one group
 * of columns (the loop also holds the guarded element-by-element group,
 * taken at the end of k and by the last rows' lanes only):
 *   f16, nn 16: 8 LDG.E.64 (8 columns), 512 FFMA, 32 LDS.128 (X's rows,
 *     broadcast), 32 HADD2.F32 (float16 to float); 128 registers.
 *   f64, nn 8: 4 LDG.E.128, 64 DFMA, 16 LDS.128; 118 registers.
 *   f32, nn 1 (GEMV's N): 4 LDG.E.128, 16 FFMA; 56 registers. */
template <typename T, int NN, bool VEC, int CX>
static __device__ __forceinline__ void axpy_rows(const dlg_narrow_args &a, typename in<T>::acc *sm)
{
  typedef axpy_shape<T, NN> S;
  typedef typename S::A A;
  enum { RT = S::RT, U = S::U, GROUP = S::GROUP, KC = S::KC };
  const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x & 31;
  const int i0 = (int)(blockIdx.x * 32 + lane) * RT, split = (int)blockIdx.y, z = (int)blockIdx.z;
  const int kb = split * a.kchunk, ke = min(a.k, kb + a.kchunk);
  const int valid = a.rows - i0; /* this lane's rows inside W: all of them from RT on */
  const bool whole = VEC && valid >= RT;
  const T *w = static_cast<const T *>(a.w) + z * a.sw + (valid > 0 ? i0 : 0);
  const T *x = static_cast<const T *>(a.x) + z * a.sx;
  A acc[RT][NN];
#pragma unroll
  for (int r = 0; r < RT; r++)
#pragma unroll
    for (int j = 0; j < NN; j++) acc[r][j] = A(0);
  for (int c0 = kb; c0 < ke; c0 += KC) {
    const int len = min((int)KC, ke - c0);
    __syncthreads(); /* the last chunk's readers are done with sm */
    stage<T, NN, CX>(sm, x, a, c0, len, (len + GROUP - 1) / GROUP * GROUP, NN, 1);
    __syncthreads();
    for (int g = warp * U; g < len; g += GROUP) {
      const T *p = w + (long long)(c0 + g) * a.ldw;
      unsigned u[U][S::WORDS];
      if (whole && g + U <= len) {
#pragma unroll
        for (int t = 0; t < U; t++) load_vec<T, RT>(u[t], p + t * a.ldw);
      } else {
#pragma unroll
        for (int t = 0; t < U; t++)
          load_elems<T, RT>(u[t], p + t * a.ldw, g + t < len ? valid : 0);
      }
#pragma unroll
      for (int t = 0; t < U; t++) axpy_fma<T, NN>(acc, u[t], sm + (g + t) * NN);
    }
  }
  /* the 8 warps' sums: 4 + 4, 2 + 2, 1 + 1 through shared memory */
#pragma unroll
  for (int half = WARPS / 2; half > 0; half /= 2) {
    __syncthreads();
    if (warp >= half && warp < 2 * half)
#pragma unroll
      for (int r = 0; r < RT; r++)
#pragma unroll
        for (int j = 0; j < NN; j++) sm[(((warp - half) * RT + r) * NN + j) * 32 + lane] = acc[r][j];
    __syncthreads();
    if (warp < half)
#pragma unroll
      for (int r = 0; r < RT; r++)
#pragma unroll
        for (int j = 0; j < NN; j++) acc[r][j] += sm[((warp * RT + r) * NN + j) * 32 + lane];
  }
  /* warp 0 holds the block's sums: into a part of sm the last round left
   * alone, for the block's stores */
  A *res = sm + 32 * RT * NN;
  if (warp == 0)
#pragma unroll
    for (int r = 0; r < RT; r++)
#pragma unroll
      for (int j = 0; j < NN; j++) res[j * 32 * RT + lane * RT + r] = acc[r][j];
  __syncthreads();
  put_block<32 * RT, CX>(a, res, (int)blockIdx.x * 32 * RT, split, z);
}

template <typename T, int NN, bool CPLX = false>
static __device__ __forceinline__ void axpy(const dlg_narrow_args &a)
{
  enum { CX = CPLX ? CX_ROWS : CX_REAL };
  __shared__ __align__(16) typename axpy_shape<T, NN>::A sm[axpy_shape<T, NN>::ELEMS];
  if (a.vec) axpy_rows<T, NN, true, CX>(a, sm);
  else axpy_rows<T, NN, false, CX>(a, sm);
}

/* The splits' sums of each (batch entry, row, column), for the kernels
 * above on code older than sm_90 (put_block says why) and for the split
 * wgmma products (hgemm.c): a thread per row (blockIdx.x), columns and batch
 * entries over the grid's y and z.  No index is divided (a 64-bit division
 * per element made this pass cost a third of a split decode product). */
template <typename A>
static __device__ __forceinline__ void reduce(const dlg_narrow_args &a, int batch)
{
  const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
#if __CUDA_ARCH__ >= 900
  /* launched early after the split product (hgemm.c): its results first */
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
  if (i >= a.rows) return;
  for (int z = (int)blockIdx.z; z < batch; z += (int)gridDim.z)
    for (int j = (int)blockIdx.y; j < a.nn; j += (int)gridDim.y)
      store_c(a, z, i, j, sum_splits<A>(a, z, i, j));
}

/* ---- tc: 16-bit W k-contiguous, nn 5 to 16, on the tensor cores ----
 *
 * The dot kernel's FP32 FMAs bound a 16-bit decode (4096 x 16 x 4096 ran at
 * 0.46 of cuBLAS): 16 FMAs per 2-byte element is more than the SM's FMA
 * rate against HBM's.  Here mma.sync m16n8k16 does them: a warp owns TC_RG
 * groups of 16 rows, X's 16 columns are two n8 tiles.  The sum over k does
 * not care which k pairs a fragment register holds, as long as A's and B's
 * agree, so each lane loads 8 consecutive k (16 bytes) of its rows g and
 * g + 8 and of X's column g, and step s of two k16 mmas takes words 2s and
 * 2s + 1 of them as the fragment's k pairs (2t, 2t + 1) and (2t + 8, 2t +
 * 9): a warp's loads of a row are 64 contiguous bytes, no shuffles.  X is
 * staged 16-bit, [column][k] with rows padded to 64 bytes mod 128 so that
 * the 8 lanes of a quarter-warp read 8 different 16-byte bank groups.  The
 * block's sums leave through the staging buffer and put_block. */
enum { TC_RG = 1, TC_STEP = 32, TC_KX = 1024, TC_PITCH = TC_KX + 32,
       TC_ROWS = WARPS * 16 * TC_RG };
static_assert(TC_ROWS * 16 * 4 <= 16 * TC_PITCH * 2, "the sums fit in X's staging buffer");
static_assert(TC_ROWS == DLG_NARROW_TC_ROWS, "narrow_args.h and the kernel agree");

template <typename T>
static __device__ __forceinline__ void mma16816(float (&d)[4], const uint4 &a0, const uint4 &a1,
                                                unsigned b0, unsigned b1, int s)
{
  const unsigned x0 = s ? a0.z : a0.x, x1 = s ? a1.z : a1.x, x2 = s ? a0.w : a0.y,
                 x3 = s ? a1.w : a1.y;
  if (in<T>::ID == DLG_NARROW_BF16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(x0), "r"(x1), "r"(x2), "r"(x3), "r"(b0), "r"(b1));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(x0), "r"(x1), "r"(x2), "r"(x3), "r"(b0), "r"(b1));
}

/* 8 elements of a row from k, those at or past end zero (the last step). */
template <typename T>
static __device__ __forceinline__ uint4 load8(const T *row, int k, int end)
{
  if (k + 8 <= end) return __ldg(reinterpret_cast<const uint4 *>(row + k));
  unsigned short v[8];
  const unsigned short *r = reinterpret_cast<const unsigned short *>(row);
#pragma unroll
  for (int e = 0; e < 8; e++) v[e] = k + e < end ? r[k + e] : 0;
  return make_uint4(v[0] | (unsigned)v[1] << 16, v[2] | (unsigned)v[3] << 16,
                    v[4] | (unsigned)v[5] << 16, v[6] | (unsigned)v[7] << 16);
}

template <typename T, int NT>
static __device__ __forceinline__ void tc(const dlg_narrow_args &a)
{
  __shared__ __align__(16) unsigned short xs[16 * TC_PITCH];
  const int lane = (int)threadIdx.x % 32, warp = (int)threadIdx.x / 32, g = lane / 4, t = lane % 4;
  const int z = (int)blockIdx.z, split = (int)blockIdx.y;
  const int row0 = (int)blockIdx.x * TC_ROWS + warp * 16 * TC_RG;
  const int kb = split * a.kchunk, ke = min(a.k, kb + a.kchunk);
  const T *w = static_cast<const T *>(a.w) + z * a.sw;
  const unsigned short *x = static_cast<const unsigned short *>(a.x) + z * a.sx;
  const T *rp[TC_RG][2]; /* rows g and g + 8 of each group, the last row past the end */
  float acc[TC_RG][NT][4];
#pragma unroll
  for (int q = 0; q < TC_RG; q++) {
#pragma unroll
    for (int h = 0; h < 2; h++) rp[q][h] = w + (long long)min(row0 + 16 * q + g + 8 * h, a.rows - 1) * a.ldw;
#pragma unroll
    for (int n = 0; n < NT; n++)
#pragma unroll
      for (int e = 0; e < 4; e++) acc[q][n][e] = 0.f;
  }
  for (int c0 = kb; c0 < ke; c0 += TC_KX) {
    const int len = min((int)TC_KX, ke - c0), padded = (len + TC_STEP - 1) / TC_STEP * TC_STEP;
    __syncthreads(); /* the last chunk's readers are done */
    for (int e = (int)threadIdx.x; e < 8 * NT * padded; e += THREADS) {
      const int j = e / padded, l = e % padded;
      xs[j * TC_PITCH + l] = j < a.nn && l < len ? x[(long long)(c0 + l) * a.xks + j * a.xjs] : 0;
    }
    __syncthreads();
    /* two steps' loads in flight, 4 of 16 bytes a lane: 2 KB a warp, 32 KB
     * an SM at two blocks, past HBM's rate-latency product.  One group of
     * rows a warp (TC_RG) keeps the blocks small: a 4096-row decode is 32
     * blocks of rows, times 8 splits of k, where 4 groups (512 rows) left
     * 64 blocks for 132 SMs (0.50 of cuBLAS) */
#pragma unroll 2
    for (int l0 = 0; l0 < len; l0 += TC_STEP) {
      const int k = c0 + l0 + 8 * t;
      uint4 av[TC_RG][2], bv[NT];
#pragma unroll
      for (int q = 0; q < TC_RG; q++)
#pragma unroll
        for (int h = 0; h < 2; h++) av[q][h] = load8(rp[q][h], k, ke);
#pragma unroll
      for (int n = 0; n < NT; n++)
        bv[n] = *reinterpret_cast<const uint4 *>(xs + (8 * n + g) * TC_PITCH + l0 + 8 * t);
#pragma unroll
      for (int s = 0; s < 2; s++)
#pragma unroll
        for (int q = 0; q < TC_RG; q++)
#pragma unroll
          for (int n = 0; n < NT; n++)
            mma16816<T>(acc[q][n], av[q][0], av[q][1], s ? bv[n].z : bv[n].x, s ? bv[n].w : bv[n].y, s);
    }
  }
  /* C fragment: element e of (q, n) is row 16q + g + 8 (e / 2), column
   * 8n + 2t + e % 2; to res[j * TC_ROWS + i] for put_block */
  float *res = reinterpret_cast<float *>(xs);
  __syncthreads();
#pragma unroll
  for (int q = 0; q < TC_RG; q++)
#pragma unroll
    for (int n = 0; n < NT; n++)
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const int i = warp * 16 * TC_RG + 16 * q + g + 8 * (e / 2), j = 8 * n + 2 * t + e % 2;
        if (j < a.nn) res[j * TC_ROWS + i] = acc[q][n][e];
      }
  __syncthreads();
  put_block<TC_ROWS, CX_REAL>(a, res, (int)blockIdx.x * TC_ROWS, split, z);
}

} /* namespace narrow */

/* 128 registers (2 blocks of 8 warps an SM), or with 64 registers of
 * accumulators 255 (one block: 128 spilled). */
#define DLG_NARROW_KERNEL(layout, name, T, NN)                                               \
  extern "C" __global__ void __launch_bounds__(DLG_NARROW_THREADS,                          \
                                               narrow::layout##_shape<T, NN>::MINB)         \
      dlg_narrow_##layout##_##name##_##NN(const dlg_narrow_args a)                           \
  {                                                                                          \
    narrow::layout<T, NN>(a);                                                                \
  }
#define DLG_NARROW_BUCKETS_OF(layout, name, T)                                                \
  DLG_NARROW_KERNEL(layout, name, T, 1)                                                      \
  DLG_NARROW_KERNEL(layout, name, T, 2)                                                      \
  DLG_NARROW_KERNEL(layout, name, T, 4)                                                      \
  DLG_NARROW_KERNEL(layout, name, T, 8)                                                      \
  DLG_NARROW_KERNEL(layout, name, T, 16)
#define DLG_NARROW_TYPES_OF(layout)                                                           \
  DLG_NARROW_BUCKETS_OF(layout, f32, float)                                                  \
  DLG_NARROW_BUCKETS_OF(layout, f64, double)                                                 \
  DLG_NARROW_BUCKETS_OF(layout, f16, __half)                                                 \
  DLG_NARROW_BUCKETS_OF(layout, bf16, __nv_bfloat16)

DLG_NARROW_TYPES_OF(dot)
DLG_NARROW_TYPES_OF(axpy)
/* float32's 32-column bucket: 2 rows a lane (64 accumulators; dot one
 * block an SM, axpy two).  32 FMAs an element of W: bound by the FMAs, not
 * the stream (narrow.c takes only what they were measured to win) */
DLG_NARROW_KERNEL(dot, f32, float, 32)
DLG_NARROW_KERNEL(axpy, f32, float, 32)

/* The complex kernels, NC complex columns: the real kernel of 2 NC. */
#define DLG_NARROW_CKERNEL(layout, name, T, NC)                                              \
  extern "C" __global__ void __launch_bounds__(DLG_NARROW_THREADS,                          \
                                               narrow::layout##_shape<T, 2 * NC>::MINB)     \
      dlg_narrow_##layout##_##name##_##NC(const dlg_narrow_args a)                           \
  {                                                                                          \
    narrow::layout<T, 2 * NC, true>(a);                                                      \
  }
#define DLG_NARROW_COMPLEX_OF(layout)        \
  DLG_NARROW_CKERNEL(layout, c64, float, 1)  \
  DLG_NARROW_CKERNEL(layout, c64, float, 2)  \
  DLG_NARROW_CKERNEL(layout, c64, float, 4)  \
  DLG_NARROW_CKERNEL(layout, c64, float, 8)  \
  DLG_NARROW_CKERNEL(layout, c64, float, 16) \
  DLG_NARROW_CKERNEL(layout, c128, double, 1) \
  DLG_NARROW_CKERNEL(layout, c128, double, 2) \
  DLG_NARROW_CKERNEL(layout, c128, double, 4) \
  DLG_NARROW_CKERNEL(layout, c128, double, 8)
DLG_NARROW_COMPLEX_OF(dot)
DLG_NARROW_COMPLEX_OF(axpy)

/* dlg_narrow_tc_<f16|bf16>_<8|16>: the tensor-core dot kernels */
#define DLG_NARROW_TC(name, T, NN)                                                            \
  extern "C" __global__ void __launch_bounds__(DLG_NARROW_THREADS, 2)                        \
      dlg_narrow_tc_##name##_##NN(const dlg_narrow_args a)                                   \
  {                                                                                          \
    narrow::tc<T, NN / 8>(a);                                                                \
  }
DLG_NARROW_TC(f16, __half, 8)
DLG_NARROW_TC(f16, __half, 16)
DLG_NARROW_TC(bf16, __nv_bfloat16, 8)
DLG_NARROW_TC(bf16, __nv_bfloat16, 16)

/* Present where put_block adds the splits itself (sm_90 code): the
 * launcher looks for it to know whether to pass a count or run the reduce
 * kernel after the split product. */
#if __CUDA_ARCH__ >= 900
extern "C" __global__ void dlg_narrow_sums_in_kernel(void) {}
#endif

extern "C" __global__ void __launch_bounds__(256) dlg_narrow_reduce_f(const dlg_narrow_args a,
                                                                      int batch)
{
  narrow::reduce<float>(a, batch);
}
extern "C" __global__ void __launch_bounds__(256) dlg_narrow_reduce_d(const dlg_narrow_args a,
                                                                      int batch)
{
  narrow::reduce<double>(a, batch);
}
