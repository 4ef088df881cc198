/*
 * gpu_probe.h - for GPU-only tests: is dlgemm's CUDA backend usable here?
 * Asks the library itself (a 1x1 product with the CUDA backend requested),
 * so the answer is exactly the router's.  Prints the reason when it is not.
 * driver_has_gpu() asks the driver instead.
 */
#ifndef DLG_GPU_PROBE_H
#define DLG_GPU_PROBE_H

#include <dlfcn.h>
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

/* Whether the NVIDIA driver sees a GPU, without asking the library: for
 * tests that inject a fault into the library's first GPU event, which a
 * probe through the library would take. */
static inline int driver_has_gpu(void)
{
  void *h = dlopen("libcuda.so.1", RTLD_NOW);
  int (*init)(unsigned), (*count)(int *), n = 0;
  if (!h) return 0;
  *(void **)&init = dlsym(h, "cuInit"), *(void **)&count = dlsym(h, "cuDeviceGetCount");
  return init && count && init(0) == 0 && count(&n) == 0 && n > 0;
}

#endif
