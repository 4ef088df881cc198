/*
 * lapack_args.h - the sizes lapack.cu's kernels are written for, shared with
 * the host code that launches them (plugin/cuda/lapack/recursive.c, qr.c), so the
 * two cannot disagree.
 */
#ifndef DLG_LAPACK_ARGS_H
#define DLG_LAPACK_ARGS_H

/* Order of the triangles trsm_leaf solves and potrf_leaf factors (one warp:
 * a lane per row); the recursions stop there. */
#define DLG_LAPACK_LEAF 32
/* Threads of a trsm_leaf, laswp or tri_add block (trsm_leaf's launch bound). */
#define DLG_LAPACK_LEAF_THREADS 128
/* Threads of the one lu_column block (its launch bound). */
#define DLG_LAPACK_COLUMN_THREADS 512
/* lu_panel's widest panel (a row of it in each thread's registers) and its
 * block; its workspace: a slot a block for each column parity (lu_slot: the
 * panel's row, a value and a row index: at most this many bytes in either
 * precision), the row j of each parity, then a zeroed count a column. */
#define DLG_LU_PANEL_COLS 32
#define DLG_LU_PANEL_THREADS 256
#define DLG_LU_SLOT_BYTES (8 * (DLG_LU_PANEL_COLS + 2))
/* QR's block of reflectors (qr.c's panel width, the order of its T), and
 * the threads of a larft block: one per row of T. */
#define DLG_QR_NB 64

#endif
