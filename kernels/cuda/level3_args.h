/*
 * level3_args.h - the sizes level3.cu's kernels are written for, shared
 * with the host code that launches them (plugin/cuda/level3/blas3.c).
 */
#ifndef DLG_LEVEL3_ARGS_H
#define DLG_LEVEL3_ARGS_H

/* Order of the triangles trsm_leaf solves (the TRSM recursion stops there):
 * a thread keeps one vector's 32 values in registers. */
#define DLG_L3_LEAF 32
/* Threads of every level3.cu block (trsm_leaf's launch bound). */
#define DLG_L3_THREADS 128
/* Order of the rank-k updates' diagonal blocks: computed whole by the GEMM
 * kernels into a workspace, then merged into the referenced triangle. */
#define DLG_L3_RANK_LEAF 256
/* The longest k of a complex product csmallk takes: a thread keeps its
 * row's k elements of alpha op(A) in registers. */
#define DLG_L3_SMALL_K 8
/* Columns of C a thread of csmallk takes at once (its grid's second
 * dimension is n over this, so that a block takes one such group). */
#define DLG_L3_SMALL_K_COLS 8

#endif
