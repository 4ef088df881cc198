/*
 * gemm.c - a dlg_gemm on device memory to its kernel family: float16 /
 * bfloat16 inputs to the tensor cores, FP64 to DMMA, FP32 to the SIMT
 * kernels (strict) or the tensor cores (the TF32 policies).
 */
#include "cuda/device/dgemm.h"
#include "cuda/device/gemm.h"
#include "cuda/device/hgemm.h"
#include "cuda/device/sgemm.h"
#include "cuda/device/tf32.h"

dlgemm_status dlg_cuda_gemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream)
{
  if (dlg_is_half(g->dtype_in)) return dlg_cuda_hgemm(dev, g, stream);
  if (g->dtype == DLG_F64) return dlg_cuda_dgemm(dev, g, stream);
  return g->precision == DLGEMM_PRECISION_STRICT ? dlg_cuda_sgemm(dev, g, stream)
                                                 : dlg_cuda_tf32(dev, g, stream);
}
