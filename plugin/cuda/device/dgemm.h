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

#endif
