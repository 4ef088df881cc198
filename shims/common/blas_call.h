/*
 * blas_call.h - one xGEMM call in Fortran conventions, whichever symbol it
 * came through, and the one function that answers it.
 */
#ifndef DLG_BLAS_CALL_H
#define DLG_BLAS_CALL_H

#include <stdint.h>
#include "core/gemm.h"

typedef struct blas_call {
  dlg_dtype dtype;
  int ilp64;              /* came through a 64_ symbol: the program's INTEGER is int64_t */
  char transa, transb;    /* as given: 'N', 'T', 'C' in either case */
  int64_t m, n, k, lda, ldb, ldc;
  const void *alpha, *beta; /* float* or double*, as the routine's type */
  const void *a, *b;
  void *c;
  const char *srname;     /* "SGEMM " / "DGEMM ": the name xerbla_ receives */
  const char *origin;     /* symbol the program called, for DLGEMM_VERBOSE */
} blas_call;

/* The reference's INFO for these arguments: 0 when they are legal, else the
 * position of the first illegal one, checked in the reference's order. */
int blas_gemm_info(const blas_call *call);

/* Check, report to xerbla_ or quick-return as the reference does, then
 * route: a GPU backend, or the next BLAS called with the very same
 * arguments (so its answer is bit for bit what the program would have had). */
void blas_gemm(const blas_call *call);

/* Inside a factorization that the router left to the next LAPACK as too
 * small (lapack_call.h): the caller's own LP64 arguments straight to the
 * next BLAS, which checks them and reports to xerbla_ as the reference
 * does, and 1; otherwise 0 and nothing done.  The products of a small
 * factorization are smaller still: routing each would cost more than some
 * of them take (130 of them at n = 64, 0.4 us each). */
int blas_gemm_passthrough(dlg_dtype dtype, const char *ta, const char *tb, const int *m,
                          const int *n, const int *k, const void *alpha, const void *a,
                          const int *lda, const void *b, const int *ldb, const void *beta, void *c,
                          const int *ldc);

/* Report an illegal argument the way the reference's SGEMM does:
 * CALL XERBLA(SRNAME, INFO), through the process's xerbla_ (ILP64 calls:
 * xerbla_64_, whose INFO is an int64_t). */
void blas_xerbla(const char *srname, int info, int ilp64);

#endif
