/*
 * tf32.c - float32 products under the TF32 and 3xTF32 precision
 * policies, on the tensor-core kernels (launched by hgemm.c).
 *
 * The TF32 kernels read both operands k-contiguous (TF32 wgmma has no
 * transposed form).  So:
 *
 * - TF32: an operand that is k-contiguous and 16-byte aligned goes to the
 *   kernels as it is, the tensor cores reading the top 19 bits of each
 *   value (truncation, as cuBLAS's TF32 does).  On sm_90a one m- or
 *   n-contiguous operand (NN's A) also goes as it is: the wgmma kernels'
 *   rk variant reads it through registers, rounding to nearest TF32.  Any
 *   other operand, or any the wgmma kernels do not take, is first packed
 *   (kernels/cuda/tf32_pack.cu: made k-contiguous, rounded to nearest TF32)
 *   into a workspace.
 * - 3xTF32: both operands are packed as three segments of k, A's rows as
 *   (hi, lo, hi) and B's columns as (lo, hi, hi), so that one TF32 GEMM over
 *   3k sums hi*lo + lo*hi + hi*hi: FP32's accuracy at three tensor-core
 *   products (tf32_pack.cu says why).  On sm_90a its kernel also sums each
 *   k-tile's products apart and adds them in IEEE FP32 (kind TF32X3,
 *   hgemm_wgmma.cu), as the tensor cores' own accumulation would cost
 *   accuracy over a long k.
 *
 * Workspaces come from the device's stream-ordered pool and go back to it
 * on the same stream, so nothing is allocated per call once the pool holds
 * them.  When no workspace can be had, or the device has no TF32 kernels,
 * or there is nothing to multiply (alpha or k of 0), the strict FP32 kernel
 * answers: at least as accurate, and the same C = beta * C.
 */
#include <stdint.h>
#include <string.h>
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/device/hgemm.h"
#include "cuda/device/sgemm.h"
#include "cuda/device/tf32.h"

/* Where a packed operand goes: rows x ld floats per batch entry. */
typedef struct packed {
  int64_t rows, ld, count; /* count: batch entries (1 for a broadcast operand) */
  size_t bytes;
} packed;

static packed packed_size(int64_t rows, int64_t kp, const dlg_operand *o, int64_t batch)
{
  packed p;
  p.rows = rows;
  p.ld = (kp + 31) / 32 * 32; /* 128-byte rows: whole TMA boxes, aligned */
  p.count = o->bs ? batch : 1;
  p.bytes = (size_t)(rows * p.ld * p.count) * 4;
  return p;
}

/* Queue the packing of o (rows x k: element (i, l) at i * ld + l when k is
 * contiguous, else i + l * ld) into dst. */
static CUresult pack(const dlg_cuda_api *cu, dlg_cuda_device *dev, const dlg_operand *o,
                     const packed *p, int64_t k, int segs, int lo_mask, CUdeviceptr dst,
                     CUstream stream)
{
  dlg_tf32_pack_args a;
  int batch = (int)(p->count < INT32_MAX ? p->count : INT32_MAX);
  void *params[] = {&a, &batch};
  const int64_t tiles_k = (k + DLG_TF32_PACK_TILE - 1) / DLG_TF32_PACK_TILE;
  const int64_t tiles_r = (p->rows + DLG_TF32_PACK_TILE - 1) / DLG_TF32_PACK_TILE;
  a.src = (const float *)o->data;
  a.rs = o->kc ? o->ld : 1;
  a.ks = o->kc ? 1 : o->ld;
  a.bs = o->bs;
  a.dst = (float *)(uintptr_t)dst;
  a.ld = p->ld;
  a.dbs = p->rows * p->ld;
  a.rows = (int)p->rows, a.k = (int)k, a.segs = segs, a.lo_mask = lo_mask;
  return cu->LaunchKernel(dev->tf32_pack, (unsigned)tiles_k,
                          (unsigned)(tiles_r < 65535 ? tiles_r : 65535),
                          (unsigned)(batch < 65535 ? batch : 65535), DLG_TF32_PACK_TILE,
                          DLG_TF32_PACK_ROWS, 1, 0, stream, params, NULL);
}

/* o as the kernels see a TF32 operand: 16-bit units (hgemm_args.h). */
static dlg_operand halves(dlg_operand o)
{
  o.ld *= 2, o.bs *= 2;
  return o;
}

/* The kernels' arguments for the m x n product of op1 and op2 (16-bit
 * units) over kp values of k, into C of g. */
static void tf32_args(dlg_hgemm_args *a, const dlg_gemm *g, int64_t m, int64_t n, int64_t kp,
                      const dlg_operand *op1, const dlg_operand *op2)
{
  memset(a, 0, sizeof *a);
  a->m = (int)m, a->n = (int)n, a->k = (int)(2 * kp);
  a->alpha = (float)g->alpha, a->beta = (float)g->beta;
  a->a = op1->data, a->lda = op1->ld, a->sa = op1->bs, a->vec_a = 1;
  a->b = op2->data, a->ldb = op2->ld, a->sb = op2->bs, a->vec_b = 1;
  a->c = g->c.data, a->ldc = dlg_ld(&g->c), a->sc = g->c.bs;
  a->c_type = DLG_HOUT_F32;
}

dlgemm_status dlg_cuda_tf32(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  const int three = g->precision == DLGEMM_PRECISION_3XTF32, segs = three ? 3 : 1;
  const int64_t kp = segs * g->k;
  dlg_operand op1, op2;
  dlg_hgemm_args a;
  int64_t m, n;
  int pack1, pack2;
  packed p1, p2;
  CUdeviceptr work = 0;
  CUresult r = CUDA_SUCCESS;
  dlgemm_status st;

  dlg_orient(g, &op1, &op2, &m, &n);
  if (!cu || !dev->tf32_pack || !dev->hgemm_mma[DLG_TC_TF32][3] || g->alpha == 0 || g->k == 0 ||
      m > INT32_MAX || n > INT32_MAX || 2 * kp > INT32_MAX)
    return dlg_cuda_sgemm(dev, g, stream);
  if (m == 0 || n == 0 || g->batch == 0) return DLGEMM_OK;
  if (!three && op1.vec && op2.vec && op1.kc != op2.kc) { /* one operand m- or n-contiguous */
    const dlg_operand h1 = halves(op1), h2 = halves(op2);
    tf32_args(&a, g, m, n, kp, &h1, &h2);
    switch (dlg_cuda_wgmma_launch(dev, DLG_TC_TF32, g->batch, &h1, &h2, &a, stream, &r)) {
    case 1: return DLGEMM_OK;
    case -1:
      return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed: %s", dlg_cuda_error(r));
    }
  }
  pack1 = three || !op1.kc || !op1.vec;
  pack2 = three || !op2.kc || !op2.vec;
  p1 = packed_size(m, kp, &op1, g->batch);
  p2 = packed_size(n, kp, &op2, g->batch);
  if ((pack1 || pack2) &&
      cu->MemAllocFromPoolAsync(&work, (pack1 ? p1.bytes : 0) + (pack2 ? p2.bytes : 0), dev->pool,
                                stream))
    return dlg_cuda_sgemm(dev, g, stream); /* no workspace: the strict kernel needs none */
  /* A's segments (hi, lo, hi), B's (lo, hi, hi): bit s set = low part */
  if (pack1) r = pack(cu, dev, &op1, &p1, g->k, segs, three ? 2 : 0, work, stream);
  if (pack2 && !r)
    r = pack(cu, dev, &op2, &p2, g->k, segs, three ? 1 : 0, work + (pack1 ? p1.bytes : 0), stream);
  if (pack1) {
    op1.data = (const void *)(uintptr_t)work;
    op1.ld = p1.ld, op1.bs = op1.bs ? p1.rows * p1.ld : 0, op1.kc = op1.vec = 1;
  }
  if (pack2) {
    op2.data = (const void *)(uintptr_t)(work + (pack1 ? p1.bytes : 0));
    op2.ld = p2.ld, op2.bs = op2.bs ? p2.rows * p2.ld : 0, op2.kc = op2.vec = 1;
  }
  op1 = halves(op1), op2 = halves(op2);
  tf32_args(&a, g, m, n, kp, &op1, &op2);
  st = r ? dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed: %s", dlg_cuda_error(r))
         : dlg_cuda_tc_run(dev, three ? DLG_TC_TF32X3 : DLG_TC_TF32, g->batch, &op1, &op2, &a,
                           stream);
  if (work) cu->MemFreeAsync(work, stream);
  return st;
}
