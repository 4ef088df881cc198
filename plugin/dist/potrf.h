/*
 * potrf.h - dlgemm's own PxPOTRF: each rank's local matrix resident in a
 * store (local.h) for the whole call, ScaLAPACK's algorithm with the
 * panels through the program's BLACS (potrf.c).
 */
#ifndef DLG_DIST_POTRF_H
#define DLG_DIST_POTRF_H

#include <stddef.h>
#include "dist/blacs.h"
#include "dist/call.h"

/* c (a PxPOTRF) on grid `real`, this rank's store on its GPU or, with
 * `host`, in host memory; every rank of the grid calls it (its votes are
 * collectives), `usable` 0 where this rank's arguments do not allow it.
 * 1 when the grid made it (*info its INFO; -1 where the factor could not
 * be copied back, said on stderr; store[] names this rank's store); 0
 * when not, the same on every rank, nothing changed, why[] saying why. */
int dlg_dist_potrf_resident(const dlg_blacs *b, const dlg_grid *real, const dlg_dist_call *c,
                            int usable, int host, int *info, char *store, size_t store_len,
                            char *why, size_t why_len);

#endif
