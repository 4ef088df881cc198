/*
 * fake_cuda.c - a stand-in NVIDIA driver (libcuda.so.1) for the broken
 * environments a shared machine has: the GPU machine's own driver is not
 * ours to break, so conformance/broken_env.sh puts this one on the loader's
 * path instead and checks that dlgemm answers on the CPU, right, with one
 * DLGEMM_VERBOSE line saying why.
 *
 * What it does, as the real driver does it:
 *   CUDA_VISIBLE_DEVICES=""   cuInit fails with CUDA_ERROR_NO_DEVICE;
 *   FAKE_CUDA=nodevice        the same (a container with the driver and no /dev/nvidia*);
 *   FAKE_CUDA=zero            cuInit succeeds and there are no devices;
 *   FAKE_CUDA=old             one sm_90 device whose driver is older than the
 *                             kernels: loading them fails with
 *                             CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
 * and, built with FAKE_CUDA_PRE_12, a driver from before CUDA 12 that lacks
 * the entry points dlgemm needs (cuTensorMapEncodeTiled, cuLaunchKernelEx).
 * Everything else answers CUDA_ERROR_NOT_SUPPORTED: no path may get further.
 * The types are the driver ABI's (ints and pointers), not cuda.h's, so that
 * the stubs can share one definition.
 */
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
enum {
  OK = 0,
  NOT_INITIALIZED = 3,
  NO_DEVICE = 100,
  INVALID_DEVICE = 101,
  UNSUPPORTED_PTX_VERSION = 222,
  NOT_SUPPORTED = 801
};
enum { ATTR_SM_COUNT = 16, ATTR_CC_MAJOR = 75, ATTR_CC_MINOR = 76 };

static const char *mode(void)
{
  const char *m = getenv("FAKE_CUDA");
  return m ? m : "";
}

static int ctx_token; /* what a context handle points at */

CUresult cuInit(unsigned flags)
{
  const char *visible = getenv("CUDA_VISIBLE_DEVICES");
  (void)flags;
  if ((visible && !*visible) || !strcmp(mode(), "nodevice")) return NO_DEVICE;
  return OK;
}

CUresult cuDeviceGetCount(int *n)
{
  *n = !strcmp(mode(), "old") ? 1 : 0;
  return OK;
}

CUresult cuDeviceGet(int *dev, int ordinal)
{
  int n;
  cuDeviceGetCount(&n);
  if (ordinal < 0 || ordinal >= n) return INVALID_DEVICE;
  *dev = ordinal;
  return OK;
}

CUresult cuDeviceGetAttribute(int *value, int attr, int dev)
{
  (void)dev;
  switch (attr) {
  case ATTR_CC_MAJOR: *value = 9; return OK;
  case ATTR_CC_MINOR: *value = 0; return OK;
  case ATTR_SM_COUNT: *value = 132; return OK;
  default: return NOT_SUPPORTED;
  }
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
  (void)dev;
  *ctx = &ctx_token;
  return OK;
}

CUresult cuCtxPushCurrent_v2(void *ctx) { (void)ctx; return OK; }

CUresult cuCtxPopCurrent_v2(void **ctx)
{
  if (ctx) *ctx = &ctx_token;
  return OK;
}

CUresult cuModuleLoadData(void **module, const void *image)
{
  (void)module, (void)image;
  return UNSUPPORTED_PTX_VERSION;
}

CUresult cuGetErrorString(CUresult r, const char **s)
{
  switch (r) {
  case NO_DEVICE: *s = "no CUDA-capable device is detected"; return OK;
  case UNSUPPORTED_PTX_VERSION: *s = "the provided PTX was compiled with an unsupported toolchain."; return OK;
  case NOT_SUPPORTED: *s = "operation not supported"; return OK;
  case INVALID_DEVICE: *s = "invalid device ordinal"; return OK;
  default: *s = "unknown error"; return OK;
  }
}

/* The rest of the entry points dlgemm looks up (plugin/cuda/device/driver.c). */
#define STUB(name) \
  CUresult name(void) { return NOT_SUPPORTED; }
STUB(cuModuleGetFunction)
STUB(cuFuncSetAttribute)
STUB(cuMemAlloc_v2)
STUB(cuMemFree_v2)
STUB(cuMemFreeAsync)
STUB(cuMemPoolCreate)
STUB(cuMemPoolSetAttribute)
STUB(cuMemPoolGetAttribute)
STUB(cuMemAllocFromPoolAsync)
STUB(cuMemsetD32Async)
STUB(cuOccupancyMaxActiveBlocksPerMultiprocessor)
STUB(cuMemcpy2DAsync_v2)
STUB(cuStreamCreate)
STUB(cuStreamSynchronize)
STUB(cuStreamDestroy_v2)
STUB(cuLaunchKernel)
STUB(cuOccupancyMaxActiveClusters)
STUB(cuEventCreate)
STUB(cuEventRecord)
STUB(cuEventQuery)
STUB(cuEventSynchronize)
STUB(cuStreamWaitEvent)
STUB(cuEventDestroy_v2)
STUB(cuMemcpyHtoDAsync_v2)
STUB(cuMemcpyDtoHAsync_v2)
STUB(cuMemHostAlloc)
STUB(cuMemFreeHost)
STUB(cuMemGetInfo_v2)
STUB(cuPointerGetAttributes)
STUB(cuDeviceGetName)
STUB(cuDeviceGetPCIBusId)
STUB(cuDeviceCanAccessPeer)
STUB(cuMemPoolSetAccess)
STUB(cuMemcpyPeerAsync)
STUB(cuMemcpyDtoDAsync_v2)
STUB(cuCtxGetDevice)
STUB(cuStreamIsCapturing)
STUB(cuEventElapsedTime)
#ifndef FAKE_CUDA_PRE_12
STUB(cuLaunchKernelEx)
STUB(cuTensorMapEncodeTiled)
#endif
