/*
 * zdmma.h - a batch of complex products on the complex DMMA kernels
 * (kernels/cuda/zgemm_dmma.cu), operands read where they are (zdmma.c).
 */
#ifndef DLG_CUDA_LEVEL3_ZDMMA_H
#define DLG_CUDA_LEVEL3_ZDMMA_H

#include <stdint.h>
#include "cuda/lapack/steps.h"

/* Whether the kernels can take c = alpha op(a)' op(b)' + beta c as
 * cgemm.h says it (each view with a unit stride along one of its
 * dimensions, its elements aligned, the kernels loaded). */
int dlg_cuda_zdmma_takes(dlg_factor_run *r, dlg_dview a, dlg_dview b, dlg_dview c);

/* Whether the kernels of complex type t are loaded on dev (looked up on
 * first use). */
int dlg_cuda_zdmma_ready(dlg_cuda_device *dev, dlg_dtype t);

/* The product, where dlg_cuda_zdmma_takes; a failure in r->status. */
void dlg_cuda_zdmma(dlg_factor_run *r, const double alpha[2], dlg_dview a, int64_t sa, int ca,
                    dlg_dview b, int64_t sb, int cb, double beta, dlg_dview c, int64_t sc,
                    int64_t batch);

#endif
