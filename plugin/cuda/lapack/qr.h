/*
 * qr.h - QR on device memory, blocked with recursive panels, and the
 * application of its Q, the products on the GEMM kernels (qr.c).
 */
#ifndef DLG_CUDA_QR_H
#define DLG_CUDA_QR_H

#include "cuda/lapack/steps.h"

/* A = Q R in place as DGEQRF leaves it (R on and above the diagonal, the
 * Householder vectors below it, TAU in run->tau); qr.c.  run->work holds
 * dlg_cuda_geqrf_work(m, n, element size) bytes. */
void dlg_cuda_geqrf(dlg_factor_run *run, dlg_dview a);
size_t dlg_cuda_geqrf_work(int64_t m, int64_t n, size_t es);

/* c = op(Q) c (left) or c op(Q) (right), op(Q) = Q^T where trans, Q the
 * product of a's reflectors as DGEQRF left them (a: nq x k, the rows of c
 * from the left, its columns from the right) with TAU in run->tau, as
 * DORMQR.  a's own content is lost (it becomes V); run->work holds
 * dlg_cuda_ormqr_work(c's m, n, right, element size) bytes. */
void dlg_cuda_ormqr(dlg_factor_run *run, dlg_dview a, dlg_dview c, int right, int trans);
size_t dlg_cuda_ormqr_work(int64_t m, int64_t n, int right, size_t es);

#endif
