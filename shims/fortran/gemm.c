/*
 * gemm.c - xGEMM with the Fortran 77 ABI of the reference BLAS (gfortran's:
 * arguments by reference, two hidden CHARACTER lengths), one definition per
 * entry of the routine list (shims/common/routines.h): sgemm_ and dgemm_
 * with INTEGER as int, sgemm_64_ and dgemm_64_ with INTEGER as int64_t.
 */
#include <stdint.h>
#include "shims/common/blas_call.h"
#include "shims/common/routines.h"

#define FORTRAN_GEMM(p, P, T, dt, INT, SUFFIX, i64)                                              \
  DLGEMM_API void p##gemm_##SUFFIX(const char *transa, const char *transb, const INT *m,        \
                                   const INT *n, const INT *k, const T *alpha, const T *a,      \
                                   const INT *lda, const T *b, const INT *ldb, const T *beta,   \
                                   T *c, const INT *ldc, size_t transa_len, size_t transb_len)  \
  {                                                                                             \
    (void)transa_len;                                                                           \
    (void)transb_len;                                                                           \
    if (!i64 && blas_gemm_passthrough(dt,       transa, transb, (const int *)m, (const int *)n,   \
                                        (const int *)k, alpha, a, (const int *)lda, b,          \
                                        (const int *)ldb, beta, c, (const int *)ldc))           \
      return;                                                                                   \
    blas_call x = {.dtype = dt, .ilp64 = i64,         .transa = *transa, .transb = *transb,     \
                   .m = *m, .n = *n, .k = *k, .lda = *lda, .ldb = *ldb, .ldc = *ldc,            \
                   .alpha = alpha, .beta = beta, .a = a, .b = b, .c = c,                        \
                   .srname = #P "GEMM ", .origin = #p "gemm_" #SUFFIX};                         \
    blas_gemm(&x);                                                                              \
  }

DLG_REAL_TYPES(FORTRAN_GEMM)
