/*
 * local_cuda.h - the local matrix resident on the rank's GPU for the whole
 * call, the operations dlgemm's kernels (local.h).
 */
#ifndef DLG_DIST_LOCAL_CUDA_H
#define DLG_DIST_LOCAL_CUDA_H

#include "dist/local.h"

extern const dlg_local_ops dlg_local_cuda;

#endif
