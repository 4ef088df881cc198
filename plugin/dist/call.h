/*
 * call.h - a ScaLAPACK call as the shim (shims/scalapack) hands it to the
 * distributed routines (run.c): its arguments as the Fortran caller gave
 * them, whichever routine it is.
 */
#ifndef DLG_DIST_CALL_H
#define DLG_DIST_CALL_H

#include "core/gemm.h"

typedef enum dlg_dist_kind {
  DLG_DIST_POTRF,
  DLG_DIST_GETRF,
  DLG_DIST_GEQRF,
  DLG_DIST_GEMM
} dlg_dist_kind;

typedef struct dlg_dist_call {
  dlg_dist_kind kind;
  dlg_dtype dtype; /* DLG_F32 or DLG_F64 */
  char uplo;       /* PxPOTRF: 'L' or 'U' */
  int m, n, ia, ja; /* 1-based IA, JA; PxPOTRF: m = n */
  void *a;         /* the local array */
  const int *desc; /* DESCA: dtype, ctxt, m, n, mb, nb, rsrc, csrc, lld */
  /* PxGEMM: C = alpha op(A) op(B) + beta C, op(A) m x k (a, desc, ia, ja
   * above are A's) */
  char transa, transb;
  int k, ib, jb, ic, jc;
  const void *alpha, *beta;
  const void *b;
  const int *desc_b;
  void *c;
  const int *desc_c;
  int *ipiv;       /* PxGETRF: LOCr(M_A) + MB_A pivots, global rows */
  void *tau;       /* PxGEQRF: LOCc(JA + MIN(M, N) - 1) scalars */
  void *work;      /* PxGEQRF: the caller's workspace, */
  int lwork;       /* its size (-1: a query) */
  const char *origin;
} dlg_dist_call;

#endif
