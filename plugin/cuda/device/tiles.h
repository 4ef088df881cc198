/*
 * tiles.h - the SIMT kernels' block tiles as the host sees them: sizes and
 * dynamic shared memory, in DLG_SGEMM_TILE_LIST order (sgemm_args.h).  The
 * device setup allows each tile's kernels their shared memory; the FP32
 * launcher's cost model picks among them.
 */
#ifndef DLG_CUDA_TILES_H
#define DLG_CUDA_TILES_H

#include "kernels/cuda/sgemm_args.h"

typedef struct dlg_sgemm_tile { int bm, bn, bk, smem, streamk; } dlg_sgemm_tile;

#define DLG_TILE_ROW(id, bm, bn, bk, stages, minb, order, sk) {bm, bn, bk, DLG_SGEMM_SMEM(bm, bn, bk, stages), sk},
static const dlg_sgemm_tile dlg_sgemm_tiles[DLG_TILES] = {DLG_SGEMM_TILE_LIST(DLG_TILE_ROW)};
#undef DLG_TILE_ROW

/* The complex64 tiles (DLG_CSIMT_TILE_LIST), in complex elements; the
 * shared memory is the real tile's of twice the rows and columns. */
#define DLG_CTILE_ROW(id, bm, bn, bk, stages, minb) {bm, bn, bk, DLG_SGEMM_SMEM(2 * (bm), 2 * (bn), bk, stages), 0},
static const dlg_sgemm_tile dlg_csimt_tiles[DLG_CTILES] = {DLG_CSIMT_TILE_LIST(DLG_CTILE_ROW)};
#undef DLG_CTILE_ROW

#endif
