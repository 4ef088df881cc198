/*
 * lapack_call.h - one factorization call (dgetrf_, spotrf_...) and the one
 * function that answers it.
 */
#ifndef DLG_LAPACK_CALL_H
#define DLG_LAPACK_CALL_H

#include "core/factor.h"

/* f filled from the caller's arguments (dimensions read, nothing checked);
 * uplo, m, n, lda and info are the caller's own pointers.  Illegal
 * arguments, empty matrices and whatever the router leaves to the CPU go to
 * the next LAPACK with those very pointers, so its checks, xerbla_ call and
 * answer are the program's own; the rest runs on the GPU, and goes to the
 * next LAPACK after all if the GPU fails before writing anything. */
void lapack_factor(dlg_factor *f, const char *uplo, const int *m, const int *n, const int *lda,
                   int *info);

/* Whether this thread is inside a factorization that the router left to the
 * next LAPACK as too small for the GPU: the products it makes are smaller
 * still, and go straight to the next BLAS (blas_call.c) instead of paying
 * for a routing decision each. */
int lapack_in_cpu_factor(void);

#endif
