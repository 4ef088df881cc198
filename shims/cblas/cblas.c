/*
 * cblas.c - the parts of the CBLAS entry points that do not depend on the
 * routine (cblas.h): the reference's globals and its error report.
 */
#include <dlfcn.h>
#include <stdio.h>
#include "shims/cblas/cblas.h"
#include "shims/common/level3_call.h"

typedef void (*cblas_xerbla_fn)(int info, const char *rout, const char *form, ...);

void cblas_set_flags(int call_from_c, int row_major)
{
  int *from_c = (int *)dlsym(RTLD_DEFAULT, "CBLAS_CallFromC");
  int *row = (int *)dlsym(RTLD_DEFAULT, "RowMajorStrg");
  if (from_c) *from_c = call_from_c;
  if (row) *row = row_major;
}

void cblas_report(int info, const char *rout, const char *what, int value)
{
  cblas_xerbla_fn xerbla = (cblas_xerbla_fn)dlsym(RTLD_DEFAULT, "cblas_xerbla");
  if (xerbla) {
    xerbla(info, rout, what, value);
  } else {
    fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
    fprintf(stderr, what, value);
  }
  cblas_set_flags(0, 0);
}

char cblas_trans_char(int t)
{
  return t == CBLAS_NO_TRANS ? 'N' : t == CBLAS_TRANS ? 'T' : t == CBLAS_CONJ_TRANS ? 'C' : 0;
}

int cblas_begin(const char *rout, int layout, int *row)
{
  cblas_set_flags(1, 0);
  if (layout != CBLAS_ROW_MAJOR && layout != CBLAS_COL_MAJOR) {
    cblas_report(1, rout, "Illegal layout setting, %d\n", layout);
    return 0;
  }
  *row = layout == CBLAS_ROW_MAJOR;
  if (*row) cblas_set_flags(1, 1);
  return 1;
}

void cblas_finish(const blas_call *x)
{
  if (x->routine == BLAS_GEMM && !dlg_is_complex(x->dtype))
    blas_gemm(x);
  else
    blas_level3(x);
  cblas_set_flags(0, 0);
}
