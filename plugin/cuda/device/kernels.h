/*
 * kernels.h - a device's kernel sets, each looked up on its first use.
 */
#ifndef DLG_CUDA_KERNELS_H
#define DLG_CUDA_KERNELS_H

#include "cuda/device/device.h"

/* Kernel set `set` of dev looked up (once; later calls are one load):
 * DLGEMM_OK, or the failure dlg_fail reported for a set the calls cannot
 * do without.  Every reader of a set's functions or facts asks first. */
dlgemm_status dlg_cuda_kernels(dlg_cuda_device *dev, dlg_kernel_set set);

#endif
