/*
 * run.h - the ScaLAPACK routines dlgemm takes (shims/scalapack), each call
 * to the engine DLGEMM_SCALAPACK names or back to the next ScaLAPACK.
 */
#ifndef DLG_DIST_RUN_H
#define DLG_DIST_RUN_H

#include "dist/call.h"

/* 1 when dlgemm made the call (DLGEMM_SCALAPACK, a descriptor it takes,
 * an engine the whole grid could use) and *info is the routine's INFO on
 * every rank; 0 when the next ScaLAPACK must make it, nothing changed. */
int dlg_dist_run(const dlg_dist_call *c, int *info);

#endif
