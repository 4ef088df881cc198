/*
 * tiny.h - products whose m, n and k are all 64 or less (usually a large
 * batch of them) on the tiny kernels (tiny.cu), for every type.
 */
#ifndef DLG_CUDA_TINY_H
#define DLG_CUDA_TINY_H

#include "cuda/device/device.h"

/* Whether g is one for the tiny kernels: m, n and k at most the size up
 * to which they were measured to win for g's type (24 to DLG_TINY_MAX,
 * tiny.c) and the kernels loaded; always 0 under DLGEMM_TINY=0. */
int dlg_cuda_tiny_takes(dlg_cuda_device *dev, const dlg_gemm *g);

/* Queue g, one that dlg_cuda_tiny_takes, on stream (operands in this
 * device's memory, its context current). */
dlgemm_status dlg_cuda_tiny(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream);

#endif
