/*
 * mp_factor.h - ScaLAPACK's factorizations by NVIDIA's cuSOLVERMp
 * (mp_factor.c, on the engine of mp.h): what DLGEMM_SCALAPACK=gpu tries
 * first, because it was measured faster than dlgemm's own resident
 * algorithm (potrf.c).
 */
#ifndef DLG_DIST_MP_FACTOR_H
#define DLG_DIST_MP_FACTOR_H

#include <stddef.h>
#include <stdint.h>
#include "dist/blacs.h"
#include "dist/call.h"

/* c (a PxPOTRF 'L', PxGETRF or PxGEQRF) on grid g (the BLACS grid, this
 * rank in it), the local array rows x cols; every rank of the grid calls
 * it (its votes are collectives), `usable` 0 where this rank's arguments
 * do not allow it.  1 when cuSOLVERMp made it on every rank of the grid
 * (*info its INFO; the factor, and IPIV or TAU in ScaLAPACK's layout, in
 * the caller's arrays; -1 where the factor could not be copied back, said
 * on stderr; where[] names this rank's device, "cuda:N"); 0 when not, the
 * same on every rank, nothing changed, why[] saying why. */
int dlg_dist_mp_run(const dlg_blacs *b, const dlg_grid *g, const dlg_dist_call *c, int usable,
                    int64_t rows, int64_t cols, int *info, char *where, size_t where_len,
                    char *why, size_t why_len);

#endif
