/*
 * potrf.h - ScaLAPACK's PxPOTRF on each rank's local matrix, resident in
 * a store (local.h) for the whole call.
 */
#ifndef DLG_DIST_POTRF_H
#define DLG_DIST_POTRF_H

#include "core/gemm.h"

/* PxPOTRF's arguments, as the Fortran caller gave them (1-based IA, JA). */
typedef struct dlg_dist_potrf {
  dlg_dtype dtype; /* DLG_F32 or DLG_F64 */
  char uplo;       /* 'L' or 'U' */
  int n, ia, ja;
  void *a;         /* the local array */
  const int *desc; /* DESCA: dtype, ctxt, m, n, mb, nb, rsrc, csrc, lld */
  const char *origin;
} dlg_dist_potrf;

/* 1 when dlgemm took the call (DLGEMM_SCALAPACK, a descriptor it handles,
 * a usable store) and *info is PxPOTRF's INFO on every rank; 0 when the
 * next ScaLAPACK must make it, with nothing changed. */
int dlg_dist_potrf_run(const dlg_dist_potrf *c, int *info);

#endif
