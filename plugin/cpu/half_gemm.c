/*
 * half_gemm.c - float16 / bfloat16 GEMM on host memory, through the next
 * BLAS's SGEMM.
 *
 * No BLAS has a half-precision GEMM, and what the GPU kernels compute is
 * FP32 accumulation of exact products (a product of two halves is exact in
 * float), so the host answer is that: A and B widened to float, multiplied
 * by SGEMM with alpha 1 and beta 0, and then alpha * product + beta * C in
 * float, rounded once to C's type - the kernels' epilogue, step for step.
 * beta == 0 does not read C.
 */
#include <math.h>
#include <stdlib.h>
#include "core/errors.h"
#include "core/half.h"
#include "cpu/blas.h"
#include "cpu/half_gemm.h"

static float load(dlg_dtype t, const void *base, size_t i)
{
  const uint16_t h = ((const uint16_t *)base)[i];
  return t == DLG_BF16 ? dlg_bf16_to_float(h) : dlg_f16_to_float(h);
}

static float load_c(dlg_dtype t, const void *base, size_t i)
{
  return t == DLG_F32 ? ((const float *)base)[i] : load(t, base, i);
}

static void store_c(dlg_dtype t, void *base, size_t i, float v)
{
  if (t == DLG_F32)
    ((float *)base)[i] = v;
  else
    ((uint16_t *)base)[i] = t == DLG_BF16 ? dlg_float_to_bf16(v) : dlg_float_to_f16(v);
}

/* x (batch entry p) widened into out, compact with x's orientation; the
 * returned view describes out. */
static dlg_matrix widen(const dlg_matrix *x, dlg_dtype t, int64_t p, float *out)
{
  const char *base = dlg_batch_at(x, p, 2);
  /* a single column is stored column-major whatever its strides said: its
   * compact row-major form (rs = 1) would read as column-major with ld 1 */
  const int col = dlg_is_colmajor(x) || x->cols == 1;
  dlg_matrix w = *x;
  int64_t i, j;
  for (j = 0; j < x->cols; j++)
    for (i = 0; i < x->rows; i++)
      out[col ? i + j * x->rows : i * x->cols + j] = load(t, base, (size_t)(i * x->rs + j * x->cs));
  w.data = out;
  w.rs = col ? 1 : x->cols;
  w.cs = col ? (x->rows > 1 ? x->rows : 1) : 1;
  w.bs = 0;
  return w;
}

dlgemm_status dlg_cpu_half_gemm(const dlg_gemm *g, dlgemm_status (*sgemm)(const dlg_gemm *))
{
  /* alpha == 0 or k == 0: C = beta * C, A and B not read (BLAS semantics) */
  const int product = g->k && g->alpha != 0;
  const size_t mk = product ? (size_t)(g->m * g->k) : 0, kn = product ? (size_t)(g->k * g->n) : 0;
  const size_t mn = (size_t)(g->m * g->n), es = dlg_elem_size(g->dtype);
  const float alpha = (float)g->alpha, beta = (float)g->beta;
  float *buf, *t;
  dlgemm_status st = DLGEMM_OK;
  dlg_gemm f = *g;
  int64_t p, i, j;
  if (!g->m || !g->n) return DLGEMM_OK;
  if (!(buf = malloc((mk + kn + mn) * sizeof(float))))
    return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "out of host memory widening %s operands "
                    "(%zu floats)", g->dtype_in == DLG_BF16 ? "bfloat16" : "float16",
                    mk + kn + mn);
  t = buf + mk + kn;
  f.dtype = f.dtype_in = DLG_F32;
  f.batch = 1;
  f.alpha = 1, f.beta = 0;
  f.c.data = t, f.c.rs = 1, f.c.cs = g->m > 1 ? g->m : 1, f.c.bs = 0;
  if (!product)
    for (i = 0; i < (int64_t)mn; i++) t[i] = 0;
  for (p = 0; p < g->batch && !st; p++) {
    char *c = dlg_batch_at(&g->c, p, es);
    if (product) {
      /* a broadcast operand (batch stride 0) is widened once */
      if (p == 0 || g->a.bs) f.a = widen(&g->a, g->dtype_in, p, buf);
      if (p == 0 || g->b.bs) f.b = widen(&g->b, g->dtype_in, p, buf + mk);
      st = sgemm(&f);
    }
    for (j = 0; j < g->n && !st; j++)
      for (i = 0; i < g->m; i++) {
        const size_t at = (size_t)(i * g->c.rs + j * g->c.cs);
        float r = alpha * t[i + j * g->m];
        if (beta != 0.f) r = fmaf(beta, load_c(g->dtype, c, at), r);
        store_c(g->dtype, c, at, r);
      }
  }
  free(buf);
  return st;
}
