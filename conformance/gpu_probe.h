/*
 * gpu_probe.h - for GPU-only tests: is dlgemm's CUDA backend usable here?
 * Asks the library itself (a 1x1 product with the CUDA backend requested),
 * so the answer is exactly the router's.  Prints the reason when it is not.
 */
#ifndef DLG_GPU_PROBE_H
#define DLG_GPU_PROBE_H

#include <stdio.h>
#include "dlgemm.h"

static inline int cuda_backend_usable(const char *who)
{
  float a = 1, b = 1, c = 0;
  int64_t one[2] = {1, 1};
  DLTensor ta = {&a, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, one, NULL, 0};
  DLTensor tb = {&b, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, one, NULL, 0};
  DLTensor tc = {&c, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, one, NULL, 0};
  dlgemm_options o;
  dlgemm_options_init(&o);
  o.backend = DLGEMM_BACKEND_CUDA;
  if (dlgemm_matmul(&ta, &tb, &tc, 1, 0, &o) == DLGEMM_OK && c == 1) return 1;
  printf("SKIP: %s needs a usable CUDA backend: %s\n", who, dlgemm_last_error());
  return 0;
}

#endif
