/*
 * call.h - a ScaLAPACK call as the shim (shims/scalapack) hands it to the
 * distributed routines: its arguments as the Fortran caller gave them.
 */
#ifndef DLG_DIST_CALL_H
#define DLG_DIST_CALL_H

#include "core/gemm.h"

/* PxPOTRF's arguments (1-based IA, JA). */
typedef struct dlg_dist_potrf {
  dlg_dtype dtype; /* DLG_F32 or DLG_F64 */
  char uplo;       /* 'L' or 'U' */
  int n, ia, ja;
  void *a;         /* the local array */
  const int *desc; /* DESCA: dtype, ctxt, m, n, mb, nb, rsrc, csrc, lld */
  const char *origin;
} dlg_dist_potrf;

#endif
