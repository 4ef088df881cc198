/*
 * factor.c - xGETRF and xPOTRF with the Fortran 77 ABI of the reference
 * LAPACK, one definition per entry of the routine list
 * (shims/common/routines.h, DLG_FACTOR_ROUTINES).  A program linked with
 * -llapack gets them through LD_PRELOAD; so do its xGESV and xPOSV, which
 * call them.
 */
#include <stddef.h>
#include "shims/common/lapack_call.h"
#include "shims/common/routines.h"

#define FORTRAN_FACTOR(p, P, T, dtype)                                                           \
  DLGEMM_API void p##getrf_(const int *m, const int *n, T *a, const int *lda, int *ipiv,         \
                            int *info)                                                           \
  {                                                                                              \
    dlg_factor f = {DLG_GETRF, dtype, *m, *n, a, *lda, ipiv, 0, 0, #p "getrf_"};                 \
    lapack_factor(&f, NULL, m, n, lda, info);                                                    \
  }                                                                                              \
  DLGEMM_API void p##potrf_(const char *uplo, const int *n, T *a, const int *lda, int *info,     \
                            size_t uplo_len)                                                     \
  {                                                                                              \
    dlg_factor f = {DLG_POTRF, dtype, *n, *n, a, *lda, NULL, 0, 0, #p "potrf_"};                 \
    (void)uplo_len;                                                                              \
    lapack_factor(&f, uplo, n, n, lda, info);                                                    \
  }

DLG_FACTOR_ROUTINES(FORTRAN_FACTOR)
