/*
 * gemm.c - a dlg_gemm on device memory to its kernel family: m, n and k
 * all 64 or less to the tiny kernels, a C at most 16 wide on one side to
 * the narrow kernels (any real type; narrow.c hands 16-bit and float64
 * products of 5 columns or more to the tensor-core kernels), float16 /
 * bfloat16 inputs to the tensor cores, FP64 to DMMA, FP32 to the SIMT
 * kernels (strict) or the tensor cores (the TF32 policies); a large
 * product's misaligned operands first copied where that pays (pad.c).
 */
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/dgemm.h"
#include "cuda/device/driver.h"
#include "cuda/device/gemm.h"
#include "cuda/device/hgemm.h"
#include "cuda/device/narrow.h"
#include "cuda/device/pad.h"
#include "cuda/device/sgemm.h"
#include "cuda/device/tf32.h"
#include "cuda/device/tiny.h"

static dlgemm_status family(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream)
{
  if (dlg_is_half(g->dtype_in)) return dlg_cuda_hgemm(dev, g, stream);
  if (g->dtype == DLG_F64) return dlg_cuda_dgemm(dev, g, stream);
  return g->precision == DLGEMM_PRECISION_STRICT ? dlg_cuda_sgemm(dev, g, stream)
                                                 : dlg_cuda_tf32(dev, g, stream);
}

static dlgemm_status planned(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream)
{
  char why[160];
  dlg_gemm padded;
  CUdeviceptr work;
  dlgemm_status st;
  if (dlg_cuda_tiny_takes(dev, g)) return dlg_cuda_tiny(dev, g, stream);
  if (dlg_cuda_narrow_takes(dev, g)) return dlg_cuda_narrow(dev, g, stream);
  switch (dlg_cuda_padded(dev, g, stream, &padded, &work)) {
  case 0: return family(dev, g, stream);
  case 1:
    st = family(dev, &padded, stream);
    dlg_cuda_api_get(why, sizeof why)->MemFreeAsync(work, stream); /* padded: the API is there */
    if (st == DLGEMM_OK && dlg_config_get()->verbose) /* why the call did more than its product */
      dlg_note_more("%s%s copied to an aligned leading dimension first", padded.a.data != g->a.data ? "A" : "",
               padded.b.data != g->b.data ? (padded.a.data != g->a.data ? " and B" : "B") : "");
    return st;
  default: return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed (operand copy)");
  }
}

/* Planned once; where a workspace could not be had (another process holds
 * the GPU's memory), planned again without one: C is untouched until a
 * family's allocations succeed (device.h). */
dlgemm_status dlg_cuda_gemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream)
{
  dlgemm_status st;
  dlg_cuda_take_denied();
  st = planned(dev, g, stream);
  if (st != DLGEMM_OK && dlg_cuda_take_denied()) {
    dlg_cuda_set_lean(1);
    st = planned(dev, g, stream);
    dlg_cuda_set_lean(0);
    if (st == DLGEMM_OK) dlg_note_more("out of GPU memory for a workspace: planned without one");
    else if (dlg_cuda_take_denied())
      st = dlg_fail(DLGEMM_ERR_OUT_OF_MEMORY, "out of GPU memory for the call's workspace, "
                    "even planned without split-K");
  }
  return st;
}
