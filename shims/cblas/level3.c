/*
 * level3.c - the CBLAS level-3 routines other than GEMM (gemm.c), in the
 * four types and both integer widths (shims/common/routines.h), as the
 * reference CBLAS does them: each enum checked in parameter order and
 * reported to cblas_xerbla with its CBLAS position, then the column-major
 * Fortran call.  A row-major C is the column-major C^T: SIDE and UPLO flip,
 * M and N swap, and the rank-k updates' TRANS turns over (the reference's
 * table for each kind, below); HER2K's alpha is conjugated.
 *
 * The positions are the ones the reference means: an illegal row-major
 * Uplo of the rank-k updates is parameter 2, as column-major.  Released
 * reference CBLAS (Debian's 3.11 among them) reports 3 there for ten of
 * them (?syrk, ?syr2k, cherk, zherk), and for cblas_cgemm's row-major
 * TransB 2; upstream has corrected both (Reference-LAPACK commit c749e19,
 * 2026-07), and these report the corrected positions.
 */
#include <stdint.h>
#include "shims/cblas/cblas.h"
#include "shims/common/routines.h"

/* SIDE and UPLO of the column-major call; 0 for an illegal value. */
static char side_char(int side, int row)
{
  if (side != CBLAS_LEFT && side != CBLAS_RIGHT) return 0;
  return (side == CBLAS_LEFT) != row ? 'L' : 'R';
}

static char uplo_char(int uplo, int row)
{
  if (uplo != CBLAS_UPPER && uplo != CBLAS_LOWER) return 0;
  return (uplo == CBLAS_UPPER) != row ? 'U' : 'L';
}

static void swap64(int64_t *a, int64_t *b)
{
  const int64_t t = *a;
  *a = *b, *b = t;
}

/* The layout, then Side and Uplo (parameters 2 and 3) of SYMM, HEMM, TRMM
 * and TRSM into x: 1, with *row set; 0 after reporting the first illegal
 * one. */
static int begin_side_uplo(blas_call *x, int layout, int side, int uplo, int *row)
{
  if (!cblas_begin(x->origin, layout, row)) return 0;
  if (!(x->side = side_char(side, *row))) {
    cblas_report(2, x->origin, "Illegal Side setting, %d\n", side);
    return 0;
  }
  if (!(x->uplo = uplo_char(uplo, *row))) {
    cblas_report(3, x->origin, "Illegal Uplo setting, %d\n", uplo);
    return 0;
  }
  return 1;
}

/* (Layout, Side, Uplo, M, N, alpha, A, lda, B, ldb, beta, C, ldc) */
static void cblas_symm(blas_call *x, int layout, int side, int uplo)
{
  int row;
  if (!begin_side_uplo(x, layout, side, uplo, &row)) return;
  if (row) swap64(&x->m, &x->n);
  cblas_finish(x);
}

/* TRANS of a rank-k update's column-major call, 0 for an illegal value.
 * Column-major: as given.  Row-major, the reference's tables: real
 * SYRK/SYR2K N -> T and T, C -> N; complex SYRK/SYR2K N -> T, T -> N, C
 * illegal; HERK/HER2K N -> C and T, C -> N. */
static char rank_k_trans(const blas_call *x, int trans, int row)
{
  const int herm = x->routine == BLAS_HERK || x->routine == BLAS_HER2K;
  const char t = cblas_trans_char(trans);
  if (!t || !row) return t;
  if (t == 'N') return herm ? 'C' : 'T';
  if (t == 'C' && dlg_is_complex(x->dtype) && !herm) return 0;
  return 'N';
}

/* (Layout, Uplo, Trans, N, K, alpha, A, lda, [B, ldb,] beta, C, ldc) */
static void cblas_rank_k(blas_call *x, int layout, int uplo, int trans)
{
  double conj_alpha[2];
  int row;
  if (!cblas_begin(x->origin, layout, &row)) return;
  if (!(x->uplo = uplo_char(uplo, row))) {
    cblas_report(2, x->origin, "Illegal Uplo setting, %d\n", uplo);
    return;
  }
  if (!(x->transa = rank_k_trans(x, trans, row))) {
    cblas_report(3, x->origin, "Illegal Trans setting, %d\n", trans);
    return;
  }
  if (row && x->routine == BLAS_HER2K) { /* C^T = conj(alpha) A'^H B' + alpha B'^H A' */
    if (x->dtype == DLG_C64) {
      float *f = (float *)conj_alpha;
      f[0] = ((const float *)x->alpha)[0], f[1] = -((const float *)x->alpha)[1];
    } else {
      conj_alpha[0] = ((const double *)x->alpha)[0], conj_alpha[1] = -((const double *)x->alpha)[1];
    }
    x->alpha = conj_alpha;
  }
  cblas_finish(x);
}

/* (Layout, Side, Uplo, TransA, Diag, M, N, alpha, A, lda, B, ldb) */
static void cblas_trmm(blas_call *x, int layout, int side, int uplo, int trans, int diag)
{
  int row;
  if (!begin_side_uplo(x, layout, side, uplo, &row)) return;
  if (!(x->transa = cblas_trans_char(trans))) {
    cblas_report(4, x->origin, "Illegal Trans setting, %d\n", trans);
    return;
  }
  if (diag != CBLAS_UNIT && diag != CBLAS_NON_UNIT) {
    cblas_report(5, x->origin, "Illegal Diag setting, %d\n", diag);
    return;
  }
  x->diag = diag == CBLAS_UNIT ? 'U' : 'N';
  if (row) swap64(&x->m, &x->n);
  cblas_finish(x);
}

#define ORIGIN(p, name, SUFFIX) "cblas_" #p #name #SUFFIX

/* E the element type (R, or void for complex), S a scalar parameter's type
 * (R by value, or const void * by address), AMP what makes it a pointer. */
#define C_SYMM(p, name, ROUTINE, dt, E, S, AMP, INT, SUFFIX, i64)                              \
  DLGEMM_API void cblas_##p##name##SUFFIX(int layout, int side, int uplo, INT m, INT n,        \
                                          S alpha, const E *a, INT lda, const E *b, INT ldb,   \
                                          S beta, E *c, INT ldc)                               \
  {                                                                                            \
    blas_call x = {.dtype = dt, .ilp64 = i64, .m = m, .n = n, .lda = lda, .ldb = ldb,          \
                   .ldc = ldc, .alpha = AMP alpha, .beta = AMP beta, .a = a, .b = b, .c = c,   \
                   .origin = ORIGIN(p, name, SUFFIX), .routine = ROUTINE};                     \
    cblas_symm(&x, layout, side, uplo);                                                        \
  }

/* SA, SB: the types of alpha and beta (HERK's are both real, HER2K's beta) */
#define C_SYRK(p, name, ROUTINE, dt, E, SA, AA, SB, AB, INT, SUFFIX, i64)                      \
  DLGEMM_API void cblas_##p##name##SUFFIX(int layout, int uplo, int trans, INT n, INT k,       \
                                          SA alpha, const E *a, INT lda, SB beta, E *c,        \
                                          INT ldc)                                             \
  {                                                                                            \
    blas_call x = {.dtype = dt, .ilp64 = i64, .n = n, .k = k, .lda = lda, .ldc = ldc,          \
                   .alpha = AA alpha, .beta = AB beta, .a = a, .c = c,                         \
                   .origin = ORIGIN(p, name, SUFFIX), .routine = ROUTINE};                     \
    cblas_rank_k(&x, layout, uplo, trans);                                                     \
  }

#define C_SYR2K(p, name, ROUTINE, dt, E, SA, AA, SB, AB, INT, SUFFIX, i64)                     \
  DLGEMM_API void cblas_##p##name##SUFFIX(int layout, int uplo, int trans, INT n, INT k,       \
                                          SA alpha, const E *a, INT lda, const E *b, INT ldb,  \
                                          SB beta, E *c, INT ldc)                              \
  {                                                                                            \
    blas_call x = {.dtype = dt, .ilp64 = i64, .n = n, .k = k, .lda = lda, .ldb = ldb,          \
                   .ldc = ldc, .alpha = AA alpha, .beta = AB beta, .a = a, .b = b, .c = c,     \
                   .origin = ORIGIN(p, name, SUFFIX), .routine = ROUTINE};                     \
    cblas_rank_k(&x, layout, uplo, trans);                                                     \
  }

#define C_TRMM(p, name, ROUTINE, dt, E, S, AMP, INT, SUFFIX, i64)                              \
  DLGEMM_API void cblas_##p##name##SUFFIX(int layout, int side, int uplo, int trans, int diag, \
                                          INT m, INT n, S alpha, const E *a, INT lda, E *b,    \
                                          INT ldb)                                             \
  {                                                                                            \
    blas_call x = {.dtype = dt, .ilp64 = i64, .m = m, .n = n, .lda = lda, .ldb = ldb,          \
                   .alpha = AMP alpha, .a = a, .b = b, .origin = ORIGIN(p, name, SUFFIX),      \
                   .routine = ROUTINE};                                                        \
    cblas_trmm(&x, layout, side, uplo, trans, diag);                                           \
  }

#define ALL(p, dt, E, S, AMP, INT, SUFFIX, i64)                                  \
  C_SYMM(p, symm, BLAS_SYMM, dt, E, S, AMP, INT, SUFFIX, i64)                    \
  C_SYRK(p, syrk, BLAS_SYRK, dt, E, S, AMP, S, AMP, INT, SUFFIX, i64)            \
  C_SYR2K(p, syr2k, BLAS_SYR2K, dt, E, S, AMP, S, AMP, INT, SUFFIX, i64)         \
  C_TRMM(p, trmm, BLAS_TRMM, dt, E, S, AMP, INT, SUFFIX, i64)                    \
  C_TRMM(p, trsm, BLAS_TRSM, dt, E, S, AMP, INT, SUFFIX, i64)

#define REAL(p, P, R, dt, INT, SUFFIX, i64) ALL(p, dt, R, R, &, INT, SUFFIX, i64)
#define COMPLEX(p, P, R, dt, INT, SUFFIX, i64)                                    \
  ALL(p, dt, void, const void *, , INT, SUFFIX, i64)                              \
  C_SYMM(p, hemm, BLAS_HEMM, dt, void, const void *, , INT, SUFFIX, i64)          \
  C_SYRK(p, herk, BLAS_HERK, dt, void, R, &, R, &, INT, SUFFIX, i64)              \
  C_SYR2K(p, her2k, BLAS_HER2K, dt, void, const void *, , R, &, INT, SUFFIX, i64)

DLG_REAL_TYPES(REAL)
DLG_COMPLEX_TYPES(COMPLEX)
