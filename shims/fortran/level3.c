/*
 * level3.c - the level-3 BLAS other than real GEMM (shims/fortran/gemm.c)
 * with the Fortran 77 ABI of the reference (gfortran's: arguments by
 * reference, one hidden length per CHARACTER), for every entry of the type
 * lists (shims/common/routines.h): xSYMM, xSYRK, xSYR2K, xTRMM, xTRSM in
 * S, D, C, Z, and CGEMM, ZGEMM, xHEMM, xHERK, xHER2K, each LP64 and 64_.
 *
 * Every argument is a pointer, so one definition per shape of argument list
 * serves all four types; the scalars' and arrays' types are the routine's,
 * read by level3_call.c as its dtype says.
 */
#include <stddef.h>
#include <stdint.h>
#include "shims/common/blas_call.h"
#include "shims/common/level3_call.h"
#include "shims/common/routines.h"

/* (TRANSA, TRANSB, M, N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC) */
#define F_GEMM(p, name, ROUTINE, dt, INT, SUFFIX, i64)                                          \
  DLGEMM_API void p##name##_##SUFFIX(const char *ta, const char *tb, const INT *m, const INT *n, \
                                     const INT *k, const void *alpha, const void *a,             \
                                     const INT *lda, const void *b, const INT *ldb,              \
                                     const void *beta, void *c, const INT *ldc, size_t l1,       \
                                     size_t l2)                                                  \
  {                                                                                              \
    blas_call x = {.dtype = dt, .ilp64 = i64, .transa = *ta, .transb = *tb, .m = *m, .n = *n,    \
                   .k = *k, .lda = *lda, .ldb = *ldb, .ldc = *ldc, .alpha = alpha,               \
                   .beta = beta, .a = a, .b = b, .c = c, .origin = #p #name "_" #SUFFIX,         \
                   .routine = ROUTINE};                                                          \
    (void)l1, (void)l2;                                                                          \
    blas_level3(&x);                                                                             \
  }

/* (SIDE, UPLO, M, N, ALPHA, A, LDA, B, LDB, BETA, C, LDC) */
#define F_SYMM(p, name, ROUTINE, dt, INT, SUFFIX, i64)                                          \
  DLGEMM_API void p##name##_##SUFFIX(const char *side, const char *uplo, const INT *m,           \
                                     const INT *n, const void *alpha, const void *a,             \
                                     const INT *lda, const void *b, const INT *ldb,              \
                                     const void *beta, void *c, const INT *ldc, size_t l1,       \
                                     size_t l2)                                                  \
  {                                                                                              \
    blas_call x = {.dtype = dt, .ilp64 = i64, .m = *m, .n = *n, .lda = *lda, .ldb = *ldb,        \
                   .ldc = *ldc, .alpha = alpha, .beta = beta, .a = a, .b = b, .c = c,            \
                   .origin = #p #name "_" #SUFFIX, .routine = ROUTINE, .side = *side,            \
                   .uplo = *uplo};                                                               \
    (void)l1, (void)l2;                                                                          \
    blas_level3(&x);                                                                             \
  }

/* (UPLO, TRANS, N, K, ALPHA, A, LDA, BETA, C, LDC) */
#define F_SYRK(p, name, ROUTINE, dt, INT, SUFFIX, i64)                                          \
  DLGEMM_API void p##name##_##SUFFIX(const char *uplo, const char *trans, const INT *n,          \
                                     const INT *k, const void *alpha, const void *a,             \
                                     const INT *lda, const void *beta, void *c, const INT *ldc,  \
                                     size_t l1, size_t l2)                                       \
  {                                                                                              \
    blas_call x = {.dtype = dt, .ilp64 = i64, .transa = *trans, .n = *n, .k = *k, .lda = *lda,   \
                   .ldc = *ldc, .alpha = alpha, .beta = beta, .a = a, .c = c,                    \
                   .origin = #p #name "_" #SUFFIX, .routine = ROUTINE, .uplo = *uplo};           \
    (void)l1, (void)l2;                                                                          \
    blas_level3(&x);                                                                             \
  }

/* (UPLO, TRANS, N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC) */
#define F_SYR2K(p, name, ROUTINE, dt, INT, SUFFIX, i64)                                         \
  DLGEMM_API void p##name##_##SUFFIX(const char *uplo, const char *trans, const INT *n,          \
                                     const INT *k, const void *alpha, const void *a,             \
                                     const INT *lda, const void *b, const INT *ldb,              \
                                     const void *beta, void *c, const INT *ldc, size_t l1,       \
                                     size_t l2)                                                  \
  {                                                                                              \
    blas_call x = {.dtype = dt, .ilp64 = i64, .transa = *trans, .n = *n, .k = *k, .lda = *lda,   \
                   .ldb = *ldb, .ldc = *ldc, .alpha = alpha, .beta = beta, .a = a, .b = b,       \
                   .c = c, .origin = #p #name "_" #SUFFIX, .routine = ROUTINE, .uplo = *uplo};   \
    (void)l1, (void)l2;                                                                          \
    blas_level3(&x);                                                                             \
  }

/* (SIDE, UPLO, TRANSA, DIAG, M, N, ALPHA, A, LDA, B, LDB) */
#define F_TRMM(p, name, ROUTINE, dt, INT, SUFFIX, i64)                                          \
  DLGEMM_API void p##name##_##SUFFIX(const char *side, const char *uplo, const char *ta,         \
                                     const char *diag, const INT *m, const INT *n,               \
                                     const void *alpha, const void *a, const INT *lda, void *b,  \
                                     const INT *ldb, size_t l1, size_t l2, size_t l3, size_t l4) \
  {                                                                                              \
    blas_call x = {.dtype = dt, .ilp64 = i64, .transa = *ta, .m = *m, .n = *n, .lda = *lda,      \
                   .ldb = *ldb, .alpha = alpha, .a = a, .b = b, .origin = #p #name "_" #SUFFIX,  \
                   .routine = ROUTINE, .side = *side, .uplo = *uplo, .diag = *diag};             \
    (void)l1, (void)l2, (void)l3, (void)l4;                                                      \
    blas_level3(&x);                                                                             \
  }

#define REAL(p, P, R, dt, INT, SUFFIX, i64)              \
  F_SYMM(p, symm, BLAS_SYMM, dt, INT, SUFFIX, i64)       \
  F_SYRK(p, syrk, BLAS_SYRK, dt, INT, SUFFIX, i64)       \
  F_SYR2K(p, syr2k, BLAS_SYR2K, dt, INT, SUFFIX, i64)    \
  F_TRMM(p, trmm, BLAS_TRMM, dt, INT, SUFFIX, i64)       \
  F_TRMM(p, trsm, BLAS_TRSM, dt, INT, SUFFIX, i64)

#define COMPLEX(p, P, R, dt, INT, SUFFIX, i64)           \
  REAL(p, P, R, dt, INT, SUFFIX, i64)                    \
  F_GEMM(p, gemm, BLAS_GEMM, dt, INT, SUFFIX, i64)       \
  F_SYMM(p, hemm, BLAS_HEMM, dt, INT, SUFFIX, i64)       \
  F_SYRK(p, herk, BLAS_HERK, dt, INT, SUFFIX, i64)       \
  F_SYR2K(p, her2k, BLAS_HER2K, dt, INT, SUFFIX, i64)

DLG_REAL_TYPES(REAL)
DLG_COMPLEX_TYPES(COMPLEX)
