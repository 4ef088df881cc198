/*
 * driver.h - the HIP runtime API, loaded at run time from libamdhip64.
 *
 * Declared here rather than taken from hip_runtime_api.h: libdlgemm.so is
 * plain C, builds without the ROCm headers, and uses a dozen functions whose
 * C signatures have been stable since ROCm 4.  Handles are opaque pointers,
 * errors are ints (hipSuccess = 0).
 */
#ifndef DLG_HIP_DRIVER_H
#define DLG_HIP_DRIVER_H

#include <stddef.h>

typedef int hip_err;
typedef void *hip_module;
typedef void *hip_function;
typedef void *hip_stream;

enum { HIP_MEMCPY_HOST_TO_DEVICE = 1, HIP_MEMCPY_DEVICE_TO_HOST = 2, HIP_STREAM_NON_BLOCKING = 1 };

typedef struct dlg_hip_api {
  hip_err (*GetDeviceCount)(int *);
  hip_err (*GetDevice)(int *);
  hip_err (*SetDevice)(int);
  hip_err (*ModuleLoadData)(hip_module *, const void *);
  hip_err (*ModuleGetFunction)(hip_function *, hip_module, const char *);
  hip_err (*ModuleLaunchKernel)(hip_function, unsigned, unsigned, unsigned, unsigned, unsigned,
                                unsigned, unsigned, hip_stream, void **, void **);
  hip_err (*Malloc)(void **, size_t);
  hip_err (*Free)(void *);
  hip_err (*Memcpy2DAsync)(void *, size_t, const void *, size_t, size_t, size_t, int, hip_stream);
  hip_err (*StreamCreateWithFlags)(hip_stream *, unsigned);
  hip_err (*StreamSynchronize)(hip_stream);
  const char *(*GetErrorString)(hip_err);
} dlg_hip_api;

/* The runtime's entry points, or NULL with why[] filled in (no libamdhip64,
 * or a function missing).  Loaded once, thread-safely. */
const dlg_hip_api *dlg_hip_api_get(char *why, size_t why_len);

const char *dlg_hip_error(hip_err e);

#endif
