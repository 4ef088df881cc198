/*
 * driver.h - the CUDA driver API, loaded at run time.
 *
 * libdlgemm.so does not link libcuda: on a machine without the NVIDIA driver
 * it must load and answer on the CPU.  The functions it uses are looked up
 * once with dlopen("libcuda.so.1"); their types come from the toolkit's
 * cuda.h at build time.
 */
#ifndef DLG_CUDA_DRIVER_H
#define DLG_CUDA_DRIVER_H

#include <stddef.h>
#include <cuda.h>

typedef struct dlg_cuda_api {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*CtxPushCurrent)(CUcontext);
  CUresult (*CtxPopCurrent)(CUcontext *);
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*FuncSetAttribute)(CUfunction, CUfunction_attribute, int);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemFreeAsync)(CUdeviceptr, CUstream);
  CUresult (*MemPoolCreate)(CUmemoryPool *, const CUmemPoolProps *);
  CUresult (*MemPoolSetAttribute)(CUmemoryPool, CUmemPool_attribute, void *);
  CUresult (*MemPoolGetAttribute)(CUmemoryPool, CUmemPool_attribute, void *);
  CUresult (*MemAllocFromPoolAsync)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
  CUresult (*MemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
  CUresult (*Memcpy2DAsync)(const CUDA_MEMCPY2D *, CUstream);
  CUresult (*StreamCreate)(CUstream *, unsigned);
  CUresult (*StreamSynchronize)(CUstream);
  CUresult (*StreamDestroy)(CUstream);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, CUstream, void **, void **);
  CUresult (*GetErrorString)(CUresult, const char **);
  /* launches with attributes: early (dlg_cuda_launch_early), or in
   * clusters (dlg_cuda_launch_cluster), and how many clusters fit at once */
  CUresult (*LaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);
  CUresult (*OccupancyMaxActiveClusters)(int *, CUfunction, const CUlaunchConfig *);
  /* the host-array engine */
  CUresult (*EventCreate)(CUevent *, unsigned);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventQuery)(CUevent);
  CUresult (*EventSynchronize)(CUevent);
  CUresult (*StreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*EventDestroy)(CUevent);
  CUresult (*MemFreeHost)(void *);
  CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*MemHostAlloc)(void **, size_t, unsigned);
  CUresult (*MemGetInfo)(size_t *, size_t *);
  CUresult (*PointerGetAttributes)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);
  CUresult (*DeviceGetName)(char *, int, CUdevice);
  CUresult (*DeviceGetPCIBusId)(char *, int, CUdevice);
  /* a split call's panels copied between devices (cuda/spread.c) */
  CUresult (*DeviceCanAccessPeer)(int *, CUdevice, CUdevice);
  CUresult (*MemPoolSetAccess)(CUmemoryPool, const CUmemAccessDesc *, size_t);
  CUresult (*MemcpyPeerAsync)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
  CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  /* dlgemm against the vendor's library on a caller's stream (api/rival.c) */
  CUresult (*CtxGetDevice)(CUdevice *);
  CUresult (*StreamIsCapturing)(CUstream, CUstreamCaptureStatus *);
  CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
  /* the sm_90a tensor-core kernels' TMA descriptors */
  CUresult (*TensorMapEncodeTiled)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                   const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                   const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                   CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
} dlg_cuda_api;

/* The driver's entry points, or NULL with why[] filled in (no libcuda, a
 * function missing, cuInit failed).  Loaded once, thread-safely. */
const dlg_cuda_api *dlg_cuda_api_get(char *why, size_t why_len);
/* Seconds the driver took to load and initialise (DLGEMM_VERBOSE's cold-start line). */
double dlg_cuda_api_seconds(void);

/* "CUDA_ERROR_OUT_OF_MEMORY: out of memory" style text for r. */
const char *dlg_cuda_error(CUresult r);

/* Launch f (grid and block x, y, z; dynamic shared memory; params) on
 * stream as a programmatic dependent of the kernel before it: on compute
 * capability 9.0 it may start once every block of that kernel has executed
 * griddepcontrol.launch_dependents (or ended), and it must execute
 * griddepcontrol.wait before it touches memory that kernel may write (the
 * split products' reduce, narrow.c).  Where the driver refuses the
 * attribute, an ordinary launch. */
CUresult dlg_cuda_launch_early(const dlg_cuda_api *cu, CUfunction f, const unsigned grid[3],
                               const unsigned block[3], unsigned smem, CUstream stream,
                               void **params);

/* f in clusters of `cluster` blocks along x (grid[0] a multiple of it;
 * the wgmma kernels' pairs, hgemm.c). */
CUresult dlg_cuda_launch_cluster(const dlg_cuda_api *cu, CUfunction f, const unsigned grid[3],
                                 const unsigned block[3], unsigned smem, CUstream stream,
                                 void **params, unsigned cluster);

/* f with every block resident at once (a cooperative launch: blocks may
 * wait for each other); the driver refuses a grid larger than fits. */
CUresult dlg_cuda_launch_together(const dlg_cuda_api *cu, CUfunction f, const unsigned grid[3],
                                  const unsigned block[3], unsigned smem, CUstream stream,
                                  void **params);

/* In *n, how many such clusters of f the device runs at once. */
CUresult dlg_cuda_clusters_fit(const dlg_cuda_api *cu, CUfunction f, const unsigned grid[3],
                               const unsigned block[3], unsigned smem, unsigned cluster, int *n);

#endif
