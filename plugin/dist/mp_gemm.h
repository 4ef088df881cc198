/*
 * mp_gemm.h - PBLAS's PxGEMM by NVIDIA's cuBLASMp (mp_gemm.c, on the
 * engine of mp.h), under DLGEMM_SCALAPACK=gpu.
 */
#ifndef DLG_DIST_MP_GEMM_H
#define DLG_DIST_MP_GEMM_H

#include <stddef.h>
#include "dist/blacs.h"
#include "dist/call.h"

/* c (a PxGEMM) on grid g, every rank of it calling (a collective): 1 when
 * cuBLASMp made it on every rank (C in the caller's array; a C that could
 * not be copied back said on stderr; where[] names this rank's device,
 * "cuda:N"), 0 when not, the same on every rank, nothing changed, why[]
 * saying why. */
int dlg_dist_mp_gemm(const dlg_blacs *b, const dlg_grid *g, const dlg_dist_call *c, int usable,
                     char *where, size_t where_len, char *why, size_t why_len);

#endif
