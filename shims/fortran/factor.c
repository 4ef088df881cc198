/*
 * factor.c - xGETRF, xPOTRF, xGEQRF and xORMQR with the Fortran 77 ABI of
 * the reference LAPACK, one definition per entry of the routine list
 * (shims/common/routines.h, DLG_FACTOR_ROUTINES).  A program linked with
 * -llapack gets them through LD_PRELOAD; so do its xGESV, xPOSV, xGELS and
 * xGEQRS, which call them.
 */
#include <stddef.h>
#include "shims/common/lapack_call.h"
#include "shims/common/routines.h"

#define FORTRAN_FACTOR(p, P, T, DT)                                                              \
  DLGEMM_API void p##getrf_(const int *m, const int *n, T *a, const int *lda, int *ipiv,         \
                            int *info)                                                           \
  {                                                                                              \
    dlg_factor f = {.kind = DLG_GETRF, .dtype = DT, .m = *m, .n = *n, .a = a, .lda = *lda,       \
                    .ipiv = ipiv, .origin = #p "getrf_"};                                        \
    lapack_args c = {.m = m, .n = n, .lda = lda, .info = info};                                  \
    lapack_factor(&f, &c);                                                                       \
  }                                                                                              \
  DLGEMM_API void p##potrf_(const char *uplo, const int *n, T *a, const int *lda, int *info,     \
                            size_t uplo_len)                                                     \
  {                                                                                              \
    dlg_factor f = {.kind = DLG_POTRF, .dtype = DT, .m = *n, .n = *n, .a = a, .lda = *lda,       \
                    .origin = #p "potrf_"};                                                      \
    lapack_args c = {.uplo = uplo, .m = n, .n = n, .lda = lda, .info = info};                    \
    (void)uplo_len;                                                                              \
    lapack_factor(&f, &c);                                                                       \
  }                                                                                              \
  DLGEMM_API void p##geqrf_(const int *m, const int *n, T *a, const int *lda, T *tau, T *work,   \
                            const int *lwork, int *info)                                         \
  {                                                                                              \
    dlg_factor f = {.kind = DLG_GEQRF, .dtype = DT, .m = *m, .n = *n, .a = a, .lda = *lda,       \
                    .tau = tau, .origin = #p "geqrf_"};                                          \
    lapack_args c = {.m = m, .n = n, .lda = lda, .work = work, .lwork = lwork, .info = info};    \
    lapack_factor(&f, &c);                                                                       \
  }                                                                                              \
  DLGEMM_API void p##ormqr_(const char *side, const char *trans, const int *m, const int *n,     \
                            const int *k, const T *a, const int *lda, const T *tau, T *c,        \
                            const int *ldc, T *work, const int *lwork, int *info,                \
                            size_t side_len, size_t trans_len)                                   \
  {                                                                                              \
    dlg_factor f = {.kind = DLG_ORMQR, .dtype = DT, .m = *m, .n = *n, .a = (T *)a, .lda = *lda,  \
                    .tau = (T *)tau, .k = *k, .c = c, .ldc = *ldc, .origin = #p "ormqr_"};       \
    lapack_args args = {.side = side, .trans = trans, .m = m, .n = n, .k = k, .lda = lda,        \
                        .ldc = ldc, .work = work, .lwork = lwork, .info = info};                 \
    (void)side_len, (void)trans_len;                                                             \
    lapack_factor(&f, &args);                                                                    \
  }

DLG_FACTOR_ROUTINES(FORTRAN_FACTOR)
