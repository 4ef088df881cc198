/*
 * sgemm.h - per-GPU state of the HIP backend (AMD, gfx906 code objects)
 * and the launcher of its kernels.
 *
 * BUILT ONLY: no AMD GPU exists where this project is developed and tested,
 * so everything behind the HIP backend's device setup has been compiled and
 * reviewed but never run; on our machines the probe reports "no device" and
 * the router moves on.
 */
#ifndef DLG_HIP_SGEMM_H
#define DLG_HIP_SGEMM_H

#include <pthread.h>
#include "core/gemm.h"
#include "hip/driver.h"
#include "kernels/gcn/gcn_args.h"

enum { DLG_GCN_TILES = 3 };

typedef struct dlg_hip_device {
  int ordinal;
  hip_module sgpr_module, generic_module;
  hip_function sgpr[DLG_GCN_TILES]; /* dlg_gcn_sgemm_64x{64,128,256} */
  hip_function generic;             /* dlg_gcn_sgemm_generic */
  /* Host-array path: one stream and one grow-only buffer, under lock. */
  pthread_mutex_t lock;
  hip_stream stream;
  void *staging;
  size_t staging_size;
} dlg_hip_device;

/* Queue g (operands in device memory) on stream; the device must be current. */
dlgemm_status dlg_hip_sgemm(const dlg_hip_device *dev, const dlg_gemm *g, hip_stream stream);

#endif
