/*
 * narrow.h - products whose C is at most 16 wide on one side (GEMV-like,
 * decode) on the narrow kernels (narrow.cu), for every real type and,
 * through the real kernels on their interleaved storage, complex ones.
 */
#ifndef DLG_CUDA_NARROW_H
#define DLG_CUDA_NARROW_H

#include "cuda/device/device.h"

/* Whether g is one for the narrow kernels (narrow.c says which and why);
 * always 0 under DLGEMM_NARROW=0. */
int dlg_cuda_narrow_takes(dlg_cuda_device *dev, const dlg_gemm *g);

/* Queue g, one that dlg_cuda_narrow_takes, on stream (operands in this
 * device's memory, its context current, its narrow kernels loaded). */
dlgemm_status dlg_cuda_narrow(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream);

/* Queue the sum of p's splits' partials (p->work, in narrow_args.h's
 * layout, float or f64 double) into C with alpha and beta, in split order
 * (deterministic), for nb batch entries; the split-K wgmma launches use it
 * too.  early: right behind the kernel that wrote the partials, on
 * compute capability 9.0 - launched while that kernel runs, it waits for
 * the kernel's end on the GPU (programmatic dependent launch) instead of
 * being launched only then. */
CUresult dlg_cuda_splits_reduce(const dlg_cuda_api *cu, const dlg_cuda_device *dev, int f64,
                                const dlg_narrow_args *p, int nb, int early, CUstream stream);

#endif
