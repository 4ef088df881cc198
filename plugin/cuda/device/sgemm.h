/*
 * sgemm.h - strict FP32 on the SIMT kernels (sgemm_simt.cu, sgemm_sgpr.cu).
 */
#ifndef DLG_CUDA_SGEMM_H
#define DLG_CUDA_SGEMM_H

#include "cuda/device/device.h"

/* Queue g (operands in this device's memory) on stream; the context must be
 * current.  Returns a status; nothing is synchronised. */
dlgemm_status dlg_cuda_sgemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream);

#endif
