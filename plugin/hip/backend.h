/*
 * backend.h - the HIP backend as the router sees it.
 */
#ifndef DLG_HIP_BACKEND_H
#define DLG_HIP_BACKEND_H

#include "core/gemm.h"

extern const dlg_backend dlg_backend_hip;

#endif
