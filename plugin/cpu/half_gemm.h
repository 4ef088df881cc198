/*
 * half_gemm.h - float16 / bfloat16 on host memory, through an FP32 GEMM.
 */
#ifndef DLG_CPU_HALF_GEMM_H
#define DLG_CPU_HALF_GEMM_H

#include "core/gemm.h"

/* A float16 / bfloat16 dlg_gemm on host memory (half_gemm.c): the inputs
 * widened to float, multiplied by sgemm (a float dlg_gemm runner: the CPU
 * backend's), and the epilogue applied in float, rounded once to C's type. */
dlgemm_status dlg_cpu_half_gemm(const dlg_gemm *g, dlgemm_status (*sgemm)(const dlg_gemm *));

#endif
