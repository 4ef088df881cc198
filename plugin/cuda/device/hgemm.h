/*
 * hgemm.h - float16 / bfloat16 on the tensor cores, and the tensor-core
 * launcher the TF32 policies share (hgemm_mma.cu, hgemm_wgmma.cu).
 */
#ifndef DLG_CUDA_HGEMM_H
#define DLG_CUDA_HGEMM_H

#include "cuda/device/device.h"
#include "cuda/device/orient.h"

/* Queue g, float16 / bfloat16 inputs, on stream (operands in this device's
 * memory, its context current): the tensor-core kernels. */
dlgemm_status dlg_cuda_hgemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream);

/* The tensor-core kernel sets looked up (kernels.h): mma.sync (its
 * failure returned), and the wgmma and narrow sets where they load.
 * dlg_cuda_wgmma_launch's callers ask it first. */
dlgemm_status dlg_cuda_tc_kernels(dlg_cuda_device *dev);

/* The tensor-core kernels of kind (DLG_TC_*) on X = op1 * op2, a batch of
 * them, a's sizes, strides and pointers already set (in 16-bit units for
 * TF32): the wgmma kernels where they apply, else the mma.sync ones. */
dlgemm_status dlg_cuda_tc_run(dlg_cuda_device *dev, int kind, int64_t batch,
                              const dlg_operand *op1, const dlg_operand *op2,
                              const dlg_hgemm_args *a, CUstream stream);

/* Whether the wgmma kernels run a product in pairs of blocks sharing the
 * second operand's loads (DLGEMM_WGMMA_PAIRS; hgemm.c says when that
 * pays), given whether that operand's rows start on 128-byte lines and
 * whether the kernel reads its first operand through registers (TF32 with
 * an m-contiguous A).  pad.c asks it too: a paired operand is not copied
 * to lines. */
int dlg_cuda_wgmma_pairs(const dlg_cuda_device *dev, int second_on_lines, int a_in_registers);

/* The same on the sm_90a wgmma kernels only: 1 when launched, 0 when they
 * do not apply (no kernel for the layout or kind, a shape or an alignment
 * TMA cannot take, the family pinned to mma.sync) and nothing was queued,
 * -1 with *r set when the launch failed.  dlg_cuda_tc_kernels first. */
int dlg_cuda_wgmma_launch(dlg_cuda_device *dev, int kind, int64_t batch, const dlg_operand *op1,
                          const dlg_operand *op2, const dlg_hgemm_args *a, CUstream stream,
                          CUresult *r);

#endif
