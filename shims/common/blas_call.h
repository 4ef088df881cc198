/*
 * blas_call.h - one level-3 BLAS call in Fortran conventions, whichever
 * symbol it came through, and the function that answers real GEMM
 * (blas_call.c); level3_call.h answers the rest.
 */
#ifndef DLG_BLAS_CALL_H
#define DLG_BLAS_CALL_H

#include <stdint.h>
#include "core/gemm.h"

/* The routines, in the order of dlg_l3_kind (core/level3.h). */
typedef enum blas_routine {
  BLAS_GEMM = 0,
  BLAS_SYMM,
  BLAS_HEMM,
  BLAS_SYRK,
  BLAS_HERK,
  BLAS_SYR2K,
  BLAS_HER2K,
  BLAS_TRMM,
  BLAS_TRSM
} blas_routine;

typedef struct blas_call {
  dlg_dtype dtype;        /* F32, F64, C64, C128 */
  int ilp64;              /* came through a 64_ symbol: the program's INTEGER is int64_t */
  char transa, transb;    /* as given: 'N', 'T', 'C' in either case (rank-k: TRANS) */
  int64_t m, n, k, lda, ldb, ldc; /* as the routine names them; unused ones 0 */
  const void *alpha, *beta; /* pointers to the routine's scalars (HERK's and HER2K's beta real) */
  const void *a, *b;      /* TRMM, TRSM: b is B, written */
  void *c;
  const char *srname;     /* "SGEMM ", "ZHER2K": the name xerbla_ receives */
  const char *origin;     /* symbol the program called, for DLGEMM_VERBOSE */
  blas_routine routine;
  char side, uplo, diag;  /* as given, where the routine has them */
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
