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
/* QR's block of reflectors (qr.c's panel width, the order of its T), and
 * the threads of a larft block: one per row of T. */
#define DLG_QR_NB 64

#endif
