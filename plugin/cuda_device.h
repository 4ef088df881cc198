/*
 * cuda_device.h - per-GPU state of the CUDA backend: context, module,
 * kernels, and the staging memory and stream of the host-array path.
 */
#ifndef DLG_CUDA_DEVICE_H
#define DLG_CUDA_DEVICE_H

#include <pthread.h>
#include "../kernels/cuda/sgemm_args.h"
#include "cuda_driver.h"
#include "gemm.h"

/* A block tile of the SIMT kernels (DLG_SGEMM_TILE_LIST order). */
typedef struct dlg_sgemm_tile { int bm, bn, bk, smem; } dlg_sgemm_tile;
extern const dlg_sgemm_tile dlg_sgemm_tiles[DLG_TILES];

typedef struct dlg_cuda_device {
  int ordinal;
  CUcontext ctx;     /* the primary context: the one the runtime API uses too */
  CUmodule module;
  CUfunction sgemm[DLG_TILES][4]; /* [tile][a_kc * 2 + b_kc] */
  int blocks_per_sm[DLG_TILES];   /* occupancy of each tile's kernels */
  CUfunction splitk_reduce, streamk_fixup;
  CUfunction sgpr, sgpr_edge; /* sgemm_sgpr.cu: full 64-row blocks, and any */
  CUmemoryPool pool; /* split-K workspaces: stream-ordered, kept for reuse */
  int sms;
  /* Host-array path: one stream and one grow-only buffer, under lock. */
  pthread_mutex_t lock;
  CUstream stream;
  CUdeviceptr staging;
  size_t staging_size;
} dlg_cuda_device;

/* The device, initialised on first use (context, module loaded from the
 * embedded fatbin), or NULL with a dlgemm_last_error() message. */
dlg_cuda_device *dlg_cuda_device_get(int ordinal);

/* Queue g (operands in this device's memory) on stream; the context must be
 * current.  Returns a status; nothing is synchronised. */
dlgemm_status dlg_cuda_sgemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream);

/* g on host memory: stage, compute, copy C back, synchronise. */
dlgemm_status dlg_cuda_sgemm_host(dlg_cuda_device *dev, const dlg_gemm *g);

#endif
