/*
 * driver.c - look up the CUDA driver API in libcuda.so.1.
 *
 * The versioned names (_v2) are the ones cuda.h maps the plain names to;
 * asking for them explicitly keeps the ABI the toolkit headers describe.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "core/calllog.h"
#include "core/dynlib.h"
#include "cuda/device/driver.h"

static dlg_cuda_api api;
static int loaded; /* 1: usable, -1: not */
static char load_error[192];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static double load_seconds; /* dlopen and cuInit, for the cold-start line */

static void load(void)
{
  static const char *const libs[] = {"libcuda.so.1", NULL};
  static const dlg_symbol syms[] = {
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
      {"cuMemPoolGetAttribute", offsetof(dlg_cuda_api, MemPoolGetAttribute)},
      {"cuMemAllocFromPoolAsync", offsetof(dlg_cuda_api, MemAllocFromPoolAsync)},
      {"cuMemsetD32Async", offsetof(dlg_cuda_api, MemsetD32Async)},
      {"cuOccupancyMaxActiveBlocksPerMultiprocessor",
       offsetof(dlg_cuda_api, OccupancyMaxActiveBlocksPerMultiprocessor)},
      {"cuMemcpy2DAsync_v2", offsetof(dlg_cuda_api, Memcpy2DAsync)},
      {"cuStreamCreate", offsetof(dlg_cuda_api, StreamCreate)},
      {"cuStreamSynchronize", offsetof(dlg_cuda_api, StreamSynchronize)},
      {"cuStreamDestroy_v2", offsetof(dlg_cuda_api, StreamDestroy)},
      {"cuLaunchKernel", offsetof(dlg_cuda_api, LaunchKernel)},
      {"cuGetErrorString", offsetof(dlg_cuda_api, GetErrorString)},
      {"cuLaunchKernelEx", offsetof(dlg_cuda_api, LaunchKernelEx)},
      {"cuOccupancyMaxActiveClusters", offsetof(dlg_cuda_api, OccupancyMaxActiveClusters)},
      {"cuEventCreate", offsetof(dlg_cuda_api, EventCreate)},
      {"cuEventRecord", offsetof(dlg_cuda_api, EventRecord)},
      {"cuEventQuery", offsetof(dlg_cuda_api, EventQuery)},
      {"cuEventSynchronize", offsetof(dlg_cuda_api, EventSynchronize)},
      {"cuStreamWaitEvent", offsetof(dlg_cuda_api, StreamWaitEvent)},
      {"cuEventDestroy_v2", offsetof(dlg_cuda_api, EventDestroy)},
      {"cuMemcpyHtoDAsync_v2", offsetof(dlg_cuda_api, MemcpyHtoDAsync)},
      {"cuMemcpyDtoHAsync_v2", offsetof(dlg_cuda_api, MemcpyDtoHAsync)},
      {"cuMemHostAlloc", offsetof(dlg_cuda_api, MemHostAlloc)},
      {"cuMemFreeHost", offsetof(dlg_cuda_api, MemFreeHost)},
      {"cuMemGetInfo_v2", offsetof(dlg_cuda_api, MemGetInfo)},
      {"cuPointerGetAttributes", offsetof(dlg_cuda_api, PointerGetAttributes)},
      {"cuDeviceGetName", offsetof(dlg_cuda_api, DeviceGetName)},
      {"cuDeviceGetPCIBusId", offsetof(dlg_cuda_api, DeviceGetPCIBusId)},
      {"cuDeviceCanAccessPeer", offsetof(dlg_cuda_api, DeviceCanAccessPeer)},
      {"cuMemPoolSetAccess", offsetof(dlg_cuda_api, MemPoolSetAccess)},
      {"cuMemcpyPeerAsync", offsetof(dlg_cuda_api, MemcpyPeerAsync)},
      {"cuMemcpyDtoDAsync_v2", offsetof(dlg_cuda_api, MemcpyDtoDAsync)},
      {"cuCtxGetDevice", offsetof(dlg_cuda_api, CtxGetDevice)},
      {"cuStreamIsCapturing", offsetof(dlg_cuda_api, StreamIsCapturing)},
      /* the first version: every driver has it (cuda.h maps the name to _v2, 12.8 and later) */
      {"cuEventElapsedTime", offsetof(dlg_cuda_api, EventElapsedTime)},
      {"cuTensorMapEncodeTiled", offsetof(dlg_cuda_api, TensorMapEncodeTiled)},
  };
  CUresult r;
  const double t0 = dlg_now();
  if (dlg_dynlib_bind(libs, "NVIDIA driver", syms, sizeof syms / sizeof syms[0], &api, load_error,
                      sizeof load_error)) {
    loaded = -1;
    return;
  }
  if ((r = api.Init(0)) != CUDA_SUCCESS) {
    snprintf(load_error, sizeof load_error, "cuInit failed: %s", dlg_cuda_error(r));
    loaded = -1;
    return;
  }
  loaded = 1;
  load_seconds = dlg_now() - t0;
}

double dlg_cuda_api_seconds(void) { return load_seconds; }

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

/* A launch's configuration with one attribute, at (none where NULL). */
static void launch_config(CUlaunchConfig *lc, CUlaunchAttribute *at, const unsigned grid[3],
                          const unsigned block[3], unsigned smem, CUstream stream)
{
  memset(lc, 0, sizeof *lc);
  lc->gridDimX = grid[0], lc->gridDimY = grid[1], lc->gridDimZ = grid[2];
  lc->blockDimX = block[0], lc->blockDimY = block[1], lc->blockDimZ = block[2];
  lc->sharedMemBytes = smem, lc->hStream = stream;
  lc->attrs = at, lc->numAttrs = at != NULL;
}

/* f launched with that configuration. */
static CUresult launch_with(const dlg_cuda_api *cu, CUfunction f, CUlaunchAttribute *at,
                            const unsigned grid[3], const unsigned block[3], unsigned smem,
                            CUstream stream, void **params)
{
  CUlaunchConfig lc;
  launch_config(&lc, at, grid, block, smem, stream);
  return cu->LaunchKernelEx(&lc, f, params, NULL);
}

/* An attribute of one id, its value to be set. */
static CUlaunchAttribute attribute(CUlaunchAttributeID id)
{
  CUlaunchAttribute at;
  memset(&at, 0, sizeof at);
  at.id = id;
  return at;
}

CUresult dlg_cuda_launch_early(const dlg_cuda_api *cu, CUfunction f, const unsigned grid[3],
                               const unsigned block[3], unsigned smem, CUstream stream,
                               void **params)
{
  CUlaunchAttribute at = attribute(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
  at.value.programmaticStreamSerializationAllowed = 1;
  if (!launch_with(cu, f, &at, grid, block, smem, stream, params)) return CUDA_SUCCESS;
  /* a driver without the attribute: in order */
  return launch_with(cu, f, NULL, grid, block, smem, stream, params);
}

/* The same for clusters of `cluster` blocks along x. */
static void cluster_config(CUlaunchConfig *lc, CUlaunchAttribute *at, const unsigned grid[3],
                           const unsigned block[3], unsigned smem, CUstream stream,
                           unsigned cluster)
{
  *at = attribute(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
  at->value.clusterDim.x = cluster, at->value.clusterDim.y = 1, at->value.clusterDim.z = 1;
  launch_config(lc, at, grid, block, smem, stream);
}

CUresult dlg_cuda_launch_cluster(const dlg_cuda_api *cu, CUfunction f, const unsigned grid[3],
                                 const unsigned block[3], unsigned smem, CUstream stream,
                                 void **params, unsigned cluster)
{
  CUlaunchAttribute at;
  CUlaunchConfig lc;
  cluster_config(&lc, &at, grid, block, smem, stream, cluster);
  return cu->LaunchKernelEx(&lc, f, params, NULL);
}

CUresult dlg_cuda_launch_together(const dlg_cuda_api *cu, CUfunction f, const unsigned grid[3],
                                  const unsigned block[3], unsigned smem, CUstream stream,
                                  void **params)
{
  CUlaunchAttribute at = attribute(CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
  at.value.cooperative = 1;
  return launch_with(cu, f, &at, grid, block, smem, stream, params);
}

CUresult dlg_cuda_clusters_fit(const dlg_cuda_api *cu, CUfunction f, const unsigned grid[3],
                               const unsigned block[3], unsigned smem, unsigned cluster, int *n)
{
  CUlaunchAttribute at;
  CUlaunchConfig lc;
  cluster_config(&lc, &at, grid, block, smem, NULL, cluster);
  return cu->OccupancyMaxActiveClusters(n, f, &lc);
}
