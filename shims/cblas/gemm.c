/*
 * gemm.c - cblas_sgemm and cblas_dgemm, as the reference CBLAS does them, and
 * their ILP64 forms cblas_sgemm64_ and cblas_dgemm64_ (int64_t dimensions,
 * OpenBLAS's names): one definition per entry of the routine list
 * (shims/common/routines.h).
 *
 * The reference turns a row-major call into the column-major call on the
 * transposes (swap A and B, m and n, the two transposes) and then runs the
 * Fortran routine, whose argument errors travel through xerbla_ with the
 * globals CBLAS_CallFromC and RowMajorStrg set; its xerbla_ (or a test
 * suite's) uses them to report the CBLAS parameter position.  We set the same
 * globals, when the process has them, and report the same way, so that
 * netlib's xscblat3 sees exactly what the reference shows it.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "shims/common/blas_call.h"
#include "shims/common/routines.h"

enum { ROW_MAJOR = 101, COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112, CONJ_TRANS = 113 };

typedef void (*cblas_xerbla_fn)(int info, const char *rout, const char *form, ...);

/* The reference CBLAS's two global flags, wherever the process defines them. */
static void set_cblas_flags(int call_from_c, int row_major)
{
  int *from_c = (int *)dlsym(RTLD_DEFAULT, "CBLAS_CallFromC");
  int *row = (int *)dlsym(RTLD_DEFAULT, "RowMajorStrg");
  if (from_c) *from_c = call_from_c;
  if (row) *row = row_major;
}

static void report(int info, const char *rout, const char *what, int value)
{
  cblas_xerbla_fn xerbla = (cblas_xerbla_fn)dlsym(RTLD_DEFAULT, "cblas_xerbla");
  if (xerbla) {
    xerbla(info, rout, what, value);
    return;
  }
  fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
  fprintf(stderr, what, value);
}

static char trans_char(int t)
{
  return t == NO_TRANS ? 'N' : t == TRANS ? 'T' : t == CONJ_TRANS ? 'C' : 0;
}

static void cblas_gemm(dlg_dtype dtype, int ilp64, const char *rout, int layout, int transa,
                       int transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                       const void *a, int64_t lda, const void *b, int64_t ldb, const void *beta,
                       void *c, int64_t ldc)
{
  const char ta = trans_char(transa), tb = trans_char(transb);
  const int row = layout == ROW_MAJOR;
  blas_call x;

  set_cblas_flags(1, 0);
  if (layout != ROW_MAJOR && layout != COL_MAJOR) {
    report(1, rout, "Illegal layout setting, %d\n", layout);
    set_cblas_flags(0, 0);
    return;
  }
  if (row) set_cblas_flags(1, 1);
  if (!ta || !tb) {
    report(ta ? 3 : 2, rout, ta ? "Illegal TransB setting, %d\n" : "Illegal TransA setting, %d\n",
           ta ? transb : transa);
    set_cblas_flags(0, 0);
    return;
  }
  memset(&x, 0, sizeof x);
  x.dtype = dtype;
  x.ilp64 = ilp64;
  x.alpha = alpha;
  x.beta = beta;
  x.c = c;
  x.ldc = ldc;
  x.k = k;
  x.srname = dtype == DLG_F32 ? "SGEMM " : "DGEMM ";
  x.origin = rout;
  if (row) { /* C^T = op(B)^T op(A)^T, all column-major */
    x.transa = tb, x.transb = ta, x.m = n, x.n = m;
    x.a = b, x.lda = ldb, x.b = a, x.ldb = lda;
  } else {
    x.transa = ta, x.transb = tb, x.m = m, x.n = n;
    x.a = a, x.lda = lda, x.b = b, x.ldb = ldb;
  }
  blas_gemm(&x);
  set_cblas_flags(0, 0);
}

#define CBLAS_GEMM(p, P, T, dtype, INT, SUFFIX, ilp64)                                        \
  DLGEMM_API void cblas_##p##gemm##SUFFIX(int layout, int transa, int transb, INT m, INT n,     \
                                          INT k, T alpha, const T *a, INT lda, const T *b,      \
                                          INT ldb, T beta, T *c, INT ldc)                       \
  {                                                                                             \
    cblas_gemm(dtype, ilp64, "cblas_" #p "gemm" #SUFFIX, layout, transa, transb, m, n, k,       \
               &alpha, a, lda, b, ldb, &beta, c, ldc);                                          \
  }

DLG_GEMM_ROUTINES(CBLAS_GEMM)
