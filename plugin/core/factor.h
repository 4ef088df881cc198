/*
 * factor.h - a LAPACK call as the backends see it, whichever symbol it came
 * through (dgetrf_, spotrf_, dormqr_...): the counterpart of dlg_gemm for
 * the routines that are not products.  Three factorizations, and the
 * application of a QR factorization's Q, which needs the same reflectors
 * on the device as QR makes.
 */
#ifndef DLG_FACTOR_H
#define DLG_FACTOR_H

#include <stdint.h>
#include "core/gemm.h"

typedef enum dlg_factor_kind {
  DLG_GETRF = 0, /* LU with partial pivoting: A = P L U */
  DLG_POTRF = 1, /* Cholesky: A = L L^T (uplo 'L') or U^T U ('U') */
  DLG_GEQRF = 2, /* QR: A = Q R, Q = H(1)...H(k) kept as Householder vectors and tau */
  DLG_ORMQR = 3  /* C = op(Q) C or C op(Q), Q = H(1)...H(k) from GEQRF's A and tau */
} dlg_factor_kind;

typedef struct dlg_factor {
  dlg_factor_kind kind;
  dlg_dtype dtype;    /* DLG_F32 or DLG_F64 */
  int64_t m, n;       /* POTRF: m == n; ORMQR: C's */
  void *a;            /* host, column-major; ORMQR: read only, nq x k, nq = m (left) or n */
  int64_t lda;
  int *ipiv;          /* GETRF: min(m, n) row indices, 1-based, as LAPACK's */
  int lower;          /* POTRF: the triangle referenced and written */
  void *tau;          /* GEQRF: min(m, n) scalar factors of the reflectors; ORMQR: k, read */
  int64_t k;          /* ORMQR: the number of reflectors */
  int right, trans;   /* ORMQR: Q applied from the right; Q^T instead of Q */
  void *c;            /* ORMQR: the m x n matrix multiplied */
  int64_t ldc;
  int info;           /* out: LAPACK's INFO (> 0: singular / not positive definite) */
  const char *origin; /* the symbol the program called, for DLGEMM_VERBOSE */
} dlg_factor;

/* The rows of A as the routine reads it: ORMQR's order of Q (C's rows from
 * the left, its columns from the right), otherwise m. */
static inline int64_t dlg_factor_a_rows(const dlg_factor *f)
{
  return f->kind == DLG_ORMQR && f->right ? f->n : f->m;
}

static inline double dlg_factor_flops(const dlg_factor *f)
{
  const double m = (double)f->m, n = (double)f->n, k = m < n ? m : n, big = m < n ? n : m;
  if (f->kind == DLG_POTRF) return n * n * n / 3.0;
  if (f->kind == DLG_ORMQR) /* LAPACK's count: 2 n k (2 m - k) from the left */
    return 2 * (f->right ? m : n) * (double)f->k * (2 * (f->right ? n : m) - (double)f->k);
  if (f->kind == DLG_GEQRF) return 2 * big * k * k - 2 * k * k * k / 3.0;
  return big * k * k - k * k * k / 3.0; /* xGETRF: m n^2 - n^3/3 for m >= n */
}

#endif
