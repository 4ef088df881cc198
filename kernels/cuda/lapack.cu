/*
 * lapack.cu - the small kernels of the GPU factorizations
 * (plugin/cuda/lapack/factor.c): what recursion leaves over once every
 * large product has gone to the GEMM kernels.
 *
 *   lu_column   one column of LU: the pivot search (IDAMAX's choice), the
 *               swap within the column, the scaling by 1/pivot (DGETRF2's
 *               N = 1 case, sfmin rule included)
 *   lu_panel    LU of a panel of up to DLG_LU_PANEL_COLS columns in one launch
 *               (DGETF2's order of work, lu_column's choices), a row a
 *               thread held in registers, the grid's blocks in step
 *   laswp       row interchanges over a range of columns, in pivot order
 *   trsm_leaf   forward substitution with a lower triangle of order <= 32,
 *               for many vectors at once (columns for LU's U12, rows for
 *               Cholesky's L21)
 *   potrf_leaf  Cholesky of a diagonal block of order <= 32, in one warp
 *   tri_add     C += W on the lower triangle of a diagonal block (SYRK's
 *               leaves: the GEMM computes the whole square into W, only the
 *               referenced triangle of C is written)
 *   householder one reflector of QR: DLARFG on a column, written back as
 *               DGEQRF leaves it, and as the unit column of V that qr.c's
 *               GEMMs read
 *   unit_lower  DGEQRF's reflectors made a plain matrix V in place (ORMQR's
 *               device copy of A): zeros above the diagonal, ones on it
 *   larft       the T of up to DLG_QR_NB reflectors from G = V^T V and TAU
 *               (DLARFT, forward and columnwise)
 *
 * Matrices are views (rs, cs element strides), so that Cholesky's upper
 * case is the lower case of the transposed view.  INFO lives on the device;
 * the first leaf to fail sets it (atomicCAS from 0) and the later leaves
 * that would compute on a failed factor return at once.  None of these
 * kernels carries the flops: their job is to be correct and short.
 */
#include <math.h>
#include <stdint.h>
#include "lapack_args.h"

enum { LEAF = DLG_LAPACK_LEAF };

template <typename T> __device__ __forceinline__ T absval(T x) { return x < T(0) ? -x : x; }

/* One block.  The search keeps IDAMAX's choice: the first index of the
 * largest |a|, NaN never larger (so NaN wins only as the first element). */
template <typename T>
__device__ void lu_column(T *col, long long m, long long j, int *ipiv, int *info, T sfmin)
{
  __shared__ T best_v[32];
  __shared__ long long best_i[32];
  __shared__ int zero;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  T v = T(-1);
  long long idx = j;
  for (long long r = j + threadIdx.x; r < m; r += blockDim.x) {
    const T x = absval(col[r]);
    if (x > v) v = x, idx = r;
  }
  for (int o = 16; o; o >>= 1) {
    const T ov = __shfl_down_sync(0xffffffffu, v, o);
    const long long oi = __shfl_down_sync(0xffffffffu, idx, o);
    if (ov > v || (ov == v && oi < idx)) v = ov, idx = oi;
  }
  if (lane == 0) best_v[warp] = v, best_i[warp] = idx;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < nwarps; w++)
      if (best_v[w] > v || (best_v[w] == v && best_i[w] < idx)) v = best_v[w], idx = best_i[w];
    if (col[j] != col[j]) idx = j; /* a NaN first: nothing compares larger */
    ipiv[j] = (int)idx + 1;
    zero = col[idx] == T(0);
    if (!zero) {
      const T t = col[idx];
      col[idx] = col[j];
      col[j] = t;
    } else {
      atomicCAS(info, 0, (int)j + 1); /* DGETRF2: INFO set, no interchange, no scaling */
    }
  }
  __syncthreads();
  if (zero) return;
  const T p = col[j];
  if (absval(p) >= sfmin) {
    const T r = T(1) / p;
    for (long long i = j + 1 + threadIdx.x; i < m; i += blockDim.x) col[i] *= r;
  } else {
    for (long long i = j + 1 + threadIdx.x; i < m; i += blockDim.x) col[i] /= p;
  }
}

/* ---- lu_panel: a panel of LU in one launch ----
 *
 * Below 33 columns recursive.c's LU went on halving down to single
 * columns: for each 32 columns of the matrix 32 lu_column, about 60 laswp
 * and trsm leaves and 31 GEMMs, ~150 launches of a few microseconds that
 * the GPU runs one after another (n = 16384: 18,176 GEMMs, ~85,000
 * launches in all, the GEMMs' own time estimated at 60 ms of the 0.59 s the
 * factorization took).  Here the panel (rows [j0, m), columns [j0, j0 + n),
 * n <= DLG_LU_PANEL_COLS) is factored by one cooperative launch: the
 * reference LAPACK program's dgetrf 0.59-0.61 s -> 0.37 at 16384, 0.22-0.23
 * -> 0.12 at 8192 (H100, session 43, bench/results/session43).
 *
 * - Thread t of the grid holds row j0 + t of the panel in registers (NB
 *   values: 64 of a double's registers; ptxas: 128 in all, no stack, so
 *   2 blocks of 256 an SM, 67,584 rows on an H100; float 79), loaded and
 *   stored once, so the 32 rank-1 updates cost no memory traffic;
 *   recursive.c launches it only
 *   where the grid covers the rows (blocks x threads >= m - j0) and all its
 *   blocks are resident (the cooperative launch refuses otherwise).
 * - Each column: every block finds its candidate (the first row of the
 *   largest |a|, lu_column's rule) and writes it - its value, its row, the
 *   whole row of the panel - to its slot; the thread holding row j writes
 *   that row beside.  One grid barrier (an arrival count in global memory,
 *   the cooperative launch's residency making the spin safe); then every
 *   block reads all candidates and makes the same choice, so the pivot row
 *   (the new row j, U's row) and the old row j (the new row p) come from
 *   the slots with no second barrier.  The slots alternate by column's
 *   parity: a block that is a column ahead writes the other half, and can
 *   be no further ahead, the next barrier waiting for everyone.
 * - Zero pivot: INFO, no interchange, no scaling, and the update still
 *   done with the unscaled column (DGETF2's DGER; the recursion's GEMM of
 *   the same column): zeros change nothing, NaNs spread as they would.
 *   A NaN at row j is the pivot whatever follows (lu_column's rule).
 * The arithmetic is DGETF2's right-looking order, not the recursion's
 * (GEMM) order: the same factorization rounded differently, as reference
 * LAPACK's DGETRF2 and DGETF2 differ. */
enum { LU_NB = DLG_LU_PANEL_COLS, LU_THREADS = DLG_LU_PANEL_THREADS };

template <typename T> struct lu_slot {
  T row[LU_NB];
  T v;
  long long r;
};
static_assert(sizeof(lu_slot<double>) <= DLG_LU_SLOT_BYTES && sizeof(lu_slot<float>) <= DLG_LU_SLOT_BYTES,
              "lapack_args.h's slot size");

template <typename T>
__device__ void lu_panel(T *a, long long lda, long long m, int j0, int n, int *ipiv, int *info,
                         T sfmin, lu_slot<T> *slots, T *rowj, unsigned *arrived)
{
  __shared__ T su[LU_NB], sj[LU_NB];
  __shared__ T wv[LU_THREADS / 32];
  __shared__ long long wr[LU_THREADS / 32];
  __shared__ long long piv_row;
  __shared__ int piv_block;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nb = (int)gridDim.x;
  const long long row = j0 + (long long)blockIdx.x * LU_THREADS + threadIdx.x;
  const bool mine = row < m;
  const long long mm = m - j0, kk = mm < n ? mm : n;
  T x[LU_NB];
#pragma unroll
  for (int c = 0; c < LU_NB; c++) x[c] = mine && c < n ? a[row + (j0 + c) * lda] : T(0);
  for (int c = 0; c < kk; c++) {
    const long long j = j0 + c;
    lu_slot<T> *slot = slots + (c & 1) * nb;
    T *rj = rowj + (c & 1) * LU_NB;
    /* the block's candidate: the largest |a| of its rows j.., the first */
    T xc = T(0); /* x[c], picked so that x stays in registers (c is not a constant) */
#pragma unroll
    for (int k = 0; k < LU_NB; k++)
      if (k == c) xc = x[k];
    T v = T(-1);
    long long r = j;
    if (mine && row >= j && absval(xc) > v) v = absval(xc), r = row;
    for (int o = 16; o; o >>= 1) {
      const T ov = __shfl_down_sync(0xffffffffu, v, o);
      const long long orow = __shfl_down_sync(0xffffffffu, r, o);
      if (ov > v || (ov == v && orow < r)) v = ov, r = orow;
    }
    if (lane == 0) wv[warp] = v, wr[warp] = r;
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < LU_THREADS / 32; w++)
        if (wv[w] > v || (wv[w] == v && wr[w] < r)) v = wv[w], r = wr[w];
      slot[blockIdx.x].v = v, slot[blockIdx.x].r = r;
      piv_row = r;
    }
    __syncthreads();
    if (mine && row == piv_row)
#pragma unroll
      for (int k = 0; k < LU_NB; k++) slot[blockIdx.x].row[k] = x[k];
    if (mine && row == j)
#pragma unroll
      for (int k = 0; k < LU_NB; k++) rj[k] = x[k];
    /* the grid barrier: this block's writes, then its arrival */
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      atomicAdd(arrived, 1u);
      const unsigned target = (unsigned)(c + 1) * (unsigned)nb;
      while (*(volatile unsigned *)arrived < target) {}
      __threadfence();
    }
    __syncthreads();
    /* every block: the same choice among the candidates (block order is
     * row order, so ties keep the first row) */
    if (warp == 0) {
      T bv = T(-1);
      long long br = j;
      int bb = -1;
      for (int b = lane; b < nb; b += 32) {
        const T ov = __ldcg(&slot[b].v);
        const long long orow = __ldcg(&slot[b].r);
        if (ov > bv || (ov == bv && orow < br)) bv = ov, br = orow, bb = b;
      }
      for (int o = 16; o; o >>= 1) {
        const T ov = __shfl_down_sync(0xffffffffu, bv, o);
        const long long orow = __shfl_down_sync(0xffffffffu, br, o);
        const int ob = __shfl_down_sync(0xffffffffu, bb, o);
        if (ov > bv || (ov == bv && orow < br)) bv = ov, br = orow, bb = ob;
      }
      if (lane == 0) piv_row = br, piv_block = bb;
    }
    __syncthreads();
    if (threadIdx.x < LU_NB) {
      sj[threadIdx.x] = __ldcg(&rj[threadIdx.x]);
      su[threadIdx.x] = piv_block >= 0 ? __ldcg(&slot[piv_block].row[threadIdx.x]) : T(0);
    }
    __syncthreads();
    long long p = piv_row;
    const T ajj = sj[c];
    if (ajj != ajj || piv_block < 0) p = j; /* a NaN first, or nothing larger than -1 */
    const T *u = p == j ? sj : su;
    const T piv = u[c];
    const bool zero = piv == T(0);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      ipiv[j] = (int)p + 1;
      if (zero) atomicCAS(info, 0, (int)j + 1);
    }
    if (!zero && p != j && mine) {
      if (row == j)
#pragma unroll
        for (int k = 0; k < LU_NB; k++) x[k] = su[k];
      else if (row == p)
#pragma unroll
        for (int k = 0; k < LU_NB; k++) x[k] = sj[k];
    }
    if (mine && row > j) {
      T l = !zero && row == p ? sj[c] : xc; /* row p now holds the old row j */
      if (!zero) l = absval(piv) >= sfmin ? l * (T(1) / piv) : l / piv;
#pragma unroll
      for (int k = 0; k < LU_NB; k++) {
        if (k == c) x[k] = l;
        if (k > c) x[k] -= l * u[k];
      }
    }
  }
  if (mine)
#pragma unroll
    for (int c = 0; c < LU_NB; c++)
      if (c < n) a[row + (j0 + c) * lda] = x[c];
}

/* Pivots k1..k2-1 (1-based absolute rows in ipiv) applied in order to the
 * columns [0, ncols) of a, one column per thread. */
template <typename T>
__device__ void laswp(T *a, long long ld, int ncols, const int *ipiv, int k1, int k2)
{
  const long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (c >= ncols) return;
  T *col = a + c * ld;
  for (int i = k1; i < k2; i++) {
    const int p = ipiv[i] - 1;
    if (p != i) {
      const T t = col[i];
      col[i] = col[p];
      col[p] = t;
    }
  }
}

/* x := L^{-1} x for nvec vectors x (element e of vector v at
 * x[v*vs + e*xs]), L lower of order n <= 32 (element (i,k) at
 * l[i*lrs + k*lcs]), unit diagonal or not. */
template <typename T>
__device__ void trsm_leaf(const T *l, long long lrs, long long lcs, int n, int unit, T *x,
                          long long xs, long long vs, long long nvec)
{
  __shared__ T s[LEAF][LEAF + 1];
  for (int t = threadIdx.x; t < LEAF * LEAF; t += blockDim.x) {
    const int i = t % LEAF, k = t / LEAF;
    s[i][k] = (i < n && k <= i) ? l[i * lrs + k * lcs] : T(0);
  }
  __syncthreads();
  const long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (v >= nvec) return;
  T *p = x + v * vs;
  T r[LEAF];
#pragma unroll
  for (int i = 0; i < LEAF; i++) {
    if (i < n) {
      T acc = p[i * xs];
#pragma unroll
      for (int k = 0; k < i; k++) acc -= s[i][k] * r[k];
      r[i] = unit ? acc : acc / s[i][i];
      p[i * xs] = r[i];
    }
  }
}

/* The lower Cholesky factor of the n x n (n <= 32) block a, in place, one
 * warp: lane i owns row i.  INFO (off + j + 1 for the first pivot that is
 * not positive) as DPOTRF reports it; on failure nothing is written. */
template <typename T>
__device__ void potrf_leaf(T *a, long long rs, long long cs, int n, int off, int *info)
{
  __shared__ T s[LEAF][LEAF + 1];
  const int i = threadIdx.x;
  if (*info) return;
  for (int k = 0; k < n; k++) s[i][k] = (i < n && k <= i) ? a[i * rs + k * cs] : T(0);
  __syncwarp();
  for (int j = 0; j < n; j++) {
    const T ajj = s[j][j];
    if (!(ajj > T(0))) { /* also NaN, as DPOTRF's test */
      if (i == 0) atomicCAS(info, 0, off + j + 1);
      return;
    }
    const T d = sqrt(ajj);
    __syncwarp();
    if (i == j) s[j][j] = d;
    if (i > j && i < n) s[i][j] /= d;
    __syncwarp();
    if (i > j && i < n)
      for (int k = j + 1; k <= i; k++) s[i][k] -= s[i][j] * s[k][j];
    __syncwarp();
  }
  if (i < n)
    for (int k = 0; k <= i; k++) a[i * rs + k * cs] = s[i][k];
}

/* c(i,j) += w(i,j) for j <= i < n; w column-major with leading dimension n. */
template <typename T>
__device__ void tri_add(T *c, long long rs, long long cs, const T *w, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (i < n && i >= j) c[i * rs + j * cs] += w[i + (long long)j * n];
}

/* Block reductions for householder: every thread gets the result. */
template <typename T> __device__ T block_max(T v, T *red)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int o = 16; o; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
  __syncthreads(); /* red may still be read by the previous reduction */
  if (lane == 0) red[warp] = v;
  __syncthreads();
  v = red[0];
  for (int w = 1; w < (int)(blockDim.x >> 5); w++) v = fmax(v, red[w]);
  return v;
}

template <typename T> __device__ T block_sum(T v, T *red)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads();
  if (lane == 0) red[warp] = v;
  __syncthreads();
  v = red[0];
  for (int w = 1; w < (int)(blockDim.x >> 5); w++) v += red[w];
  return v;
}

/* DNRM2 of x[0, n): the largest |x| first, then the sum of squares scaled by
 * it, so nothing overflows or underflows that DNRM2 keeps; NaN in, NaN out;
 * an infinity, infinity. */
template <typename T> __device__ T nrm2(const T *x, long long n, T *red)
{
  T big = T(0), nan = T(0);
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {
    const T a = absval(x[i]);
    if (a != a) nan = T(1);
    else big = fmax(big, a);
  }
  big = block_max(big, red);
  if (block_max(nan, red) != T(0)) return T(NAN);
  if (big == T(0) || isinf(big)) return big;
  T ssq = T(0);
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {
    const T a = x[i] / big;
    ssq += a * a;
  }
  return big * sqrt(block_sum(ssq, red));
}

/* DLAPY2: sqrt(x^2 + y^2) without needless overflow, NaN if either is. */
template <typename T> __device__ T lapy2(T x, T y, T huge)
{
  if (x != x) return x;
  if (y != y) return y;
  const T xa = absval(x), ya = absval(y), w = fmax(xa, ya), z = fmin(xa, ya);
  if (z == T(0) || w > huge) return w;
  return w * sqrt(T(1) + (z / w) * (z / w));
}

/* DLARFG(m, col[0], col[1..], 1, tau) in DGEQR2's place: col[0] becomes
 * beta, col[1..] the vector v; vcol gets the same column with its implicit
 * 1 written (rows above it are zeros the caller set); tau goes to *tau and
 * to T's diagonal *tdiag.  The scaling by 1/safmin while |beta| < safmin is
 * DLARFG's, in powers of two, so exact. */
template <typename T>
__device__ void householder(T *col, long long m, T *vcol, T *tau, T *tdiag, T safmin, T huge)
{
  __shared__ T red[32];
  T *x = col + 1;
  const long long n = m - 1;
  if (n <= 0) { /* DLARFG with N = 1: H = I */
    if (threadIdx.x == 0) *tau = T(0), *tdiag = T(0), vcol[0] = T(1);
    return;
  }
  T alpha = col[0], xnorm = nrm2(x, n, red), beta = T(0), t = T(0);
  int knt = 0;
  if (xnorm != T(0)) {
    beta = -copysign(lapy2(alpha, xnorm, huge), alpha);
    if (absval(beta) < safmin) { /* beta and x may be inaccurate: scale them up */
      const T rsafmn = T(1) / safmin;
      do {
        knt++;
        for (long long i = threadIdx.x; i < n; i += blockDim.x) x[i] *= rsafmn;
        beta *= rsafmn, alpha *= rsafmn;
      } while (absval(beta) < safmin && knt < 20);
      __syncthreads();
      xnorm = nrm2(x, n, red);
      beta = -copysign(lapy2(alpha, xnorm, huge), alpha);
    }
    t = (beta - alpha) / beta;
    const T scale = T(1) / (alpha - beta); /* DSCAL by the reciprocal, as DLARFG */
    for (long long i = threadIdx.x; i < n; i += blockDim.x) x[i] *= scale;
    for (int j = 0; j < knt; j++) beta *= safmin;
  } else {
    beta = alpha; /* H = I: column unchanged */
  }
  __syncthreads();
  for (long long i = threadIdx.x; i < n; i += blockDim.x) vcol[1 + i] = x[i];
  if (threadIdx.x == 0) col[0] = beta, vcol[0] = T(1), *tau = t, *tdiag = t;
}

/* Column blockIdx.x (and every gridDim.x-th after it) of the rows x cols
 * matrix a: what lies above the diagonal zeroed, the diagonal set to 1. */
template <typename T> __device__ void unit_lower(T *a, long long ld, int rows, int cols)
{
  for (long long j = blockIdx.x; j < cols; j += gridDim.x) {
    const long long top = j < rows ? j : rows;
    for (long long i = threadIdx.x; i < top; i += blockDim.x) a[i + j * ld] = T(0);
    if (threadIdx.x == 0 && j < rows) a[j + j * ld] = T(1);
  }
}

/* DLARFT('F', 'C') of k <= DLG_QR_NB reflectors, one block of DLG_QR_NB
 * threads (ld of t and g DLG_QR_NB):
 *   T(i, i) = tau(i),  T(0:i, i) = -tau(i) T(0:i, 0:i) G(0:i, i).
 * Row r of T needs only row r of T and G's columns, so thread r computes
 * its row alone, column after column, with no barrier; the rows live in
 * shared memory (padded by one element: a column's reads spread over the
 * banks) because a thread's own array indexed by l would go to local memory.
 * A zero tau gives a zero column, as DLARFT writes it, whatever G holds. */
template <typename T> __device__ void larft(T *t, const T *g, const T *tau, int k)
{
  __shared__ T s[DLG_QR_NB][DLG_QR_NB + 1];
  const int r = threadIdx.x;
  for (int i = 0; i < k; i++) {
    const T ti = tau[i];
    T sum = T(0);
    for (int l = r; l < i; l++) sum += s[r][l] * g[l + i * DLG_QR_NB];
    s[r][i] = r > i || ti == T(0) ? T(0) : r == i ? ti : -ti * sum;
  }
  for (int i = 0; i < k; i++) t[r + i * DLG_QR_NB] = r < k ? s[r][i] : T(0);
}

#define DLG_LAPACK_KERNELS(T, x)                                                                   \
  extern "C" __global__ void __launch_bounds__(DLG_LAPACK_COLUMN_THREADS)                        \
      dlg_lu_column_##x(T *col, long long m, long long j, int *ipiv, int *info, T sfmin)         \
  {                                                                                              \
    lu_column<T>(col, m, j, ipiv, info, sfmin);                                                  \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(DLG_LU_PANEL_THREADS)                            \
      dlg_lu_panel_##x(T *a, long long lda, long long m, int j0, int n, int *ipiv, int *info,    \
                       T sfmin, void *slots, T *rowj, unsigned *arrived)                         \
  {                                                                                              \
    lu_panel<T>(a, lda, m, j0, n, ipiv, info, sfmin, static_cast<lu_slot<T> *>(slots), rowj,     \
                arrived);                                                                        \
  }                                                                                              \
  extern "C" __global__ void dlg_laswp_##x(T *a, long long ld, int ncols, const int *ipiv,       \
                                           int k1, int k2)                                       \
  {                                                                                              \
    laswp<T>(a, ld, ncols, ipiv, k1, k2);                                                        \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(DLG_LAPACK_LEAF_THREADS)                          \
      dlg_trsm_leaf_##x(const T *l, long long lrs, long long lcs, int n, int unit, T *xv,        \
                        long long xs, long long vs, long long nvec)                              \
  {                                                                                              \
    trsm_leaf<T>(l, lrs, lcs, n, unit, xv, xs, vs, nvec);                                        \
  }                                                                                              \
  extern "C" __global__ void dlg_potrf_leaf_##x(T *a, long long rs, long long cs, int n, int off, \
                                                int *info)                                       \
  {                                                                                              \
    potrf_leaf<T>(a, rs, cs, n, off, info);                                                      \
  }                                                                                              \
  extern "C" __global__ void dlg_tri_add_##x(T *c, long long rs, long long cs, const T *w, int n) \
  {                                                                                              \
    tri_add<T>(c, rs, cs, w, n);                                                                 \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(DLG_LAPACK_COLUMN_THREADS)                        \
      dlg_householder_##x(T *col, long long m, T *vcol, T *tau, T *tdiag, T safmin, T huge)      \
  {                                                                                              \
    householder<T>(col, m, vcol, tau, tdiag, safmin, huge);                                      \
  }                                                                                              \
  extern "C" __global__ void dlg_unit_lower_##x(T *a, long long ld, int rows, int cols)          \
  {                                                                                              \
    unit_lower<T>(a, ld, rows, cols);                                                            \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(DLG_QR_NB)                                        \
      dlg_larft_##x(T *t, const T *g, const T *tau, int k)                                       \
  {                                                                                              \
    larft<T>(t, g, tau, k);                                                                      \
  }

DLG_LAPACK_KERNELS(float, s)
DLG_LAPACK_KERNELS(double, d)
