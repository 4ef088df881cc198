/*
 * level3_info.c - the reference BLAS's argument checks for every level-3
 * routine but real GEMM (blas_call.c has that one): the same tests in the
 * same order, so that the INFO a program's XERBLA receives is the
 * reference's (netlib's testers check which parameter was named).
 */
#include "shims/common/blas_call.h"
#include "shims/common/level3_info.h"

static int lsame(char c, char ref) { return (c | 0x20) == (ref | 0x20); }
static int64_t max1(int64_t x) { return x > 1 ? x : 1; }

static int is_trans(char c) { return lsame(c, 'N') || lsame(c, 'T') || lsame(c, 'C'); }

/* TRANS of the rank-k updates: any of N, T, C for real SYRK and SYR2K; N or
 * T for the complex symmetric ones; N or C for the Hermitian ones. */
static int rank_k_trans(const blas_call *x)
{
  const char t = x->transa;
  if (x->routine == BLAS_HERK || x->routine == BLAS_HER2K) return lsame(t, 'N') || lsame(t, 'C');
  if (dlg_is_complex(x->dtype)) return lsame(t, 'N') || lsame(t, 'T');
  return is_trans(t);
}

static int uplo_ok(char c) { return lsame(c, 'U') || lsame(c, 'L'); }
static int side_ok(char c) { return lsame(c, 'L') || lsame(c, 'R'); }

int blas_level3_info(const blas_call *x)
{
  switch (x->routine) {
  case BLAS_GEMM: return blas_gemm_info(x); /* complex: SGEMM's tests, 'C' legal alike */
  case BLAS_SYMM:
  case BLAS_HEMM: { /* (SIDE, UPLO, M, N, ALPHA, A, LDA, B, LDB, BETA, C, LDC) */
    const int64_t nrowa = lsame(x->side, 'L') ? x->m : x->n;
    if (!side_ok(x->side)) return 1;
    if (!uplo_ok(x->uplo)) return 2;
    if (x->m < 0) return 3;
    if (x->n < 0) return 4;
    if (x->lda < max1(nrowa)) return 7;
    if (x->ldb < max1(x->m)) return 9;
    if (x->ldc < max1(x->m)) return 12;
    return 0;
  }
  case BLAS_SYRK:
  case BLAS_HERK:
  case BLAS_SYR2K:
  case BLAS_HER2K: { /* (UPLO, TRANS, N, K, ALPHA, A, LDA, [B, LDB,] BETA, C, LDC) */
    const int two = x->routine == BLAS_SYR2K || x->routine == BLAS_HER2K;
    const int64_t nrowa = lsame(x->transa, 'N') ? x->n : x->k;
    if (!uplo_ok(x->uplo)) return 1;
    if (!rank_k_trans(x)) return 2;
    if (x->n < 0) return 3;
    if (x->k < 0) return 4;
    if (x->lda < max1(nrowa)) return 7;
    if (two && x->ldb < max1(nrowa)) return 9;
    if (x->ldc < max1(x->n)) return two ? 12 : 10;
    return 0;
  }
  default: { /* TRMM, TRSM: (SIDE, UPLO, TRANSA, DIAG, M, N, ALPHA, A, LDA, B, LDB) */
    const int64_t nrowa = lsame(x->side, 'L') ? x->m : x->n;
    if (!side_ok(x->side)) return 1;
    if (!uplo_ok(x->uplo)) return 2;
    if (!is_trans(x->transa)) return 3;
    if (!lsame(x->diag, 'U') && !lsame(x->diag, 'N')) return 4;
    if (x->m < 0) return 5;
    if (x->n < 0) return 6;
    if (x->lda < max1(nrowa)) return 9;
    if (x->ldb < max1(x->m)) return 11;
    return 0;
  }
  }
}
