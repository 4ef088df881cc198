/*
 * tf32.h - float32 under the TF32 and 3xTF32 policies (tf32_pack.cu, then
 * the tensor-core kernels).
 */
#ifndef DLG_CUDA_TF32_H
#define DLG_CUDA_TF32_H

#include "cuda/device/device.h"

/* Queue g, float32 under the TF32 or 3xTF32 policy, on stream (operands in
 * this device's memory, its context current). */
dlgemm_status dlg_cuda_tf32(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream);

#endif
