/*
 * gemm.c - cblas_?gemm in the four types, as the reference CBLAS does them,
 * and their ILP64 forms (cblas_sgemm64_: int64_t dimensions, OpenBLAS's
 * names): one definition per entry of the type lists
 * (shims/common/routines.h).  A row-major call is the column-major call on
 * the transposes: A and B, m and n, the two transposes swapped (cblas.h).
 */
#include <stdint.h>
#include <string.h>
#include "shims/cblas/cblas.h"
#include "shims/common/routines.h"

static void cblas_gemm(blas_call *x, int layout, int transa, int transb)
{
  const char ta = cblas_trans_char(transa), tb = cblas_trans_char(transb);
  int row;
  if (!cblas_begin(x->origin, layout, &row)) return;
  if (!ta || !tb) {
    cblas_report(ta ? 3 : 2, x->origin,
                 ta ? "Illegal TransB setting, %d\n" : "Illegal TransA setting, %d\n",
                 ta ? transb : transa);
    return;
  }
  x->srname = x->dtype == DLG_F32 ? "SGEMM " : "DGEMM ";
  if (row) { /* C^T = op(B)^T op(A)^T, all column-major */
    const void *a = x->a;
    const int64_t m = x->m, lda = x->lda;
    x->transa = tb, x->transb = ta, x->m = x->n, x->n = m;
    x->a = x->b, x->lda = x->ldb, x->b = a, x->ldb = lda;
  } else {
    x->transa = ta, x->transb = tb;
  }
  cblas_finish(x);
}

/* The real types take alpha and beta by value, the complex ones by address
 * (S the scalar parameter's type, AMP what makes it a pointer). */
#define CBLAS_GEMM(p, dt, E, S, AMP, INT, SUFFIX, i64)                                          \
  DLGEMM_API void cblas_##p##gemm##SUFFIX(int layout, int transa, int transb, INT m, INT n,      \
                                          INT k, S alpha, const E *a, INT lda, const E *b,      \
                                          INT ldb, S beta, E *c, INT ldc)                       \
  {                                                                                             \
    blas_call x = {.dtype = dt, .ilp64 = i64, .m = m, .n = n, .k = k, .lda = lda, .ldb = ldb,   \
                   .ldc = ldc, .alpha = AMP alpha, .beta = AMP beta, .a = a, .b = b, .c = c,    \
                   .origin = "cblas_" #p "gemm" #SUFFIX, .routine = BLAS_GEMM};                 \
    cblas_gemm(&x, layout, transa, transb);                                                     \
  }
#define REAL(p, P, R, dt, INT, SUFFIX, i64) CBLAS_GEMM(p, dt, R, R, &, INT, SUFFIX, i64)
#define COMPLEX(p, P, R, dt, INT, SUFFIX, i64) \
  CBLAS_GEMM(p, dt, void, const void *, , INT, SUFFIX, i64)

DLG_REAL_TYPES(REAL)
DLG_COMPLEX_TYPES(COMPLEX)
