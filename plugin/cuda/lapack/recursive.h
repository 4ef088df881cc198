/*
 * recursive.h - LU and Cholesky on device memory, by recursion into the
 * GEMM kernels (recursive.c).
 */
#ifndef DLG_CUDA_RECURSIVE_H
#define DLG_CUDA_RECURSIVE_H

#include "cuda/lapack/steps.h"

/* SYRK's diagonal blocks are at most this order: the workspace it needs. */
enum { DLG_SYRK_LEAF = 256 };

/* A = P L U in place (column-major m x n view a), pivots and INFO as DGETRF
 * returns them.  Queued on run->stream, nothing synchronised.  run->work:
 * dlg_cuda_getrf_work bytes (lu_panel's), or 0 (the panels by recursion). */
void dlg_cuda_getrf(dlg_factor_run *run, dlg_dview a);
size_t dlg_cuda_getrf_work(int64_t m, int64_t n, size_t es);

/* The lower Cholesky factor of the n x n view a in place (the upper case is
 * the lower case of the transposed view); INFO as DPOTRF's.  Only the lower
 * triangle of the view is read or written. */
void dlg_cuda_potrf(dlg_factor_run *run, dlg_dview a);

#endif
