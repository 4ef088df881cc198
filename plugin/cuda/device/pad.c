/*
 * pad.c - copies of misaligned operands (pad.h).
 *
 * An operand whose base, leading dimension or batch stride is not a
 * multiple of 16 bytes keeps the kernels off their fast paths: the wgmma
 * kernels need TMA (16-byte strides), the mma.sync, DMMA and SIMT kernels
 * fall back to element-by-element copies.  Measured on the H100: float16
 * 4097^3 ran at 50 TFLOP/s on mma.sync (cuBLAS 133) against about 700 on
 * wgmma; FP32 4097^3 at 35 against 47 for aligned 4096^3.  A copy to a
 * leading dimension rounded up to 16 bytes moves each element twice (read
 * and write, 4 to 16 bytes of traffic at ~3 TB/s), once per call; the
 * product then saves per flop the difference of the two rates.  For
 * 16-bit inputs on wgmma that pays from about 150 flops per copied
 * element, asked here as 256; for the other kernels, whose aligned paths
 * gain less, 1024.  Squares pass from about n = 512 and n = 1024.  The
 * wgmma kernels also want rows on 128-byte lines (rule_of).
 *
 * The copy is tf32_pack.cu's dlg_pad16 in 16-bit units (an element of
 * es bytes is es / 2 of them), so one kernel serves every real type.
 */
#include <stdint.h>
#include "core/config.h"
#include "cuda/device/driver.h"
#include "cuda/device/hgemm.h"
#include "cuda/device/kernels.h"
#include "cuda/device/orient.h"
#include "cuda/device/pad.h"

/* When a copy pays: an operand breaking 16-byte alignment costs ratio16
 * flops per copied element; on the wgmma kernels one that keeps it but
 * whose rows do not start on 128-byte lines costs ratio_line (TMA fetches
 * each 128-byte box row as two lines then: bfloat16 3000^3 ran in 157 us
 * with leading dimension 3000 and in 90 us with 3008, where the copy of
 * each operand takes about 14) - but only the operand the kernel takes
 * second, the wide tile's (line_a / line_b): with only that one copied the
 * same product ran at 0.84-0.87 of cuBLAS, with both 0.78-0.83, with only
 * the first 0.68, as with none (H100, NN and TN; bench/NOTES.md).  Where
 * the kernel runs its blocks in pairs (hgemm.c), which read such an operand
 * faster than a copy and the product do, nothing is copied to lines.
 * ratio16 = 0: no copies. */
typedef struct pad_rule {
  int line;                 /* bytes the copy's rows start on */
  double ratio16, ratio_line;
  int line_a, line_b;       /* whose rows the line rule applies to */
} pad_rule;

static pad_rule rule_of(dlg_cuda_device *dev, const dlg_gemm *g)
{
  const int pad = dlg_config_get()->pad,
            wgmma = dlg_is_half(g->dtype_in) && !dlg_cuda_kernels(dev, DLG_KERNELS_WGMMA) &&
                    dev->hgemm_wgmma[0][0][0];
  pad_rule r = {wgmma ? 128 : 16, 0, 0, 0, 0};
  if (!wgmma || !dlg_cuda_wgmma_pairs(dev, 0, 0)) {
    dlg_operand op1, op2;
    int64_t m, n;
    /* hgemm.c's order: op2 second, unless it is not k-contiguous or op1 is
     * too; op1 is A for a column-major C, B otherwise (orient.h) */
    dlg_orient(g, &op1, &op2, &m, &n);
    r.line_a = (op2.kc && !op1.kc) != dlg_is_colmajor(&g->c), r.line_b = !r.line_a;
  }
  /* TF32 packs its operands anyway (tf32.c); complex goes elsewhere */
  if (pad == 1 || dlg_is_complex(g->dtype) ||
      (g->dtype_in == DLG_F32 && g->precision != DLGEMM_PRECISION_STRICT) || g->m < 128 ||
      g->n < 128 || g->k == 0 || g->alpha == 0 || dlg_cuda_kernels(dev, DLG_KERNELS_PAD) ||
      !dev->pad16)
    return r;
  if (pad == 2) r.ratio16 = r.ratio_line = 1e-300; /* DLGEMM_PAD=always: any flops */
  else r.ratio16 = wgmma ? 256 : 1024, r.ratio_line = 1024;
  return r;
}

/* One operand's copy: len elements along its contiguous dimension, cols
 * of them, count batch entries (1 when broadcast); cost: flops it must
 * save, 0 when x stays as it is. */
typedef struct padding {
  int64_t len, cols, count, ld;
  size_t bytes;
  double cost;
} padding;

static int on(const dlg_matrix *x, size_t es, size_t grain)
{
  return (uintptr_t)x->data % grain == 0 && (size_t)dlg_ld(x) * es % grain == 0 &&
         (size_t)x->bs * es % grain == 0;
}

static padding padding_of(const dlg_matrix *x, int line, int64_t batch, size_t es,
                          const pad_rule *r)
{
  const int64_t per = (int64_t)(r->line / es);
  const double ratio = !on(x, es, 16)                          ? r->ratio16
                       : line && !on(x, es, (size_t)r->line) ? r->ratio_line
                                                               : 0;
  padding q;
  q.len = dlg_is_colmajor(x) ? x->rows : x->cols;
  q.cols = dlg_is_colmajor(x) ? x->cols : x->rows;
  q.count = x->bs ? batch : 1;
  q.ld = (q.len + per - 1) / per * per;
  q.bytes = ratio == 0 || !x->data ? 0 : (size_t)(q.ld * q.cols * q.count) * es;
  q.cost = ratio * (double)q.bytes / (double)es;
  return q;
}

/* Queue the copy of x into dst and make x name it. */
static CUresult copy(const dlg_cuda_api *cu, const dlg_cuda_device *dev, dlg_matrix *x,
                     const padding *q, size_t es, CUdeviceptr dst, CUstream stream)
{
  const long long h = (long long)(es / 2); /* 16-bit units an element */
  const long long work = (q->len * h + 7) / 8 * q->cols * q->count;
  const long long blocks = (work + DLG_PAD16_THREADS - 1) / DLG_PAD16_THREADS;
  dlg_pad16_args a;
  void *params[] = {&a};
  CUresult r;
  a.src = (const unsigned short *)x->data, a.sld = dlg_ld(x) * h, a.sbs = x->bs * h;
  a.dst = (unsigned short *)(uintptr_t)dst, a.dld = q->ld * h, a.dbs = q->ld * q->cols * h;
  a.len = q->len * h, a.cols = q->cols, a.batch = q->count;
  r = cu->LaunchKernel(dev->pad16, (unsigned)(blocks < 65535 ? blocks : 65535), 1, 1,
                       DLG_PAD16_THREADS, 1, 1, 0, stream, params, NULL);
  x->data = (void *)(uintptr_t)dst;
  if (dlg_is_colmajor(x)) x->cs = q->ld;
  else x->rs = q->ld;
  x->bs = x->bs ? q->ld * q->cols : 0;
  return r;
}

int dlg_cuda_padded(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream, dlg_gemm *out,
                    CUdeviceptr *work)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  const size_t es = dlg_elem_size(g->dtype_in);
  const pad_rule rule = rule_of(dev, g);
  const padding qa = padding_of(&g->a, rule.line_a, g->batch, es, &rule);
  const padding qb = padding_of(&g->b, rule.line_b, g->batch, es, &rule);
  CUresult r = CUDA_SUCCESS;
  *work = 0;
  if (!cu || rule.ratio16 == 0 || qa.bytes + qb.bytes == 0 || dlg_flops(g) < qa.cost + qb.cost)
    return 0;
  if (cu->MemAllocFromPoolAsync(work, qa.bytes + qb.bytes, dev->pool, stream)) return 0;
  *out = *g;
  if (qa.bytes) r = copy(cu, dev, &out->a, &qa, es, *work, stream);
  if (qb.bytes && !r) r = copy(cu, dev, &out->b, &qb, es, *work + qa.bytes, stream);
  if (!r) return 1;
  cu->MemFreeAsync(*work, stream);
  return -1;
}
