/*
 * lapack_call.h - one LAPACK call (dgetrf_, spotrf_, dormqr_...) and the
 * one function that answers it.
 */
#ifndef DLG_LAPACK_CALL_H
#define DLG_LAPACK_CALL_H

#include "core/factor.h"

/* The caller's own argument pointers, passed on untouched when the next
 * LAPACK answers.  NULL where the routine has no such argument. */
typedef struct lapack_args {
  const char *uplo;
  const char *side, *trans; /* ORMQR */
  const int *m, *n, *k, *lda, *ldc;
  void *work;        /* GEQRF, ORMQR: WORK(1) is set as the reference sets it */
  const int *lwork;  /* GEQRF, ORMQR: -1 is a workspace query */
  int *info;
} lapack_args;

/* f filled from the caller's arguments (dimensions read, nothing checked),
 * c the caller's pointers.  Illegal arguments, empty matrices, workspace
 * queries and whatever the router leaves to the CPU go to the next LAPACK
 * with those very pointers, so its checks, xerbla_ call and
 * answer are the program's own; the rest runs on the GPU, and goes to the
 * next LAPACK after all if the GPU fails before writing anything. */
void lapack_factor(dlg_factor *f, const lapack_args *c);

/* Whether this thread is inside a factorization that the router left to the
 * next LAPACK as too small for the GPU: the products it makes are smaller
 * still, and go straight to the next BLAS (blas_call.c) instead of paying
 * for a routing decision each. */
int lapack_in_cpu_factor(void);

#endif
