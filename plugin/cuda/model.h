/*
 * model.h - the CUDA backend's cost model for host arrays: whether the
 * engine (transfers, kernels, overhead, measured on this machine) beats the
 * next BLAS on a call.
 */
#ifndef DLG_CUDA_MODEL_H
#define DLG_CUDA_MODEL_H

#include "cuda/device/device.h"

/* Whether g on host memory finishes sooner on this GPU than on the next
 * BLAS, by the routing model (model.c); why[] gives both estimates. */
int dlg_cuda_offload_pays(dlg_cuda_device *dev, const dlg_gemm *g, char *why, size_t why_len);

/* The same for a routine that goes over whole (core/level3.h): in bytes to
 * the device, flops of type real on it, out bytes back, nothing overlapped,
 * against the next BLAS at a product's rate of the same flops. */
int dlg_cuda_whole_offload_pays(dlg_cuda_device *dev, dlg_dtype real, double flops, double in,
                                double out, char *why, size_t why_len);

#endif
