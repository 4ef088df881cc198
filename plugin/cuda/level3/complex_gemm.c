/*
 * complex_gemm.c - complex64 / complex128 tensors on the GPU, through the
 * complex GEMM the level-3 routines already have rather than a kernel
 * family of their own.
 *
 * Each batch entry is the column-major GEMM a BLAS would be given
 * (dlg_level3_of_gemm: a row-major C is the transposed problem, layouts
 * are 'N' / 'T').  On device memory that is blas3.c's product on views of
 * the caller's matrices, on the caller's stream: one real GEMM (cgemm.c:
 * the operand that weighs least packed, the others read in place); a
 * batch is one such real GEMM over every entry (in chunks of at most
 * 65535 entries and 256 MB of workspace).  On
 * host memory it is offload.c's trip, one per entry, each of which leaves
 * the caller's arrays untouched when it fails; so a failure at the first
 * entry goes back to the caller (who falls back), and one at a later entry
 * leaves the rest to the next BLAS, as the real engine does with its tiles.
 *
 * Products whose m, n and k are all 64 or less go to the tiny kernels
 * instead (cuda/device/tiny.c), the whole batch in one launch - except the
 * batches cgemm.c's rules give to the complex DMMA kernels or to
 * complex64's FFMA tiles (tiny_first).  Under DLGEMM_NARROW_COMPLEX=on a C
 * at most 16 wide on one side (8 for complex128) against 256 or more of
 * the other and of k goes to the narrow kernels (cuda/device/narrow.c):
 * one launch, no packing pass.
 *
 * The imaginary parts of alpha and beta are 0: dlgemm_matmul's are real.
 */
#include <stdint.h>
#include "core/config.h"
#include "core/errors.h"
#include "core/level3.h"
#include "cpu/backend.h"
#include "cuda/device/narrow.h"
#include "cuda/device/tiny.h"
#include "cuda/level3/blas3.h"
#include "cuda/level3/cgemm.h"
#include "cuda/level3/complex_gemm.h"
#include "cuda/level3/csimt.h"
#include "cuda/level3/zdmma.h"
#include "cuda/level3/offload.h"

/* The column-major rows x cols matrix op(X) is read from, X stored with
 * leading dimension ld: X itself for 'N', X^T's storage for 'T'. */
static dlg_dview stored(const void *p, char trans, int64_t rows, int64_t cols, int64_t ld)
{
  const dlg_dview v = {(CUdeviceptr)(uintptr_t)p, trans == 'N' ? rows : cols,
                       trans == 'N' ? cols : rows, 1, ld};
  return v;
}

/* op(X), rows x cols, of X stored column-major with leading dimension ld. */
static dlg_dview op_view(const void *p, char trans, int64_t rows, int64_t cols, int64_t ld)
{
  const dlg_dview x = stored(p, trans, rows, cols, ld);
  return trans == 'N' ? x : dlg_step_transposed(x);
}

/* Entries of one batched product: the small kernels' grid holds 65535,
 * and the workspace (cgemm.c's packed operands and scratch products)
 * stays under BATCH_BYTES. */
#define BATCH_BYTES ((size_t)256 << 20)

/* A batch as batched real products (cgemm.h), in chunks: as large as the
 * way cgemm.c takes lets its workspace be.  Chunks sized by the
 * embedding's workspace where the complex DMMA kernels took the batch had
 * cut complex128 attention values (2048 x 128 x 2048, 16 heads) into 16
 * launches of 64 tiles each, 1024^3 x 16 into six of 2.9 waves (H100 ncu,
 * session 44). */
static void batched(dlg_factor_run *r, const dlg_gemm *g)
{
  const dlg_level3 x = dlg_level3_of_gemm(g, 0);
  const int c_col = dlg_is_colmajor(&g->c);
  const int64_t sa = (c_col ? &g->a : &g->b)->bs, sb = (c_col ? &g->b : &g->a)->bs, sc = g->c.bs;
  const size_t entry = dlg_cuda_cgemm_entry_bytes(
      r, op_view(x.a, x.transa, x.m, x.k, x.lda), sa, 0, op_view(x.b, x.transb, x.k, x.n, x.ldb),
      sb, 0, x.beta[0], op_view(x.c, 'N', x.m, x.n, x.ldc), sc, g->batch);
  const size_t fit = entry ? BATCH_BYTES / entry : 65535;
  const int64_t chunk = fit < 1 ? 1 : fit > 65535 ? 65535 : (int64_t)fit;
  int64_t p;
  for (p = 0; p < g->batch && !r->status; p += chunk) {
    const dlg_level3 y = dlg_level3_of_gemm(g, p);
    dlg_cuda_blas3_complex_batch(r, y.alpha, op_view(y.a, y.transa, y.m, y.k, y.lda), sa, 0,
                                 op_view(y.b, y.transb, y.k, y.n, y.ldb), sb, 0, y.beta[0],
                                 op_view(y.c, 'N', y.m, y.n, y.ldc), sc,
                                 g->batch - p < chunk ? g->batch - p : chunk);
  }
}

/* The tiny kernels, unless (auto) the batch is one cgemm.c's rules give
 * to the complex DMMA kernels (asked with its stricter bound: at the tiny
 * kernels' sizes both hold, and it is C 16 or more on each side for
 * complex128, 48 for complex64) or to complex64's FFMA tiles.  complex128
 * 48^3 and 64^3 batched ran at 1.04-1.11 of cuBLAS on the DMMA kernels,
 * 0.30-0.52 on the tiny kernels (H200, session 35), 16^3-32^3 0.61-1.24 on
 * their 32 x 32 tile, 0.36-0.80 on the tiny kernels (session 39);
 * complex64 32^3 0.88-1.14 on the FFMA tiles, 0.54-0.67 on the tiny
 * kernels (session 38). */
static int tiny_first(dlg_cuda_device *dev, const dlg_gemm *g)
{
  const dlg_config *c = dlg_config_get();
  const int own = c->tiny == 1 && g->k > 0 && g->alpha != 0, way = c->cgemm_way;
  const int native = own && (way == 0 || way == 5) &&
                     dlg_cuda_cgemm_native_wins(g->dtype, g->m, g->n, g->k, 1, g->batch);
  const int simt = own && (way == 0 || way == 8) &&
                   dlg_cuda_cgemm_simt_wins(g->dtype, g->m, g->n, g->k, g->batch);
  return dlg_cuda_tiny_takes(dev, g) && !(native && dlg_cuda_zdmma_ready(dev, g->dtype)) &&
         !(simt && dlg_cuda_csimt_ready(dev, g->dtype));
}

dlgemm_status dlg_cuda_complex_device(dlg_cuda_device *dev, const dlg_cuda_api *cu,
                                      const dlg_gemm *g, CUstream stream)
{
  dlg_factor_run r = {0};
  int64_t p;
  if (tiny_first(dev, g)) return dlg_cuda_tiny(dev, g, stream);
  if (dlg_cuda_narrow_takes(dev, g)) return dlg_cuda_narrow(dev, g, stream);
  r.dev = dev, r.cu = cu, r.stream = stream, r.dtype = g->dtype, r.precision = g->precision;
  if (g->batch > 1 && g->k > 0 && g->alpha != 0) {
    batched(&r, g);
    return r.status;
  }
  for (p = 0; p < g->batch && !r.status; p++) {
    const dlg_level3 x = dlg_level3_of_gemm(g, p);
    const dlg_dview none = {0};
    dlg_cuda_blas3(&r, &x, stored(x.a, x.transa, x.m, x.k, x.lda),
                   stored(x.b, x.transb, x.k, x.n, x.ldb), stored(x.c, 'N', x.m, x.n, x.ldc),
                   none);
  }
  return r.status;
}

dlgemm_status dlg_cuda_complex_host(const dlg_gemm *g)
{
  const size_t es = dlg_elem_size(g->dtype);
  char why[256];
  dlg_gemm rest;
  dlgemm_status st = DLGEMM_OK;
  int64_t p;
  for (p = 0; p < g->batch && !st; p++) {
    dlg_level3 x = dlg_level3_of_gemm(g, p);
    st = dlg_cuda_level3(&x);
  }
  if (!st || p == 1) return st;
  /* entry p - 1 failed with its C as it was; those before it are done */
  dlg_copy_text(why, sizeof why, dlgemm_last_error());
  rest = *g;
  rest.batch = g->batch - (p - 1);
  rest.a.data = dlg_batch_at(&g->a, p - 1, es), rest.b.data = dlg_batch_at(&g->b, p - 1, es);
  rest.c.data = dlg_batch_at(&g->c, p - 1, es);
  if ((st = dlg_backend_cpu.run(&rest))) return st;
  dlg_note("fallback: %s; %lld of %lld batch entries finished on the next BLAS", why,
           (long long)rest.batch, (long long)g->batch);
  return DLGEMM_OK;
}
