/*
 * blas3.h - the level-3 routines on device memory (blas3.c): every one
 * made of GEMMs on our kernels and level3.cu's small kernels, in the four
 * types.
 */
#ifndef DLG_CUDA_BLAS3_H
#define DLG_CUDA_BLAS3_H

#include "core/level3.h"
#include "cuda/lapack/steps.h"

/* A's device copy (as the routine reads it) made what dlg_cuda_blas3
 * multiplies by: SYMM's and HEMM's full matrix, TRMM's full triangular one
 * (the triangle not read is overwritten); nothing for the others.  Once per
 * call, before dlg_cuda_blas3. */
void dlg_cuda_blas3_prepare(dlg_factor_run *r, const dlg_level3 *x, dlg_dview a);

/* x computed on device copies of its matrices: a (prepared), b, c (C, or
 * TRMM's and TRSM's B, in and out), and w, TRMM's result (C's shape; TRMM
 * leaves c as it was).  Views column-major; r->dtype is x->dtype.  Any
 * block of C's columns (of its rows where A is on the right) is the same
 * call on the block, with x's n (m) and b's, c's, w's views cut alike (not so for
 * the rank-k updates, whose C is a triangle). */
void dlg_cuda_blas3(dlg_factor_run *r, const dlg_level3 *x, dlg_dview a, dlg_dview b, dlg_dview c,
                    dlg_dview w);

/* TRSM's rows [i0, i1) of its canonical X (left: B's rows; right: its
 * columns), once the rows they depend on are solved: those before i0 when
 * dlg_cuda_blas3_trsm_forward(x), after i1 otherwise.  Reads A's triangle
 * only in those rows (right: columns) and up to the diagonal block: a host
 * pipeline can bring A and B over block by block in that order.  The whole
 * TRSM is the one block [0, order of A). */
int dlg_cuda_blas3_trsm_forward(const dlg_level3 *x);

/* TRSM's op(A) is solved as its transpose (right: X op(A) = B is
 * op(A)^T X^T = B^T), so A's rows are its columns. */
static inline int dlg_level3_trsm_transposed(const dlg_level3 *x)
{
  return x->right ? x->transa == 'N' : x->transa != 'N';
}
void dlg_cuda_blas3_trsm_rows(dlg_factor_run *r, const dlg_level3 *x, dlg_dview a, dlg_dview c,
                              int64_t i0, int64_t i1);

#endif
