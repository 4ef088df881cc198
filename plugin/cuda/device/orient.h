/*
 * orient.h - a dlg_gemm on device memory as the column-major problem
 * the CUDA kernels compute, whatever its layouts: a row-major C is computed
 * as C^T = B^T A^T.  Shared by the FP32, FP64 and tensor-core launchers.
 */
#ifndef DLG_CUDA_ORIENT_H
#define DLG_CUDA_ORIENT_H

#include <stdint.h>
#include "core/gemm.h"

/* One operand of X = op1 * op2 (X m x n, column-major): its data, leading
 * dimension and batch stride, whether k is its contiguous dimension, and
 * whether 16-byte accesses are legal (base, ld and batch stride aligned). */
typedef struct dlg_operand {
  const void *data;
  long long ld, bs;
  int kc, vec;
} dlg_operand;

static inline dlg_operand dlg_operand_of(const void *data, int64_t rs, int64_t cs, int64_t bs,
                                         int kc_when_row_unit, size_t es)
{
  dlg_operand o;
  const int row_unit = rs == 1;
  const long long per16 = (long long)(16 / es);
  o.data = data;
  o.ld = row_unit ? cs : rs;
  o.bs = bs;
  o.kc = row_unit == kc_when_row_unit;
  o.vec = ((uintptr_t)data % 16 == 0) && o.ld % per16 == 0 && bs % per16 == 0;
  return o;
}

/* g as X = op1 * op2 with X = C (column-major C) or C^T (row-major C). */
static inline void dlg_orient(const dlg_gemm *g, dlg_operand *op1, dlg_operand *op2, int64_t *m,
                              int64_t *n)
{
  const int swap = !dlg_is_colmajor(&g->c);
  const dlg_matrix *x1 = swap ? &g->b : &g->a, *x2 = swap ? &g->a : &g->b;
  const size_t es = dlg_elem_size(g->dtype_in);
  /* op1(i,l) is A(i,l) = A[i*rs + l*cs], or B^T(i,l) = B[l*rs + i*cs]; it is
   * k-contiguous when its row index i is not the unit stride.  op2(l,j) is
   * k-contiguous when its row index l is the unit stride. */
  *op1 = dlg_operand_of(x1->data, swap ? x1->cs : x1->rs, swap ? x1->rs : x1->cs, x1->bs, 0, es);
  *op2 = dlg_operand_of(x2->data, swap ? x2->cs : x2->rs, swap ? x2->rs : x2->cs, x2->bs, 1, es);
  *m = swap ? g->n : g->m;
  *n = swap ? g->m : g->n;
}

#endif
