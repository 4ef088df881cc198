/*
 * engine.h - the host-array engine: sgemm_/dgemm_ on host memory, C in
 * tiles, panels of A and B streamed through pinned chunks while earlier
 * tiles compute (engine.c says how).
 */
#ifndef DLG_CUDA_ENGINE_H
#define DLG_CUDA_ENGINE_H

#include "cuda/device/device.h"

/* g on host memory through the engine of slot `slot` (hostarray/slots.h),
 * on that slot's device: synchronous.  A failure before C was touched
 * returns a status (the caller falls back); a failure after finishes the
 * remaining tiles on the next BLAS, returns DLGEMM_OK and says so in
 * dlg_note().  Each slot's engine takes one call at a time. */
dlgemm_status dlg_cuda_offload_one(int slot, const dlg_gemm *g);

/* The link of slot's engine: bytes/s of pinned copies to and from its
 * device and of the copy pool staging pageable memory (measured for the
 * routing model). */
dlgemm_status dlg_cuda_offload_measure(int slot, double *to_device, double *to_host,
                                       double *staging);

/* A column-major host matrix (rows x cols, leading dimension ld, elements of
 * es bytes) to or from memory d (leading dimension dld) of slot's device on
 * stream s, through slot's pinned chunks and the copy threads: the link's
 * speed rather than one memcpy thread's.  Synchronous (to the device: the
 * copy has left the host buffer; kernels queued on s after it see it). */
dlgemm_status dlg_cuda_offload_matrix(int slot, void *host, int64_t ld, CUdeviceptr d,
                                      int64_t dld, int64_t rows, int64_t cols, size_t es,
                                      int to_device, CUstream s);

#endif
