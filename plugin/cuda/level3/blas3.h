/*
 * blas3.h - the level-3 routines on device memory (blas3.c): every one
 * made of GEMMs on our kernels and level3.cu's small kernels, in the four
 * types.
 */
#ifndef DLG_CUDA_BLAS3_H
#define DLG_CUDA_BLAS3_H

#include "core/level3.h"
#include "cuda/lapack/steps.h"

/* x computed on device copies of its matrices: a (as the routine reads
 * it: its own copy, which may be overwritten), b, c (C, or TRMM's and
 * TRSM's B, in and out), and w, TRMM's result (C's shape; TRMM leaves c
 * as it was).  Views column-major; r->dtype is x->dtype. */
void dlg_cuda_blas3(dlg_factor_run *r, const dlg_level3 *x, dlg_dview a, dlg_dview b, dlg_dview c,
                    dlg_dview w);

#endif
