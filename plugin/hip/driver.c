/*
 * driver.c - look up the HIP runtime API in libamdhip64, where the amdgpu
 * compute driver (/dev/kfd) says an AMD GPU can be there at all.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "core/dynlib.h"
#include "hip/driver.h"

static dlg_hip_api api;
static int loaded; /* 1: usable, -1: not */
static char load_error[192];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
  /* DLGEMM_HIP_LIBRARY names another runtime (tests point it nowhere). */
  static const char *libs[] = {NULL, "libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5",
                               NULL};
  static const dlg_symbol syms[] = {
      {"hipGetDeviceCount", offsetof(dlg_hip_api, GetDeviceCount)},
      {"hipGetDevice", offsetof(dlg_hip_api, GetDevice)},
      {"hipSetDevice", offsetof(dlg_hip_api, SetDevice)},
      {"hipModuleLoadData", offsetof(dlg_hip_api, ModuleLoadData)},
      {"hipModuleGetFunction", offsetof(dlg_hip_api, ModuleGetFunction)},
      {"hipModuleLaunchKernel", offsetof(dlg_hip_api, ModuleLaunchKernel)},
      {"hipMalloc", offsetof(dlg_hip_api, Malloc)},
      {"hipFree", offsetof(dlg_hip_api, Free)},
      {"hipMemcpy2DAsync", offsetof(dlg_hip_api, Memcpy2DAsync)},
      {"hipStreamCreateWithFlags", offsetof(dlg_hip_api, StreamCreateWithFlags)},
      {"hipStreamSynchronize", offsetof(dlg_hip_api, StreamSynchronize)},
      {"hipGetErrorString", offsetof(dlg_hip_api, GetErrorString)},
  };
  const char *override = getenv("DLGEMM_HIP_LIBRARY");
  const char *const *try = libs + 1;
  if (override && *override) {
    libs[0] = override;
    libs[1] = NULL;
    try = libs;
  } else if (access("/dev/kfd", F_OK) != 0) {
    /* No amdgpu compute driver, so no AMD GPU: loading the runtime only to
     * hear that cost a program's first call 15 ms where hipcc's runtime is
     * installed (bench/cold_start.sh on the CI machine: dgemm_ n = 64 in
     * 16-17 ms preloaded, 0.7 ms without the load, 0.2 ms plain). */
    snprintf(load_error, sizeof load_error,
             "no AMD GPU (/dev/kfd absent: the amdgpu driver is not loaded)");
    loaded = -1;
    return;
  }
  loaded = dlg_dynlib_bind(try, "HIP runtime", syms, sizeof syms / sizeof syms[0], &api,
                           load_error, sizeof load_error)
               ? -1
               : 1;
}

const dlg_hip_api *dlg_hip_api_get(char *why, size_t why_len)
{
  pthread_once(&once, load);
  if (loaded == 1) return &api;
  snprintf(why, why_len, "%s", load_error);
  return NULL;
}

const char *dlg_hip_error(hip_err e)
{
  const char *s = api.GetErrorString ? api.GetErrorString(e) : NULL;
  return s ? s : "unknown HIP error";
}
