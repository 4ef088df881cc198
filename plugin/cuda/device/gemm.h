/*
 * gemm.h - one entry for device-resident operands: the kernel family by dtype
 * and precision.
 */
#ifndef DLG_CUDA_GEMM_H
#define DLG_CUDA_GEMM_H

#include "cuda/device/device.h"

/* Queue g (operands on this device) on stream, by its dtypes. */
dlgemm_status dlg_cuda_gemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream);

#endif
