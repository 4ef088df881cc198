/*
 * dgemm.h - FP64 on the double-precision tensor cores (dgemm_dmma.cu).
 */
#ifndef DLG_CUDA_DGEMM_H
#define DLG_CUDA_DGEMM_H

#include "cuda/device/device.h"

/* Queue g, a dlg_gemm of doubles, on stream (operands in this device's
 * memory, its context current): the FP64 tensor-core kernel.  Nothing is
 * synchronised. */
dlgemm_status dlg_cuda_dgemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream);

/* Split-K for a DMMA kernel of two blocks an SM (this one, zgemm_dmma.cu):
 * the chunks of k to cut a single product of `tiles` tiles into, 1 for
 * none (dgemm.c says when). */
int dlg_cuda_dmma_splits(const dlg_cuda_device *dev, long long tiles, long long k,
                         long long batch);

#endif
