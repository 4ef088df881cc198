/*
 * complex_gemm.h - a complex dlg_gemm (complex64 / complex128 tensors) on
 * the GPU (complex_gemm.c).
 */
#ifndef DLG_CUDA_COMPLEX_GEMM_H
#define DLG_CUDA_COMPLEX_GEMM_H

#include "core/gemm.h"
#include "cuda/device/device.h"

/* g on device memory of dev, queued on stream (the caller's context
 * current, the pointers checked); a failed launch or workspace returns a
 * status, with the batch entries before it queued. */
dlgemm_status dlg_cuda_complex_device(dlg_cuda_device *dev, const dlg_cuda_api *cu,
                                      const dlg_gemm *g, CUstream stream);

/* g on host memory, synchronous: a status with C untouched when the first
 * batch entry fails (the caller falls back); a later failure finishes the
 * remaining entries on the next BLAS and says so in dlg_note(). */
dlgemm_status dlg_cuda_complex_host(const dlg_gemm *g);

#endif
