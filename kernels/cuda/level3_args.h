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

#endif
