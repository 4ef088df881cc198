/*
 * call.h - a ScaLAPACK call as the shim (shims/scalapack) hands it to the
 * distributed routines (run.c): its arguments as the Fortran caller gave
 * them, whichever routine it is.
 */
#ifndef DLG_DIST_CALL_H
#define DLG_DIST_CALL_H

#include "core/gemm.h"

typedef enum dlg_dist_kind { DLG_DIST_POTRF, DLG_DIST_GETRF, DLG_DIST_GEQRF } dlg_dist_kind;

typedef struct dlg_dist_call {
  dlg_dist_kind kind;
  dlg_dtype dtype; /* DLG_F32 or DLG_F64 */
  char uplo;       /* PxPOTRF: 'L' or 'U' */
  int m, n, ia, ja; /* 1-based IA, JA; PxPOTRF: m = n */
  void *a;         /* the local array */
  const int *desc; /* DESCA: dtype, ctxt, m, n, mb, nb, rsrc, csrc, lld */
  int *ipiv;       /* PxGETRF: LOCr(M_A) + MB_A pivots, global rows */
  void *tau;       /* PxGEQRF: LOCc(JA + MIN(M, N) - 1) scalars */
  void *work;      /* PxGEQRF: the caller's workspace, */
  int lwork;       /* its size (-1: a query) */
  const char *origin;
} dlg_dist_call;

#endif
