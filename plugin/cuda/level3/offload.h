/*
 * offload.h - a level-3 routine of host arrays on the GPU (offload.c).
 */
#ifndef DLG_CUDA_LEVEL3_OFFLOAD_H
#define DLG_CUDA_LEVEL3_OFFLOAD_H

#include <stddef.h>
#include "core/level3.h"

/* x on GPU 0, whole: DLGEMM_OK with its result written; otherwise a status
 * (dlgemm_last_error() says why) and the caller's arrays untouched. */
dlgemm_status dlg_cuda_level3(dlg_level3 *x);

/* The bytes x's trip moves: in, to the device; out, back (for the
 * routing model). */
void dlg_cuda_level3_bytes(const dlg_level3 *x, double *in, double *out);

#endif
