/*
 * pad.h - operands that break 16-byte alignment, copied once to a leading
 * dimension that keeps it, where the kernels' aligned paths pay for the
 * copy (pad.c).
 */
#ifndef DLG_CUDA_PAD_H
#define DLG_CUDA_PAD_H

#include "cuda/device/device.h"

/* *out = g with each of A and B that its kernels cannot read at full speed
 * (a base, leading dimension or batch stride off 16 bytes; for the wgmma
 * kernels, rows off 128-byte lines) replaced by a copy in pooled memory
 * *work, queued on stream, when the product has enough flops per copied
 * element to pay for it (pad.c says how many; DLGEMM_PAD).  1 when *out
 * names copies (the caller frees *work on stream after its launches), 0
 * when nothing was queued (g runs as it is), -1 when a launch failed
 * (nothing left to free). */
int dlg_cuda_padded(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream, dlg_gemm *out,
                    CUdeviceptr *work);

#endif
