/*
 * model.h - the CUDA backend's cost model for host arrays: whether the
 * engine (transfers, kernels, overhead, measured on this machine) beats the
 * next BLAS on a call, and how long it takes on each device.
 */
#ifndef DLG_CUDA_MODEL_H
#define DLG_CUDA_MODEL_H

#include "core/gemm.h"

/* Whether g on host memory finishes sooner through the engine of slot
 * (hostarray/slots.h) than on the next BLAS, by the routing model
 * (model.c); why[] gives both estimates. */
int dlg_cuda_offload_pays(int slot, const dlg_gemm *g, char *why, size_t why_len);

/* Seconds g on host memory takes through slot's engine, by its model;
 * negative where the slot's device could not be measured. */
double dlg_cuda_offload_seconds(int slot, const dlg_gemm *g);

/* The same question as dlg_cuda_offload_pays for a routine that goes over
 * whole (core/level3.h): in bytes to the device, flops of type real on it,
 * out bytes back, nothing overlapped, against the next BLAS at a product's
 * rate of the same flops. */
int dlg_cuda_whole_offload_pays(int slot, dlg_dtype real, double flops, double in, double out,
                                char *why, size_t why_len);

#endif
