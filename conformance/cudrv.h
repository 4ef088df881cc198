/*
 * cudrv.h - the few CUDA driver calls the GPU tests and benchmarks make,
 * loaded with dlopen so that they build (and skip) where no driver exists.
 */
#ifndef DLG_CUDRV_H
#define DLG_CUDRV_H

#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "dlgemm.h"

typedef struct cudrv {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxGetCurrent)(CUcontext *);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*StreamCreate)(CUstream *, unsigned);
  CUresult (*StreamSynchronize)(CUstream);
  CUresult (*EventCreate)(CUevent *, unsigned);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventSynchronize)(CUevent);
  CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*MemAllocHost)(void **, size_t);
  CUresult (*MemFreeHost)(void *);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*MemGetInfo)(size_t *, size_t *);
  CUresult (*StreamDestroy)(CUstream);
} cudrv;

#define CU(call)                                                                   \
  do {                                                                             \
    CUresult r_ = (call);                                                          \
    if (r_) {                                                                      \
      fprintf(stderr, "%s:%d: %s -> CUresult %d\n", __FILE__, __LINE__, #call, (int)r_); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

/* Load the driver and make device 0's primary context current. */
static inline void cudrv_load(cudrv *cu, CUcontext *ctx)
{
  void *h = dlopen("libcuda.so.1", RTLD_NOW);
  CUdevice dev;
  if (!h) {
    fprintf(stderr, "no NVIDIA driver: %s\n", dlerror());
    exit(1);
  }
#define SYM(f, n) *(void **)&cu->f = dlsym(h, n)
  SYM(Init, "cuInit");
  SYM(DeviceGet, "cuDeviceGet");
  SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  SYM(CtxSetCurrent, "cuCtxSetCurrent");
  SYM(CtxGetCurrent, "cuCtxGetCurrent");
  SYM(MemAlloc, "cuMemAlloc_v2");
  SYM(MemFree, "cuMemFree_v2");
  SYM(MemcpyHtoD, "cuMemcpyHtoD_v2");
  SYM(MemcpyDtoH, "cuMemcpyDtoH_v2");
  SYM(StreamCreate, "cuStreamCreate");
  SYM(StreamSynchronize, "cuStreamSynchronize");
  SYM(EventCreate, "cuEventCreate");
  SYM(EventRecord, "cuEventRecord");
  SYM(EventSynchronize, "cuEventSynchronize");
  SYM(EventElapsedTime, "cuEventElapsedTime_v2");
  SYM(MemAllocHost, "cuMemAllocHost_v2");
  SYM(MemFreeHost, "cuMemFreeHost");
  SYM(DeviceGetCount, "cuDeviceGetCount");
  SYM(MemGetInfo, "cuMemGetInfo_v2");
  SYM(StreamDestroy, "cuStreamDestroy_v2");
#undef SYM
  if (!cu->EventElapsedTime) *(void **)&cu->EventElapsedTime = dlsym(h, "cuEventElapsedTime");
  CU(cu->Init(0));
  CU(cu->DeviceGet(&dev, 0));
  CU(cu->DevicePrimaryCtxRetain(ctx, dev));
  CU(cu->CtxSetCurrent(*ctx));
}

/* The tensor's data (bytes of host memory) copied to a new allocation on
 * the current device, which the tensor then describes (kDLCUDA); returns
 * it.  A copy from pageable memory may return before its DMA lands: a
 * product on a non-blocking stream must wait (cuStreamSynchronize(NULL)). */
static inline CUdeviceptr cudrv_tensor_to_device(const cudrv *cu, DLTensor *t, size_t bytes)
{
  CUdeviceptr d;
  CU(cu->MemAlloc(&d, bytes));
  CU(cu->MemcpyHtoD(d, t->data, bytes));
  t->data = (void *)(uintptr_t)d;
  t->device.device_type = kDLCUDA;
  return d;
}

#endif
