/*
 * describe.c - a cuBLAS product as the DLTensors dlgemm multiplies.
 *
 * cuBLAS is column-major: element (r, c) of an ld-strided matrix is at
 * r + c * ld, and op(A) = A^T reads the stored k x m matrix across.  Only
 * what dlgemm computes as cuBLAS would is described: FP32 strict where
 * cuBLAS is strict and TF32 where the handle or compute type allows it,
 * 16-bit inputs with FP32 accumulation, FP64.  Everything else (complex,
 * integer and FP8 types, 16-bit or TF32-emulating compute types) is left
 * to the rival, and so is any argument that cuBLAS would reject, so that the
 * rival reports it.
 */
#include "shims/cublas/describe.h"

int dlg_cublas_op(cublasOperation_t op)
{
  return op == CUBLAS_OP_N ? 0 : (op == CUBLAS_OP_T || op == CUBLAS_OP_C) ? 1 : -1;
}

/* DLPack's code and bits of a cuBLAS type dlgemm takes; 0 for the others. */
static int dl_type(cudaDataType t, uint8_t *code, uint8_t *bits)
{
  switch (t) {
  case CUDA_R_32F: *code = kDLFloat; *bits = 32; return 1;
  case CUDA_R_64F: *code = kDLFloat; *bits = 64; return 1;
  case CUDA_R_16F: *code = kDLFloat; *bits = 16; return 1;
  case CUDA_R_16BF: *code = kDLBfloat; *bits = 16; return 1;
  default: return 0;
  }
}

/* The precision dlgemm computes p in, or -1 where it has none that matches. */
static int precision_of(const cublas_product *p)
{
  if (p->type_ab == CUDA_R_64F)
    return (p->compute == CUBLAS_COMPUTE_64F || p->compute == CUBLAS_COMPUTE_64F_PEDANTIC) &&
           p->type_c == CUDA_R_64F && p->scale_type == CUDA_R_64F ? DLGEMM_PRECISION_STRICT : -1;
  if (p->scale_type != CUDA_R_32F) return -1;
  if (p->type_ab == CUDA_R_32F) {
    if (p->type_c != CUDA_R_32F) return -1;
    if (p->compute == CUBLAS_COMPUTE_32F_FAST_TF32) return DLGEMM_PRECISION_TF32;
    if (p->compute == CUBLAS_COMPUTE_32F_PEDANTIC) return DLGEMM_PRECISION_STRICT;
    if (p->compute == CUBLAS_COMPUTE_32F)
      return p->tf32_allowed ? DLGEMM_PRECISION_TF32 : DLGEMM_PRECISION_STRICT;
    return -1;
  }
  /* float16 / bfloat16 in, the same or FP32 out, FP32 accumulation */
  if (p->type_c != p->type_ab && p->type_c != CUDA_R_32F) return -1;
  return p->compute == CUBLAS_COMPUTE_32F || p->compute == CUBLAS_COMPUTE_32F_PEDANTIC
             ? DLGEMM_PRECISION_STRICT : -1;
}

int dlg_cublas_describe(const cublas_product *p, dlg_rival_call *call)
{
  uint8_t code_ab, bits_ab, code_c, bits_c;
  int64_t rows_a = p->ta ? p->k : p->m, rows_b = p->tb ? p->n : p->k;
  int precision = precision_of(p);
  if (precision < 0 || !dl_type(p->type_ab, &code_ab, &bits_ab) ||
      !dl_type(p->type_c, &code_c, &bits_c))
    return 0;
  if (p->m <= 0 || p->n <= 0 || p->k <= 0 || p->batch <= 0 || !p->alpha || !p->beta ||
      p->lda < (rows_a > 1 ? rows_a : 1) || p->ldb < (rows_b > 1 ? rows_b : 1) ||
      p->ldc < (p->m > 1 ? p->m : 1) || (p->batch > 1 && p->stride_c < p->ldc * p->n) ||
      p->stride_a < 0 || p->stride_b < 0)
    return 0;
  if (p->scale_type == CUDA_R_64F) {
    call->alpha = *(const double *)p->alpha;
    call->beta = *(const double *)p->beta;
  } else {
    call->alpha = *(const float *)p->alpha;
    call->beta = *(const float *)p->beta;
  }
  call->precision = (dlgemm_precision)precision;
  call->stream = p->stream;
  dlg_rival_operand(call, 0, p->a, code_ab, bits_ab, p->batch, p->stride_a, p->m, p->k,
                    p->ta ? p->lda : 1, p->ta ? 1 : p->lda);
  dlg_rival_operand(call, 1, p->b, code_ab, bits_ab, p->batch, p->stride_b, p->k, p->n,
                    p->tb ? p->ldb : 1, p->tb ? 1 : p->ldb);
  dlg_rival_operand(call, 2, p->c, code_c, bits_c, p->batch, p->stride_c, p->m, p->n, 1, p->ldc);
  return 1;
}
