/*
 * gemm.c - SGEMM and DGEMM with the Fortran 77 ABI of the reference
 * BLAS (gfortran's: arguments by reference, two hidden CHARACTER lengths).
 */
#include "shims/common/blas_call.h"

DLGEMM_API void sgemm_(const char *transa, const char *transb, const int *m, const int *n,
                       const int *k, const float *alpha, const float *a, const int *lda,
                       const float *b, const int *ldb, const float *beta, float *c,
                       const int *ldc, size_t transa_len, size_t transb_len)
{
  blas_call x = {DLG_F32, *transa, *transb, *m, *n, *k, *lda, *ldb, *ldc,
                 alpha, beta, a, b, c, "SGEMM ", "sgemm_"};
  (void)transa_len;
  (void)transb_len;
  blas_gemm(&x);
}

DLGEMM_API void dgemm_(const char *transa, const char *transb, const int *m, const int *n,
                       const int *k, const double *alpha, const double *a, const int *lda,
                       const double *b, const int *ldb, const double *beta, double *c,
                       const int *ldc, size_t transa_len, size_t transb_len)
{
  blas_call x = {DLG_F64, *transa, *transb, *m, *n, *k, *lda, *ldb, *ldc,
                 alpha, beta, a, b, c, "DGEMM ", "dgemm_"};
  (void)transa_len;
  (void)transb_len;
  blas_gemm(&x);
}
