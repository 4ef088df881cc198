/*
 * cblas.h - what every CBLAS entry point shares (cblas.c): the enums'
 * values, the reference CBLAS's two global flags and its error report.
 *
 * The reference turns a row-major call into the column-major call on the
 * transposes and then runs the Fortran routine, whose argument errors
 * travel through xerbla_ with the globals CBLAS_CallFromC and RowMajorStrg
 * set; its xerbla_ (or a test suite's) uses them to report the CBLAS
 * parameter position.  We set the same globals, when the process has them,
 * and report the same way, so that netlib's CBLAS testers see exactly what
 * the reference shows them.
 */
#ifndef DLG_SHIMS_CBLAS_H
#define DLG_SHIMS_CBLAS_H

#include "shims/common/blas_call.h"

enum {
  CBLAS_ROW_MAJOR = 101,
  CBLAS_COL_MAJOR = 102,
  CBLAS_NO_TRANS = 111,
  CBLAS_TRANS = 112,
  CBLAS_CONJ_TRANS = 113,
  CBLAS_UPPER = 121,
  CBLAS_LOWER = 122,
  CBLAS_NON_UNIT = 131,
  CBLAS_UNIT = 132,
  CBLAS_LEFT = 141,
  CBLAS_RIGHT = 142
};

/* Set the reference's CBLAS_CallFromC and RowMajorStrg, where they exist. */
void cblas_set_flags(int call_from_c, int row_major);

/* cblas_xerbla(info, rout, what, value) as the reference calls it (the
 * program's own, or a message on stderr), then both flags cleared. */
void cblas_report(int info, const char *rout, const char *what, int value);

/* 'N', 'T', 'C' for a CBLAS_TRANSPOSE, 0 for anything else. */
char cblas_trans_char(int t);

/* The start of every routine: 1 and the flags set for a valid layout
 * (row-major: 1 in *row); 0 after reporting parameter 1 otherwise. */
int cblas_begin(const char *rout, int layout, int *row);

/* x, translated, to the common path, and the flags cleared. */
void cblas_finish(const blas_call *x);

#endif
