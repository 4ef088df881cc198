/*
 * narrow.c - from a dlg_gemm whose C is at most 16 wide on one side, on
 * device memory, to launches of the narrow kernels (kernels/cuda/narrow.cu):
 * float32 under every precision policy, float64, float16 and bfloat16, and
 * complex64 / complex128 (complex_gemm.c asks).
 *
 * The rule (dlg_cuda_narrow_takes): min(m, n) <= 16, max(m, n) >= 256 and
 * k >= 256.  Such a product is a stream of its wide operand with at most 16
 * FMAs per element: the tile kernels (64 to 256 wide) compute mostly
 * padding on it and read the operand at a fraction of HBM's rate
 * (bench/NOTES.md: 0.23 to 0.36 of cuBLAS), where these kernels read it
 * once at 16 bytes a lane.  Below 256 rows or 256 of k the wide operand is
 * under 64 K elements, a few microseconds on any kernel, and the tile
 * kernels keep what is launch-bound.  FP32 under the 3xTF32 policy comes
 * here too (full FP32 FMAs are at least as accurate), and under TF32 up to
 * 8 columns (widest(): past that its tensor-core tiles win).
 * DLGEMM_NARROW=0 turns the route off.
 *
 * The kernels see W (rows x k: the wide operand) times X (k x nn, nn the
 * narrow side) into C as rows x nn: where m is the narrow side that is
 * C^T = op(B)^T op(A)^T, C addressed through swapped strides.  The host
 * picks the kernel by W's contiguous dimension and nn's bucket, and splits
 * k across blocks when the rows alone give too few.
 *
 * Except: float16 / bfloat16 with 5 to 16 columns and operands TMA can
 * address, on a chip with the wgmma kernels, go to those, split along k
 * (hgemm.c): TMA keeps more of W in flight than these kernels' loads do.
 * Where X is k-contiguous they take it on the 128 x 16 tile, ten k-tiles
 * of W deep (H100: bf16 4096 x 16 x 4096 TN 1.03-1.04 of cuBLAS, 11008 x 8
 * x 4096 1.08-1.12, f16 4096 x 16 NN 1.02-1.08); otherwise, against 1024 or
 * more, on the 128 x 64 tile with X as its columns (H200: 0.85-1.01; these
 * kernels: 0.56-0.80), else on a 128-wide tile mostly padding.  1
 * to 4 columns stay here (bf16 4096 x 1 at 1.00-1.05 of cuBLAS).
 * And float64 with 5 to 16 columns goes to the thin DMMA tiles (32 x 128
 * or 128 x 32, split along k; dgemm.c) unless DLGEMM_DGEMM_TILE=wide: here
 * 4096 x 16 x 4096 ran at 3.5-4.9 TFLOP/s, 0.33-0.47 of cuBLAS, and 8
 * columns at 0.61-0.94 (H200, session 31), while the thin tiles streamed
 * the same 128 MB operand with 24 and 32 columns in 45-51 us in every
 * layout, 1.00-1.18 of cuBLAS: bound by that stream, not by the columns.
 * 4 columns here take 49 us, as long as cuBLAS.
 *
 * float32 17 to 32 wide has a bucket of its own (32 columns, 2 rows a
 * lane): on the 64-wide SIMT tiles 24 x 4096 x 4096 ran at 0.65-0.80 of
 * cuBLAS in every layout (H200, session 33), most of the tile padding;
 * widest() says where the bucket is taken (DLGEMM_NARROW32 pins it).
 *
 * A complex product is the real kernel of twice its columns on the
 * operands' interleaved storage, X expanded as it is staged (narrow.cu):
 * no pass before or after.  Through cgemm.c's real embedding the same
 * complex64 GEMV was a packing or splitting pass (3-5 us), the real
 * kernel (52 us) and for axpy a combining pass (3.6 us), 0.70-0.84 of
 * cuBLAS at 1 to 16 columns (H100 ncu, session 46).  complex64 to 16
 * columns (float32's 32-column bucket), complex128 to 8; only on code that
 * adds its splits in the kernel (the reduce kernel is real).  Off unless
 * DLGEMM_NARROW_COMPLEX=on: written in session 47, which had no GPU to
 * measure it against the embedding on (bench/NOTES.md).
 */
#include <stdint.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/device/kernels.h"
#include "cuda/device/narrow.h"
#include "cuda/device/orient.h"

static int orient(const dlg_gemm *g, dlg_narrow_args *a);

/* The kernels' input type (narrow_args.h) of g's A and B. */
static int narrow_type(const dlg_gemm *g)
{
  switch (g->dtype_in) {
  case DLG_F64: return DLG_NARROW_F64;
  case DLG_F16: return DLG_NARROW_F16;
  case DLG_BF16: return DLG_NARROW_BF16;
  case DLG_C64: return DLG_NARROW_C64;
  case DLG_C128: return DLG_NARROW_C128;
  default: return DLG_NARROW_F32;
  }
}

/* The widest product of g's type and layout these kernels take: 16, and
 * for float32 past 8 columns (lo) the rule below.  32 where the float32
 * 32-column bucket was measured to win (DLGEMM_NARROW32=auto): W
 * rows-contiguous (axpy) and X not k-contiguous (its staging runs along
 * X's rows, no bank conflicts), under the strict and 3xTF32 policies:
 * 24 / 32 x 4096 x 4096 NT 0.73-0.83 of cuBLAS against 0.65-0.68 on the
 * SIMT tiles (H200, session 34).  Under TF32 the tensor-core tiles beat
 * these FMAs from 9 columns on (4096 x 16 x 4096: 0.78-1.18 of cuBLAS
 * against 0.44-0.69 here), so TF32 stops at 8.  =on / =off pin 32 / 16
 * (tests, measurements). */
static int64_t widest(const dlg_gemm *g, int64_t lo)
{
  const int mode = dlg_config_get()->narrow32;
  dlg_narrow_args a;
  if (g->dtype_in != DLG_F32 || lo <= 8 || mode == 2) return DLG_NARROW_MAX_NN;
  if (mode == 1) return DLG_NARROW_MAX_F32;
  if (g->precision == DLGEMM_PRECISION_TF32) return 8;
  return orient(g, &a) == DLG_NARROW_AXPY && a.xks != 1 ? DLG_NARROW_MAX_F32 : DLG_NARROW_MAX_NN;
}

int dlg_cuda_narrow_takes(dlg_cuda_device *dev, const dlg_gemm *g)
{
  const int64_t lo = g->m < g->n ? g->m : g->n, hi = g->m < g->n ? g->n : g->m;
  dlg_operand op1, op2;
  int64_t m, n;
  /* 2^30: the kernels' row and k indices, and a split's end, stay in 32 bits;
   * widest() (a look at the layout) only for what passed the rest */
  if (!dlg_config_get()->narrow || lo < 1 || hi < 256 || g->k < 256 ||
      dlg_cuda_kernels(dev, DLG_KERNELS_NARROW) || !dev->narrow_reduce[0])
    return 0;
  if (dlg_is_complex(g->dtype)) /* the real view doubles k or the rows (narrow_args.h) */
    return dlg_config_get()->narrow_complex && lo <= DLG_NARROW_WIDEST(narrow_type(g)) &&
           hi <= INT32_MAX / 4 && g->k <= INT32_MAX / 4 && dev->narrow_sums_in_kernel;
  if (lo > DLG_NARROW_MAX_F32 || hi > INT32_MAX / 2 || g->k > INT32_MAX / 2 || lo > widest(g, lo))
    return 0;
  /* alpha = 0 scales C: the narrow kernels' k = 0, no product to hand over */
  if (lo <= 4 || g->alpha == 0) return 1;
  if (g->dtype == DLG_F64) /* 5 to 16 columns: the thin DMMA tiles, split along k (dgemm.c) */
    return !dlg_config_get()->dgemm_tile || dlg_cuda_kernels(dev, DLG_KERNELS_DMMA);
  if (!dlg_is_half(g->dtype_in) || dlg_cuda_kernels(dev, DLG_KERNELS_WGMMA) ||
      !dev->hgemm_wgmma[0][0][0])
    return 1;
  dlg_orient(g, &op1, &op2, &m, &n);
  return !(op1.vec && op2.vec); /* the wgmma kernels', split (above) */
}

/* The kernels' view of g (narrow_args.h), and W's layout (DLG_NARROW_DOT
 * or _AXPY).  W(i, l) = w[i * wr + l * wk], one of the two strides 1 (the
 * layouts are canonical by now, core/gemm.h); complex, the real view. */
static int orient(const dlg_gemm *g, dlg_narrow_args *a)
{
  const int cx = dlg_is_complex(g->dtype);
  const int tr = g->m < g->n; /* m is the narrow side: C^T = B^T A^T */
  const dlg_matrix *w = tr ? &g->b : &g->a, *x = tr ? &g->a : &g->b;
  const int64_t wr = tr ? w->cs : w->rs, wk = tr ? w->rs : w->cs;
  const long long per16 = 16 / (long long)dlg_elem_size(dlg_real_of(g->dtype_in));
  memset(a, 0, sizeof *a);
  a->w = w->data, a->x = x->data, a->c = g->c.data;
  a->ldw = wk == 1 ? wr : wk;
  a->xks = tr ? x->cs : x->rs, a->xjs = tr ? x->rs : x->cs;
  a->crs = tr ? g->c.cs : g->c.rs, a->ccs = tr ? g->c.rs : g->c.cs;
  a->sw = w->bs, a->sx = x->bs, a->sc = g->c.bs;
  a->rows = (int)(tr ? g->n : g->m), a->nn = (int)(tr ? g->m : g->n);
  a->k = g->alpha == 0 ? 0 : (int)g->k; /* C = beta * C, A and B not read (BLAS) */
  a->alpha = g->alpha, a->beta = g->beta;
  if (cx) { /* strides in reals; W's rows or k doubled */
    a->ldw *= 2, a->xks *= 2, a->xjs *= 2, a->crs *= 2, a->ccs *= 2;
    a->sw *= 2, a->sx *= 2, a->sc *= 2, a->nn *= 2;
    if (wk == 1) a->k *= 2;
    else a->rows *= 2;
  }
  a->vec = (uintptr_t)w->data % 16 == 0 && a->ldw % per16 == 0 && a->sw % per16 == 0;
  a->c_type = g->dtype == DLG_F16 ? DLG_HOUT_F16 : g->dtype == DLG_BF16 ? DLG_HOUT_BF16
                                                                         : DLG_HOUT_F32;
  return wk == 1 ? DLG_NARROW_DOT : DLG_NARROW_AXPY;
}

/* Splits of k for `blocks` blocks of rows (times the batch): the count
 * whose waves over the kernel's slots cost least, each block's k-chunk
 * counted with a fixed BLOCK_K more for staging X and its sums' trip
 * through the workspace, each split streaming at least 1 KB of each of its
 * rows, up to 8 waves.  A count that leaves the last wave part full pays
 * for all of it: FP64 8192 x 8 x 8192 (128 blocks for 264 slots) ran at
 * 0.75 of cuBLAS with 5 splits (640 blocks, 2.4 waves), 0.83-0.86 with 2,
 * 4 or 32 (H100, bench/NOTES.md).  DLGEMM_NARROW_SPLITS pins the count. */
enum { BLOCK_K = 128 };
static void split(const dlg_cuda_device *dev, int occupancy, long long blocks, size_t es,
                  dlg_narrow_args *a)
{
  const int pin = dlg_config_get()->narrow_splits;
  const long long slots = (long long)dev->sms * occupancy;
  const long long most = pin ? (a->k + DLG_NARROW_KALIGN - 1) / DLG_NARROW_KALIGN
                             : a->k / (1024 / (long long)es);
  const long long cap = 8 * slots / (blocks > 0 ? blocks : 1) + 1; /* up to 8 waves */
  long long s = pin ? pin : 1, t;
  double best = 0;
  for (t = 1; !pin && t <= most && t <= cap && t <= 65535; t++) {
    const double waves = (double)((blocks * t + slots - 1) / slots);
    const double cost = waves * ((double)a->k / (double)t + BLOCK_K);
    if (t == 1 || cost < best) best = cost, s = t;
  }
  if (s > most) s = most;
  if (s > 65535) s = 65535;
  if (s < 1) s = 1;
  a->kchunk = (int)(((a->k + s - 1) / s + DLG_NARROW_KALIGN - 1) / DLG_NARROW_KALIGN *
                    DLG_NARROW_KALIGN);
  if (a->kchunk == 0) a->kchunk = DLG_NARROW_KALIGN; /* k = 0: one split of nothing */
  a->splits = (a->k + a->kchunk - 1) / a->kchunk;
  if (a->splits < 1) a->splits = 1;
}

/* The kernel on nb batch entries, blocks of block_rows rows; split k, its
 * partial sums go through a pooled workspace, followed by a zeroed count
 * per block of rows whose last split adds them (narrow_args.h), or on
 * code older than sm_90 by the reduce kernel after it (narrow.cu says
 * why).  No workspace to be had: one split, the kernel writing C itself. */
static CUresult launch(const dlg_cuda_api *cu, const dlg_cuda_device *dev, CUfunction f,
                       int f64, dlg_narrow_args p, int block_rows, int nb, CUstream stream)
{
  const unsigned grid = (unsigned)((p.rows + block_rows - 1) / block_rows);
  const size_t counters = dev->narrow_sums_in_kernel ? (size_t)nb * grid : 0;
  CUdeviceptr work = 0, count = 0;
  CUresult r;
  void *params[] = {&p};
  if (p.splits > 1 &&
      dlg_cuda_counted_work(cu, dev, (size_t)nb * p.splits * p.rows * p.nn * (f64 ? 8 : 4),
                            counters, stream, &work, &count)) {
    p.kchunk = (p.k + DLG_NARROW_KALIGN - 1) / DLG_NARROW_KALIGN * DLG_NARROW_KALIGN;
    p.splits = 1;
  }
  p.work = (void *)(uintptr_t)work;
  p.count = work && counters ? (int *)(uintptr_t)count : NULL;
  r = cu->LaunchKernel(f, grid, (unsigned)p.splits, (unsigned)nb, DLG_NARROW_THREADS, 1, 1, 0,
                       stream, params, NULL);
  if (!r && work && !p.count) r = dlg_cuda_splits_reduce(cu, dev, f64, &p, nb, 0, stream);
  if (work) cu->MemFreeAsync(work, stream);
  return r;
}

CUresult dlg_cuda_splits_reduce(const dlg_cuda_api *cu, const dlg_cuda_device *dev, int f64,
                                const dlg_narrow_args *p, int nb, int early, CUstream stream)
{
  dlg_narrow_args a = *p;
  void *rp[] = {&a, &nb};
  const unsigned grid[3] = {(unsigned)((p->rows + 255) / 256),
                            (unsigned)(p->nn < 65535 ? p->nn : 65535),
                            (unsigned)(nb < 65535 ? nb : 65535)},
                 block[3] = {256, 1, 1};
  if (early) return dlg_cuda_launch_early(cu, dev->narrow_reduce[f64], grid, block, 0, stream, rp);
  return cu->LaunchKernel(dev->narrow_reduce[f64], grid[0], grid[1], grid[2], 256, 1, 1, 0, stream,
                          rp, NULL);
}

dlgemm_status dlg_cuda_narrow(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  const int type = narrow_type(g);
  const int real = DLG_NARROW_REAL(type), per = type == real ? 1 : 2; /* reals a column */
  /* strides count reals (narrow_args.h) */
  const size_t es = dlg_elem_size(dlg_real_of(g->dtype_in)),
               ces = dlg_elem_size(dlg_real_of(g->dtype));
  const long long zmax = 65535;
  dlg_narrow_args a;
  int layout, bucket = 0, rows_per_block, splits = 1, occ, tc = 0;
  CUfunction f;
  long long b0;
  CUresult r = CUDA_SUCCESS;

  if (!cu) return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "%s", why);
  layout = orient(g, &a);
  while ((1 << bucket) * per < a.nn) bucket++; /* in the type's own columns */
  rows_per_block = DLG_NARROW_BLOCK_ROWS(layout, real, per << bucket);
  f = dev->narrow[layout][type][bucket], occ = dev->narrow_occ[layout][type][bucket];
  /* 16-bit W k-contiguous with more than 4 columns: the FP32 FMAs would
   * bound it, the tensor-core kernel (narrow.cu, "tc") takes it */
  if (layout == DLG_NARROW_DOT && (type == DLG_NARROW_F16 || type == DLG_NARROW_BF16) &&
      bucket >= 3 && a.vec &&
      dev->narrow_tc[type - DLG_NARROW_F16][bucket - 3]) {
    f = dev->narrow_tc[type - DLG_NARROW_F16][bucket - 3];
    occ = dev->narrow_tc_occ[type - DLG_NARROW_F16][bucket - 3];
    rows_per_block = DLG_NARROW_TC_ROWS, tc = 1;
  }
  for (b0 = 0; b0 < g->batch && !r; b0 += zmax) {
    dlg_narrow_args p = a;
    const int nb = (int)(g->batch - b0 < zmax ? g->batch - b0 : zmax);
    p.w = (const char *)a.w + b0 * a.sw * (long long)es;
    p.x = (const char *)a.x + b0 * a.sx * (long long)es;
    p.c = (char *)a.c + b0 * a.sc * (long long)ces;
    split(dev, occ, (long long)nb * ((a.rows + rows_per_block - 1) / rows_per_block), es, &p);
    if (!b0) splits = p.splits;
    r = launch(cu, dev, f, real == DLG_NARROW_F64, p, rows_per_block, nb, stream);
  }
  if (r)
    return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed: %s", dlg_cuda_error(r));
  if (dlg_config_get()->verbose) /* the DLGEMM_VERBOSE line says which kernel (tests look) */
    dlg_note("narrow %s%s kernel, nn %d of %d, k in %d split(s)",
             tc ? "tensor-core dot" : layout == DLG_NARROW_DOT ? "dot" : "axpy",
             per == 2 ? " complex" : "", a.nn / per, 1 << bucket, splits);
  return DLGEMM_OK;
}
