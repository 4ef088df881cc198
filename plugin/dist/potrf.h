/*
 * potrf.h - ScaLAPACK's PxPOTRF taken by dlgemm: by cuSOLVERMp (mp.h)
 * where DLGEMM_SCALAPACK=gpu finds it, else on each rank's local matrix,
 * resident in a store (local.h) for the whole call.
 */
#ifndef DLG_DIST_POTRF_H
#define DLG_DIST_POTRF_H

#include "dist/call.h"

/* 1 when dlgemm took the call (DLGEMM_SCALAPACK, a descriptor it handles,
 * a usable store) and *info is PxPOTRF's INFO on every rank; 0 when the
 * next ScaLAPACK must make it, with nothing changed. */
int dlg_dist_potrf_run(const dlg_dist_potrf *c, int *info);

#endif
