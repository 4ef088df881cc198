/*
 * cuda_device.h - per-GPU state of the CUDA backend: context, module,
 * kernels, and the host-array engine's streams and staging memory.
 */
#ifndef DLG_CUDA_DEVICE_H
#define DLG_CUDA_DEVICE_H

#include <pthread.h>
#include "../kernels/cuda/dgemm_args.h"
#include "../kernels/cuda/hgemm_args.h"
#include "../kernels/cuda/sgemm_args.h"
#include "cuda_driver.h"
#include "cuda_orient.h"
#include "gemm.h"

/* A block tile of the SIMT kernels (DLG_SGEMM_TILE_LIST order). */
typedef struct dlg_sgemm_tile { int bm, bn, bk, smem; } dlg_sgemm_tile;
extern const dlg_sgemm_tile dlg_sgemm_tiles[DLG_TILES];

/* The host-array engine's state: streams, pinned staging chunks and events,
 * made on its first call and kept; one call at a time holds the lock. */
enum { DLG_OFFLOAD_COMPUTE_STREAMS = 3 };
typedef struct dlg_offload {
  pthread_mutex_t lock;
  int ready;
  CUstream h2d, d2h, compute[DLG_OFFLOAD_COMPUTE_STREAMS];
  char *pinned;          /* nin + nout chunks of `chunk` bytes */
  size_t chunk;
  int nin, nout;
  CUevent *chunk_done;   /* per chunk: its last copy finished */
  int *chunk_busy;
  CUevent *events;       /* grow-only: panels arrived, tiles computed */
  int nevents;
  int threads;           /* copy pool parallelism */
  size_t budget;         /* device bytes one call may hold */
} dlg_offload;

typedef struct dlg_cuda_device {
  int ordinal;
  CUcontext ctx;     /* the primary context: the one the runtime API uses too */
  CUmodule module;
  CUfunction sgemm[DLG_TILES][4]; /* [tile][a_kc * 2 + b_kc] */
  CUfunction sgemm_streamk[DLG_TILES][4];
  int blocks_per_sm[DLG_TILES];   /* occupancy of each tile's kernels */
  CUfunction splitk_reduce;
  CUfunction sgpr, sgpr_edge; /* sgemm_sgpr.cu: full 64-row blocks, and any */
  CUfunction dgemm[4];        /* dgemm_dmma.cu, [a_kc * 2 + b_kc] */
  /* hgemm_mma.cu, [DLG_TC_* kind][a_kc * 2 + b_kc]; TF32 has kk only */
  CUfunction hgemm_mma[DLG_TC_KINDS][4];
  CUfunction tf32_pack;         /* tf32_pack.cu */
  CUmodule module_sm90a;        /* compute capability 9.0 only, else NULL */
  /* hgemm_wgmma.cu, [width index, DLG_WGMMA_BN(i)] then as hgemm_mma (TF32
   * also rk); NULL without sm_90a, or where a width has no kernel of that kind */
  CUfunction hgemm_wgmma[DLG_WGMMA_WIDTHS][DLG_TC_KINDS][4];
  CUmemoryPool pool; /* split-K workspaces: stream-ordered, kept for reuse */
  int sms;
  char name[96], bus_id[32]; /* for the routing model's cache key and messages */
  dlg_offload offload;       /* the host-array engine (cuda_offload.c) */
} dlg_cuda_device;

/* The device, initialised on first use (context, module loaded from the
 * embedded fatbin), or NULL with a dlgemm_last_error() message. */
dlg_cuda_device *dlg_cuda_device_get(int ordinal);

/* Queue g (operands in this device's memory) on stream; the context must be
 * current.  Returns a status; nothing is synchronised. */
dlgemm_status dlg_cuda_sgemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream);

/* The same for a dlg_gemm of doubles (the FP64 tensor-core kernel). */
dlgemm_status dlg_cuda_dgemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream);

/* The same for float16 / bfloat16 inputs (the tensor-core kernels). */
dlgemm_status dlg_cuda_hgemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream);

/* The same for float32 under the TF32 and 3xTF32 policies (cuda_tf32.c). */
dlgemm_status dlg_cuda_tf32(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream);

/* The tensor-core kernels of kind (DLG_TC_*) on X = op1 * op2, a batch of
 * them, a's sizes, strides and pointers already set (in 16-bit units for
 * TF32): the wgmma kernels where they apply, else the mma.sync ones. */
dlgemm_status dlg_cuda_tc_run(dlg_cuda_device *dev, int kind, int64_t batch,
                              const dlg_operand *op1, const dlg_operand *op2,
                              const dlg_hgemm_args *a, CUstream stream);

/* The same on the sm_90a wgmma kernels only: 1 when launched, 0 when they
 * do not apply (no kernel for the layout or kind, a shape or an alignment
 * TMA cannot take, the family pinned to mma.sync) and nothing was queued,
 * -1 with *r set when the launch failed. */
int dlg_cuda_wgmma_launch(dlg_cuda_device *dev, int kind, int64_t batch, const dlg_operand *op1,
                          const dlg_operand *op2, const dlg_hgemm_args *a, CUstream stream,
                          CUresult *r);

/* Queue g (operands on this device) on stream, by its dtypes. */
dlgemm_status dlg_cuda_gemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream);

/* g on host memory through the engine (cuda_offload.c): synchronous.  A
 * failure before C was touched returns a status (the caller falls back); a
 * failure after finishes the remaining tiles on the next BLAS, returns
 * DLGEMM_OK and says so in dlg_note(). */
dlgemm_status dlg_cuda_offload(dlg_cuda_device *dev, const dlg_gemm *g);

/* The engine's link: bytes/s of pinned copies to and from the device and of
 * the copy pool staging pageable memory (measured for the routing model). */
dlgemm_status dlg_cuda_offload_measure(dlg_cuda_device *dev, double *to_device,
                                       double *to_host, double *staging);

/* Whether g on host memory finishes sooner on this GPU than on the next
 * BLAS, by the routing model (cuda_model.c); why[] gives both estimates. */
int dlg_cuda_offload_pays(dlg_cuda_device *dev, const dlg_gemm *g, char *why, size_t why_len);

/* 1 in a child forked after this process set up a CUDA device: the child
 * cannot use it, so every call there stays on the CPU. */
int dlg_cuda_forked(void);

#endif
