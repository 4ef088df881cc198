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
 *   rk variant reads it through registers, rounding to nearest TF32; with
 *   both so, the smaller is packed and the larger goes as it is.  Any
 *   other operand, or any the wgmma kernels do not take, is first packed
 *   (kernels/cuda/tf32_pack.cu: made k-contiguous, rounded to nearest TF32)
 *   into a workspace.
 * - 3xTF32: both operands are packed as three segments of k, A's rows as
 *   (hi, lo, hi) and B's columns as (lo, hi, hi), so that one TF32 GEMM over
 *   3k sums hi*lo + lo*hi + hi*hi: FP32's accuracy at three tensor-core
 *   products (tf32_pack.cu says why).  On sm_90a its kernel also sums each
 *   k-tile's products apart and adds them in IEEE FP32 (kind TF32X3,
 *   hgemm_wgmma.cu), as the tensor cores' own accumulation would cost
 *   accuracy over a long k.  A product the strict FP32 kernels are
 *   expected to finish sooner (a narrow one, whose packing would move the
 *   wide operand seven times: strict_sooner) goes to them instead.
 *
 * Workspaces come from the device's stream-ordered pool and go back to it
 * on the same stream, so nothing is allocated per call once the pool holds
 * them.  When no workspace can be had, or the device has no TF32 kernels,
 * or there is nothing to multiply (alpha or k of 0), the strict FP32 kernel
 * answers: at least as accurate, and the same C = beta * C.
 */
#include <math.h>
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

/* Whether strict FP32 is expected to finish a 3xTF32 product sooner: the
 * packing writes and the GEMM reads three segments of both operands, 28
 * bytes per element of A and B at HBM's rate, before the tensor cores
 * start on tiles of 128, where the FP32 kernels read each element once.  A
 * product 384 or fewer wide streams its wide operand at a few flops per
 * byte: 4096 x 24..96 x 4096 ran at 0.07-0.18 of cuBLAS SGEMM packed
 * (H100, the sweep, bench/NOTES.md), the strict kernels at 0.73-1.07.
 * Rates in bytes and flops per microsecond, measured at 8192^3 (SGEMM 45
 * T, 3xTF32 110 T) and on streams (2.5 TB/s); only their ratios matter. */
static int strict_sooner(const dlg_gemm *g, int64_t m, int64_t n)
{
  const double HBM = 2.5e6, SIMT = 45e6, TC3 = 110e6;
  const double k = (double)g->k, b = (double)g->batch;
  const double mp = (double)((m + 127) / 128 * 128), np = (double)((n + 127) / 128 * 128);
  const double io = (double)(m + n) * k * b, c = (double)m * (double)n * b * 4;
  const double packed = 16 * io / HBM + fmax(12 * io / HBM, 2 * mp * np * k * b / TC3);
  const double strict = fmax(2.0 * (double)m * (double)n * k * b / SIMT, (4 * io + c) / HBM);
  return strict < packed;
}

/* The segments of o packed k-contiguous into a workspace from the pool
 * (*work, at `off` bytes of it); o then points there. */
static CUresult pack_into(const dlg_cuda_api *cu, dlg_cuda_device *dev, dlg_operand *o,
                          int64_t rows, const dlg_gemm *g, int segs, int lo_mask,
                          CUdeviceptr at, CUstream stream)
{
  const packed p = packed_size(rows, segs * g->k, o, g->batch);
  const CUresult r = pack(cu, dev, o, &p, g->k, segs, lo_mask, at, stream);
  o->data = (const void *)(uintptr_t)at;
  o->ld = p.ld, o->bs = o->bs ? p.rows * p.ld : 0, o->kc = o->vec = 1;
  return r;
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
  int pack1, pack2, keep1, keep2;
  size_t bytes1, bytes2;
  CUdeviceptr work = 0, more = 0;
  CUresult r = CUDA_SUCCESS;
  dlgemm_status st;

  if ((st = dlg_cuda_tc_kernels(dev))) return st;
  dlg_orient(g, &op1, &op2, &m, &n);
  if (!cu || !dev->tf32_pack || !dev->hgemm_mma[0][DLG_TC_TF32][3] || g->alpha == 0 || g->k == 0 ||
      m > INT32_MAX || n > INT32_MAX || 2 * kp > INT32_MAX || (three && strict_sooner(g, m, n)))
    return dlg_cuda_sgemm(dev, g, stream);
  if (m == 0 || n == 0 || g->batch == 0) return DLGEMM_OK;
  /* TF32 on sm_90a: one m- or n-contiguous operand goes to the wgmma
   * kernels as it is (their rk variant, `keep`); with both so, the smaller
   * is packed and the larger, often a product's whole traffic, read once
   * (TF32 4096 x 128..384 x 4096 NT: 0.32-0.64 of cuBLAS with both packed) */
  keep1 = !three && op1.vec && !op1.kc && dev->hgemm_wgmma[0][DLG_TC_TF32][1];
  keep2 = !three && op2.vec && !op2.kc && dev->hgemm_wgmma[0][DLG_TC_TF32][1];
  if (keep1 && keep2) keep1 = m >= n, keep2 = !keep1;
  pack1 = !keep1 && (three || !op1.kc || !op1.vec);
  pack2 = !keep2 && (three || !op2.kc || !op2.vec);
  bytes1 = pack1 ? packed_size(m, kp, &op1, g->batch).bytes : 0;
  bytes2 = pack2 ? packed_size(n, kp, &op2, g->batch).bytes : 0;
  if ((pack1 || pack2) && cu->MemAllocFromPoolAsync(&work, bytes1 + bytes2, dev->pool, stream))
    return dlg_cuda_sgemm(dev, g, stream); /* no workspace: the strict kernel needs none */
  /* A's segments (hi, lo, hi), B's (lo, hi, hi): bit s set = low part */
  if (pack1) r = pack_into(cu, dev, &op1, m, g, segs, three ? 2 : 0, work, stream);
  if (pack2 && !r) r = pack_into(cu, dev, &op2, n, g, segs, three ? 1 : 0, work + bytes1, stream);
  if (!r && !three && op1.kc != op2.kc) { /* one operand as it is: the wgmma kernels only */
    const dlg_operand h1 = halves(op1), h2 = halves(op2);
    int taken;
    tf32_args(&a, g, m, n, kp, &h1, &h2);
    taken = dlg_cuda_wgmma_launch(dev, DLG_TC_TF32, g->batch, &h1, &h2, &a, stream, &r);
    if (taken) {
      st = taken > 0 ? DLGEMM_OK
                     : dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed: %s",
                                dlg_cuda_error(r));
      goto out;
    }
    r = CUDA_SUCCESS; /* not taken: the other operand packed too, for the mma.sync kernels */
    {
      dlg_operand *o = op1.kc ? &op2 : &op1;
      const int64_t rows = op1.kc ? n : m;
      if (cu->MemAllocFromPoolAsync(&more, packed_size(rows, kp, o, g->batch).bytes, dev->pool,
                                    stream)) {
        if (work) cu->MemFreeAsync(work, stream);
        return dlg_cuda_sgemm(dev, g, stream);
      }
      r = pack_into(cu, dev, o, rows, g, segs, 0, more, stream);
    }
  }
  if (r) {
    st = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed: %s", dlg_cuda_error(r));
  } else {
    op1 = halves(op1), op2 = halves(op2);
    tf32_args(&a, g, m, n, kp, &op1, &op2);
    st = dlg_cuda_tc_run(dev, three ? DLG_TC_TF32X3 : DLG_TC_TF32, g->batch, &op1, &op2, &a,
                         stream);
  }
out:
  if (more) cu->MemFreeAsync(more, stream);
  if (work) cu->MemFreeAsync(work, stream);
  return st;
}
