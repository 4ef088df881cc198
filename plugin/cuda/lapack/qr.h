/*
 * qr.h - QR on device memory, blocked with recursive panels, the products on
 * the GEMM kernels (qr.c).
 */
#ifndef DLG_CUDA_QR_H
#define DLG_CUDA_QR_H

#include "cuda/lapack/steps.h"

/* A = Q R in place as DGEQRF leaves it (R on and above the diagonal, the
 * Householder vectors below it, TAU in run->tau); qr.c.  run->work holds
 * dlg_cuda_geqrf_work(m, n, element size) bytes. */
void dlg_cuda_geqrf(dlg_factor_run *run, dlg_dview a);
size_t dlg_cuda_geqrf_work(int64_t m, int64_t n, size_t es);

#endif
