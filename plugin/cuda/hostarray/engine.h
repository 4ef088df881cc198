/*
 * engine.h - the host-array engine: sgemm_/dgemm_ on host memory, C in
 * tiles, panels of A and B streamed through pinned chunks while earlier
 * tiles compute (engine.c says how).
 */
#ifndef DLG_CUDA_ENGINE_H
#define DLG_CUDA_ENGINE_H

#include "cuda/device/device.h"
#include "gpu/share.h"

/* One part of a split call whose parts share the panels of the operand
 * they all read (gpu/share.h): its board, the part's number on it, and the
 * operand (0: A's row panels, every part holding all of C's rows; 1: B's
 * column panels). */
typedef struct dlg_offload_share {
  dlg_share *board;
  int part, operand;
} dlg_offload_share;

/* g on host memory through the engine of slot `slot` (hostarray/slots.h),
 * on that slot's device: synchronous.  A failure before C was touched
 * returns a status (the caller falls back); a failure after finishes the
 * remaining tiles on the next BLAS, returns DLGEMM_OK and says so in
 * dlg_note().  Each slot's engine takes one call at a time.  With share,
 * g is its part of a split call (NULL: a call of its own); the part has
 * left the board when this returns. */
dlgemm_status dlg_cuda_offload_one(int slot, const dlg_gemm *g, const dlg_offload_share *share);

/* How many panels of an operand the engine cuts a side of `extent` into:
 * what the parts of a split call sharing them must agree on. */
int dlg_cuda_offload_panels(int64_t extent);

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
