/*
 * cuda_sgemm.c - from a dlg_gemm on device memory to kernel launches.
 *
 * This is the framework half of the BLIS split: it turns any layout into the
 * column-major problem the kernels compute (a row-major C is computed as
 * C^T = B^T A^T), decides which operand dimension is contiguous, picks the
 * tile and the split of k, and launches.  The kernels know only tiles.
 */
#include <stdint.h>
#include "../kernels/cuda/sgemm_args.h"
#include "cuda_device.h"
#include "errors.h"

/* Operand X viewed as rows x cols with X(i,j) = X[i*rs + j*cs]: its data,
 * leading dimension and batch stride; returns whether the row index i is the
 * unit stride.  16-byte access needs base, ld and batch stride aligned. */
static int operand(const void *data, int64_t rs, int64_t cs, int64_t bs, const float **p,
                   long long *ld, long long *sb, int *vec)
{
  int row_unit = rs == 1;
  *p = (const float *)data;
  *ld = row_unit ? cs : rs;
  *sb = bs;
  *vec = ((uintptr_t)data % 16 == 0) && (*ld % 4 == 0) && (bs % 4 == 0);
  return row_unit;
}

typedef struct plan {
  dlg_sgemm_args args;
  int tile, variant, bm, bn;
  long long batch;
} plan;

/* route_pick_kernel: the kernel variant, tile and split-K for g. */
static void route_pick_kernel(const dlg_cuda_device *dev, const dlg_gemm *g, plan *pl)
{
  dlg_sgemm_args *a = &pl->args;
  const int swap = !dlg_is_colmajor(&g->c);
  /* In the column-major problem X = op1 * op2 with X m' x n'. */
  const dlg_matrix *x1 = swap ? &g->b : &g->a, *x2 = swap ? &g->a : &g->b;
  int a_kc, b_kc, tiles, splits = 1;
  int64_t m = swap ? g->n : g->m, n = swap ? g->m : g->n;

  /* op1(i,l) is A(i,l) = A[i*rs + l*cs], or B^T(i,l) = B[l*rs + i*cs]; it is
   * k-contiguous when its row index i is not the unit stride. */
  a_kc = !operand(x1->data, swap ? x1->cs : x1->rs, swap ? x1->rs : x1->cs, x1->bs, &a->a,
                  &a->lda, &a->sa, &a->vec_a);
  /* op2(l,j) is k-contiguous when its row index l is the unit stride. */
  b_kc = operand(x2->data, swap ? x2->cs : x2->rs, swap ? x2->rs : x2->cs, x2->bs, &a->b,
                 &a->ldb, &a->sb, &a->vec_b);
  a->c = (float *)g->c.data;
  a->ldc = dlg_ld(&g->c);
  a->sc = g->c.bs;
  a->vec_c = ((uintptr_t)a->c % 16 == 0) && a->ldc % 4 == 0 && a->sc % 4 == 0;
  a->m = (int)m, a->n = (int)n, a->k = (int)g->k;
  a->alpha = (float)g->alpha, a->beta = (float)g->beta;

  /* alpha = 0 or k = 0: C = beta * C, and A and B are not read (BLAS reads
   * neither, so an Inf or NaN there must not reach C through 0 * Inf). */
  if (g->alpha == 0 || g->k == 0) a->k = 0;

  /* 128 x 128 tiles unless m or n is too small to fill one (the 64 x 64
   * tile wastes less of a skinny problem).  If the tiles do not give every
   * SM a block and k is long, split k until they do: each split keeps at
   * least 256 (128 for small tiles) of k so the split work outweighs the
   * reduction's pass over C. */
  pl->tile = (m >= 128 && n >= 128) ? DLG_TILE_128 : DLG_TILE_64;
  pl->bm = pl->bn = pl->tile == DLG_TILE_128 ? 128 : 64;
  tiles = (int)(((m + pl->bm - 1) / pl->bm) * ((n + pl->bn - 1) / pl->bn) * g->batch);
  while (tiles * splits < dev->sms && a->k / (splits * 2) >= (pl->bm == 128 ? 256 : 128) &&
         splits < 64)
    splits *= 2;
  /* Each split gets a multiple of 8 of k (whole tiles, aligned vectors);
   * recount so no split is empty.  k = 0 leaves one split of nothing. */
  a->kchunk = (int)(((a->k + splits - 1) / splits + 7) / 8 * 8);
  a->splits = a->kchunk ? (int)((a->k + a->kchunk - 1) / a->kchunk) : 1;
  if (!a->kchunk) a->kchunk = 8;
  pl->variant = a_kc * 2 + b_kc;
  pl->batch = g->batch;
}

static dlgemm_status launched(CUresult r, const char *what)
{
  if (r == CUDA_SUCCESS) return DLGEMM_OK;
  return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA %s failed: %s", what, dlg_cuda_error(r));
}

dlgemm_status dlg_cuda_sgemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  plan pl;
  CUdeviceptr work = 0;
  CUresult r = CUDA_SUCCESS;
  long long b0;
  const long long zmax = 65535;

  if (g->m > INT32_MAX || g->n > INT32_MAX || g->k > INT32_MAX)
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "m, n and k must each fit in 32 bits");
  route_pick_kernel(dev, g, &pl);
  /* The kernels step through A and B in 32-bit strides of 8 leading dimensions. */
  if (pl.args.lda > INT32_MAX / 8 || pl.args.ldb > INT32_MAX / 8)
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "leading dimension above 2^28 elements");
  if (pl.args.splits > 1) {
    size_t bytes = (size_t)pl.args.m * pl.args.n * pl.args.splits * 4 *
                   (size_t)(pl.batch < zmax / pl.args.splits ? pl.batch : zmax / pl.args.splits);
    if ((r = cu->MemAllocAsync(&work, bytes, stream))) return launched(r, "workspace allocation");
  }
  /* grid.z = batch * splits must stay under 65536: launch in batch chunks. */
  for (b0 = 0; b0 < pl.batch && !r; ) {
    dlg_sgemm_args a = pl.args;
    long long nb = pl.batch - b0, per = zmax / a.splits;
    void *params[] = {&a};
    if (nb > per) nb = per;
    a.a += b0 * a.sa, a.b += b0 * a.sb, a.c += b0 * a.sc;
    if (a.splits > 1) a.c = (float *)(uintptr_t)work;
    r = cu->LaunchKernel(dev->sgemm[pl.tile][pl.variant], (unsigned)((a.m + pl.bm - 1) / pl.bm),
                         (unsigned)((a.n + pl.bn - 1) / pl.bn), (unsigned)(nb * a.splits),
                         DLG_SGEMM_THREADS, 1, 1, 0, stream, params, NULL);
    if (!r && a.splits > 1) {
      const float *w = (const float *)(uintptr_t)work;
      float *c = pl.args.c + b0 * pl.args.sc;
      int batches = (int)nb;
      long long total = (long long)a.m * a.n * nb;
      unsigned blocks = (unsigned)((total + 255) / 256 < 4096 ? (total + 255) / 256 : 4096);
      void *rp[] = {&w, &c, &a.m, &a.n, &batches, &a.splits, &pl.args.ldc, &pl.args.sc,
                    &pl.args.beta};
      r = cu->LaunchKernel(dev->splitk_reduce, blocks, 1, 1, 256, 1, 1, 0, stream, rp, NULL);
    }
    b0 += nb;
  }
  if (work) cu->MemFreeAsync(work, stream);
  return launched(r, "kernel launch");
}
