/*
 * level3.h - a level-3 BLAS call other than a real GEMM, as the backends
 * see it, whichever symbol it came through (ssymm_, cblas_ztrsm,
 * dherk_64_...): SYMM, HEMM, SYRK, HERK, SYR2K, HER2K, TRMM, TRSM in four
 * types, and GEMM in the two complex ones.  Real GEMM keeps dlg_gemm
 * (core/gemm.h), whose engine tiles it across the link; a dlg_gemm's batch
 * entry is a column-major GEMM call too (dlg_level3_of_gemm), which is how
 * the next BLAS, and for complex tensors the GPU, are handed it.
 *
 * Arguments are the Fortran routine's after its checks passed, read once:
 * characters made flags, scalars widened to double pairs.  Matrices are
 * host, column-major, as the caller passed them.
 */
#ifndef DLG_LEVEL3_H
#define DLG_LEVEL3_H

#include <stdint.h>
#include "core/gemm.h"

typedef enum dlg_l3_kind {
  DLG_L3_GEMM = 0,  /* C = alpha op(A) op(B) + beta C (complex; real only as a dlg_gemm entry) */
  DLG_L3_SYMM = 1,  /* C = alpha A B + beta C, or alpha B A; A symmetric, one triangle read */
  DLG_L3_HEMM = 2,  /* the same with A Hermitian (its diagonal's imaginary parts not read) */
  DLG_L3_SYRK = 3,  /* C = alpha op(A) op(A)^T + beta C on one triangle of C */
  DLG_L3_HERK = 4,  /* C = alpha op(A) op(A)^H + beta C, alpha and beta real, diagonal real */
  DLG_L3_SYR2K = 5, /* C = alpha op(A) op(B)^T + alpha op(B) op(A)^T + beta C */
  DLG_L3_HER2K = 6, /* C = alpha op(A) op(B)^H + conj(alpha) op(B) op(A)^H + beta C, beta real */
  DLG_L3_TRMM = 7,  /* B = alpha op(A) B, or alpha B op(A); A triangular */
  DLG_L3_TRSM = 8   /* B = alpha op(A)^-1 B, or alpha B op(A)^-1 */
} dlg_l3_kind;

typedef struct dlg_level3 {
  dlg_l3_kind kind;
  dlg_dtype dtype;        /* DLG_F32, DLG_F64, DLG_C64 or DLG_C128 */
  int right;              /* SYMM, HEMM, TRMM, TRSM: A on the right */
  int upper;              /* the triangle of A (SYMM, HEMM, TRMM, TRSM) or C (rank-k) read */
  int unit;               /* TRMM, TRSM: A's diagonal taken as ones, not read */
  char transa, transb;    /* 'N', 'T' or 'C'; rank-k updates: transa is TRANS */
  int64_t m, n, k;        /* C's m x n (rank-k: n x n, with k), TRMM / TRSM: B's m x n */
  double alpha[2], beta[2]; /* real and imaginary parts; real types: [1] is 0 */
  const void *a, *b;
  void *c;                /* TRMM / TRSM: B, the matrix written (b == c) */
  int64_t lda, ldb, ldc;
  dlgemm_precision precision; /* of the F32 products (F32, C64): the caller's policy */
  const char *origin;     /* the symbol the program called, for DLGEMM_VERBOSE */
} dlg_level3;

/* The order of A: m from the left, n from the right (SYMM, TRMM...). */
static inline int64_t dlg_level3_a_order(const dlg_level3 *x) { return x->right ? x->n : x->m; }

/* Batch entry p of g (every matrix column- or row-major, api/validate.c)
 * as the column-major GEMM a BLAS is given: with C column-major,
 * C = op(A) op(B); with C row-major, C^T = op(B)^T op(A)^T, a row-major
 * matrix being the transpose of the column-major one with the same leading
 * dimension.  'N' or 'T' only: a DLPack tensor cannot say "conjugated".
 * The pointers are g's (host or device), alpha and beta its real ones. */
static inline dlg_level3 dlg_level3_of_gemm(const dlg_gemm *g, int64_t p)
{
  const int c_col = dlg_is_colmajor(&g->c);
  const dlg_matrix *first = c_col ? &g->a : &g->b, *second = c_col ? &g->b : &g->a;
  const size_t es = dlg_elem_size(g->dtype_in);
  dlg_level3 x = {.kind = DLG_L3_GEMM, .dtype = g->dtype};
  x.transa = dlg_is_colmajor(first) == c_col ? 'N' : 'T';
  x.transb = dlg_is_colmajor(second) == c_col ? 'N' : 'T';
  x.m = c_col ? g->m : g->n, x.n = c_col ? g->n : g->m, x.k = g->k;
  x.alpha[0] = g->alpha, x.beta[0] = g->beta;
  x.a = dlg_batch_at(first, p, es), x.b = dlg_batch_at(second, p, es);
  x.c = dlg_batch_at(&g->c, p, dlg_elem_size(g->dtype));
  x.lda = dlg_ld(first), x.ldb = dlg_ld(second), x.ldc = dlg_ld(&g->c);
  x.precision = g->precision;
  x.origin = g->origin;
  return x;
}

/* Real flops, as LAPACK counts them (a complex multiply-add is 8). */
static inline double dlg_level3_flops(const dlg_level3 *x)
{
  const double m = (double)x->m, n = (double)x->n, k = (double)x->k;
  const double f = dlg_is_complex(x->dtype) ? 4 : 1;
  switch (x->kind) {
  case DLG_L3_GEMM: return f * 2 * m * n * k;
  case DLG_L3_SYMM:
  case DLG_L3_HEMM: return f * 2 * m * n * (double)dlg_level3_a_order(x);
  case DLG_L3_SYRK:
  case DLG_L3_HERK: return f * n * (n + 1) * k;
  case DLG_L3_SYR2K:
  case DLG_L3_HER2K: return f * 2 * n * (n + 1) * k;
  default: { /* TRMM, TRSM: order a, a (a + 1) / 2 multiply-adds per column */
    const double a = (double)dlg_level3_a_order(x), other = x->right ? m : n;
    return f * a * a * other;
  }
  }
}

#endif
