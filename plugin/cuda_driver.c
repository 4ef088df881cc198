/*
 * cuda_driver.c - look up the CUDA driver API in libcuda.so.1.
 *
 * The versioned names (_v2) are the ones cuda.h maps the plain names to;
 * asking for them explicitly keeps the ABI the toolkit headers describe.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "cuda_driver.h"

static dlg_cuda_api api;
static int loaded; /* 1: usable, -1: not */
static char load_error[192];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
  static const struct { const char *name; size_t offset; } syms[] = {
      {"cuInit", offsetof(dlg_cuda_api, Init)},
      {"cuDeviceGetCount", offsetof(dlg_cuda_api, DeviceGetCount)},
      {"cuDeviceGet", offsetof(dlg_cuda_api, DeviceGet)},
      {"cuDeviceGetAttribute", offsetof(dlg_cuda_api, DeviceGetAttribute)},
      {"cuDevicePrimaryCtxRetain", offsetof(dlg_cuda_api, DevicePrimaryCtxRetain)},
      {"cuCtxPushCurrent_v2", offsetof(dlg_cuda_api, CtxPushCurrent)},
      {"cuCtxPopCurrent_v2", offsetof(dlg_cuda_api, CtxPopCurrent)},
      {"cuModuleLoadData", offsetof(dlg_cuda_api, ModuleLoadData)},
      {"cuModuleGetFunction", offsetof(dlg_cuda_api, ModuleGetFunction)},
      {"cuFuncSetAttribute", offsetof(dlg_cuda_api, FuncSetAttribute)},
      {"cuMemAlloc_v2", offsetof(dlg_cuda_api, MemAlloc)},
      {"cuMemFree_v2", offsetof(dlg_cuda_api, MemFree)},
      {"cuMemFreeAsync", offsetof(dlg_cuda_api, MemFreeAsync)},
      {"cuMemPoolCreate", offsetof(dlg_cuda_api, MemPoolCreate)},
      {"cuMemPoolSetAttribute", offsetof(dlg_cuda_api, MemPoolSetAttribute)},
      {"cuMemAllocFromPoolAsync", offsetof(dlg_cuda_api, MemAllocFromPoolAsync)},
      {"cuOccupancyMaxActiveBlocksPerMultiprocessor",
       offsetof(dlg_cuda_api, OccupancyMaxActiveBlocksPerMultiprocessor)},
      {"cuMemcpy2DAsync_v2", offsetof(dlg_cuda_api, Memcpy2DAsync)},
      {"cuStreamCreate", offsetof(dlg_cuda_api, StreamCreate)},
      {"cuStreamSynchronize", offsetof(dlg_cuda_api, StreamSynchronize)},
      {"cuLaunchKernel", offsetof(dlg_cuda_api, LaunchKernel)},
      {"cuGetErrorString", offsetof(dlg_cuda_api, GetErrorString)},
  };
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  size_t i;
  CUresult r;
  if (!h) {
    snprintf(load_error, sizeof load_error, "no NVIDIA driver (libcuda.so.1: %s)", dlerror());
    loaded = -1;
    return;
  }
  for (i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    void *f = dlsym(h, syms[i].name);
    if (!f) {
      snprintf(load_error, sizeof load_error, "libcuda.so.1 lacks %s (driver too old)",
               syms[i].name);
      loaded = -1;
      return;
    }
    memcpy((char *)&api + syms[i].offset, &f, sizeof f);
  }
  if ((r = api.Init(0)) != CUDA_SUCCESS) {
    snprintf(load_error, sizeof load_error, "cuInit failed: %s", dlg_cuda_error(r));
    loaded = -1;
    return;
  }
  loaded = 1;
}

const dlg_cuda_api *dlg_cuda_api_get(char *why, size_t why_len)
{
  pthread_once(&once, load);
  if (loaded == 1) return &api;
  snprintf(why, why_len, "%s", load_error);
  return NULL;
}

const char *dlg_cuda_error(CUresult r)
{
  const char *s = NULL;
  if (api.GetErrorString && api.GetErrorString(r, &s) == CUDA_SUCCESS && s) return s;
  return "unknown CUDA error";
}
