/*
 * spread.h - one host-array GEMM over every slot (hostarray/slots.h): the
 * CUDA backend's entry for sgemm_ / dgemm_ on host memory.
 */
#ifndef DLG_CUDA_SPREAD_H
#define DLG_CUDA_SPREAD_H

#include "core/gemm.h"

/* g (real, on host memory), its C cut across the slots in proportion to
 * their speeds, each part through its slot's engine, all at once;
 * synchronous.  The engine's contract for the call as a whole: a status
 * with C untouched, or DLGEMM_OK with C right (parts that failed finished
 * on the next BLAS, and dlg_note() says so). */
dlgemm_status dlg_cuda_offload(const dlg_gemm *g);

#endif
