/*
 * csimt.h - a batch of complex64 products on sgemm_simt.cu's complex tiles
 * (FP32 FFMA, operands read where they are; csimt.c).
 */
#ifndef DLG_CUDA_LEVEL3_CSIMT_H
#define DLG_CUDA_LEVEL3_CSIMT_H

#include <stdint.h>
#include "cuda/lapack/steps.h"

/* Whether the kernels can take c = alpha op(a)' op(b)' + beta c as
 * cgemm.h says it: complex64, each view with a unit stride along one of
 * its dimensions and its elements 8-byte aligned, the kernels loaded. */
int dlg_cuda_csimt_takes(dlg_factor_run *r, dlg_dview a, dlg_dview b, dlg_dview c);

/* Whether the kernels of type t are loaded on dev (complex64 only; looked
 * up on first use). */
int dlg_cuda_csimt_ready(dlg_cuda_device *dev, dlg_dtype t);

/* The product, where dlg_cuda_csimt_takes; a failure in r->status. */
void dlg_cuda_csimt(dlg_factor_run *r, const double alpha[2], dlg_dview a, int64_t sa, int ca,
                    dlg_dview b, int64_t sb, int cb, double beta, dlg_dview c, int64_t sc,
                    int64_t batch);

#endif
