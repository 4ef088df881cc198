/*
 * backend.h - the CPU backend (the next BLAS) as the router and the GPU
 * backends' fallbacks see it.
 */
#ifndef DLG_CPU_BACKEND_H
#define DLG_CPU_BACKEND_H

#include "core/gemm.h"

extern const dlg_backend dlg_backend_cpu;

#endif
