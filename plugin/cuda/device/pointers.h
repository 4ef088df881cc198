/*
 * pointers.h - kDLCUDA tensors whose pointers lie: data that is host
 * memory, freed, on another GPU than the tensor names, or too short for
 * the tensor's extent gets a status and a message, never a launch.
 */
#ifndef DLG_CUDA_POINTERS_H
#define DLG_CUDA_POINTERS_H

#include "core/gemm.h"
#include "cuda/device/driver.h"

/* A, B and C of g (place DLG_CUDA) are each device memory of device
 * `ordinal` the driver knows, from their first to their last byte. */
dlgemm_status dlg_cuda_check_pointers(const dlg_cuda_api *cu, const dlg_gemm *g, int ordinal);

#endif
