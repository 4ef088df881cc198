/*
 * backend.h - the CUDA backend as the router sees it.
 */
#ifndef DLG_CUDA_BACKEND_H
#define DLG_CUDA_BACKEND_H

#include "core/gemm.h"

extern const dlg_backend dlg_backend_cuda;

#endif
