/*
 * device.c - the CUDA backend's per-GPU state: context, the kernel
 * families' modules, the workspace pool; set up once per device, under a
 * lock, on first use (the modules' functions: kernels.c, per set).
 *
 * Kernels are SASS compiled ahead of time (DLGEMM_CUDA_ARCHS), one fatbin per
 * kernel family (one translation unit each, so they build in parallel),
 * embedded in the library and listed in dlg_cuda_images (images.h);
 * cuModuleLoadData picks each fatbin's cubin for the device, so nothing is
 * JIT-compiled.  The sm_90a families (wgmma) load on compute capability 9.0
 * only.
 */
#include <stdio.h>
#include <string.h>
#include "core/calllog.h"
#include "core/config.h"
#include "core/errors.h"
#include "core/fork.h"
#include "cuda/device/device.h"
#include "cuda/device/images.h"
#include "gpu/device_once.h"

static dlg_cuda_device devices[DLG_MAX_DEVICES];
static dlg_device_once devices_once = DLG_DEVICE_ONCE_INIT;

/* The images this device runs: every portable one, and the sm_90a ones on
 * compute capability 9.0 exactly (sm_90a code runs there only). */
static CUresult load_modules(const dlg_cuda_api *cu, dlg_cuda_device *dev, int major, int minor)
{
  const dlg_cuda_image *im;
  CUresult r;
  for (im = dlg_cuda_images; im->family; im++) {
    if (im->sm90a && !(major == 9 && minor == 0)) continue;
    if (dev->nmodules == DLG_CUDA_MAX_MODULES) return CUDA_ERROR_INVALID_IMAGE;
    if ((r = cu->ModuleLoadData(&dev->modules[dev->nmodules], im->fatbin))) {
      if (im->sm90a) continue; /* without it only the mma.sync kernels run */
      return r;
    }
    dev->module_family[dev->nmodules++] = im->family;
  }
  return CUDA_SUCCESS;
}

/* dlgemm's own pool, so its workspaces neither come from nor trim the
 * application's default pool.  Freed blocks stay reserved up to the
 * threshold, DLGEMM_DEVICE_MB or else half the GPU's memory, and the next
 * call on any stream reuses them: a lower threshold gave large workspaces
 * back at every synchronisation and mapped them again on the next call
 * (the TF32 packing workspace is 1.5 GB at 8192^3). */
static CUresult create_pool(const dlg_cuda_api *cu, dlg_cuda_device *dev, int ordinal)
{
  CUmemPoolProps props;
  const double mb = dlg_config_get()->device_mb;
  size_t freeb = 0, total = 0;
  cuuint64_t keep;
  CUresult r;
  if ((r = cu->MemGetInfo(&freeb, &total))) return r;
  keep = mb > 0 ? (cuuint64_t)(mb * 1048576.0) : (cuuint64_t)total / 2;
  memset(&props, 0, sizeof props);
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = ordinal;
  if ((r = cu->MemPoolCreate(&dev->pool, &props))) return r;
  return cu->MemPoolSetAttribute(dev->pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
}

/* A child forked after the parent set up a device inherits a CUDA state it
 * cannot use (the driver does not support it); it must answer on the CPU
 * rather than hang in the driver. */
static volatile int forked;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void in_child(void) { forked = 1; }
static void register_atfork(void)
{
  static const dlg_fork_hooks hooks = {NULL, NULL, in_child};
  dlg_fork_register(&hooks);
}

static int setup(dlg_cuda_device *dev, int ordinal, char *why, size_t len)
{
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, len);
  CUdevice d;
  CUresult r;
  int count = 0, major = 0, minor = 0;
  double at[3]; /* when the context and the modules were ready */
  if (!cu) return -1;
  at[0] = dlg_now();
  if ((r = cu->DeviceGetCount(&count)) != CUDA_SUCCESS || count == 0) {
    snprintf(why, len, "no CUDA device (%s)", r ? dlg_cuda_error(r) : "count is 0");
    return -1;
  }
  if (ordinal >= count) {
    snprintf(why, len, "CUDA device %d does not exist (%d present)", ordinal, count);
    return -1;
  }
  if ((r = cu->DeviceGet(&d, ordinal)) || (r = cu->DevicePrimaryCtxRetain(&dev->ctx, d)) ||
      (r = cu->DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d)) ||
      (r = cu->DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d)) ||
      (r = cu->DeviceGetAttribute(&dev->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d))) {
    snprintf(why, len, "CUDA device %d: %s", ordinal, dlg_cuda_error(r));
    return -1;
  }
  if (major < 8) {
    snprintf(why, len, "CUDA device %d is sm_%d0; dlgemm's kernels need sm_80 or newer",
             ordinal, major);
    return -1;
  }
  if ((r = cu->CtxPushCurrent(dev->ctx))) {
    snprintf(why, len, "CUDA device %d: %s", ordinal, dlg_cuda_error(r));
    return -1;
  }
  at[1] = dlg_now();
  r = load_modules(cu, dev, major, minor);
  at[2] = dlg_now();
  if (!r) r = create_pool(cu, dev, ordinal);
  cu->CtxPopCurrent(NULL);
  pthread_mutex_init(&dev->sets_lock, NULL);
  if (r) {
    /* the kernels were built with the toolkit; a driver older than it refuses them */
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == CUDA_ERROR_NO_BINARY_FOR_GPU)
      snprintf(why, len, "CUDA device %d: loading dlgemm's kernels: %s (the NVIDIA driver is "
               "older than CUDA %d.%d, which they were built with)", ordinal, dlg_cuda_error(r),
               CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
    else
      snprintf(why, len, "CUDA device %d: loading dlgemm's kernels: %s", ordinal,
               dlg_cuda_error(r));
    return -1;
  }
  dev->ordinal = ordinal;
  if (cu->DeviceGetName(dev->name, sizeof dev->name, d)) snprintf(dev->name, sizeof dev->name, "?");
  if (cu->DeviceGetPCIBusId(dev->bus_id, sizeof dev->bus_id, d))
    snprintf(dev->bus_id, sizeof dev->bus_id, "%d", ordinal);
  pthread_once(&atfork_once, register_atfork);
  /* the first call's share of a cold start (bench/cold_start.sh) */
  if (dlg_config_get()->verbose)
    fprintf(stderr, "dlgemm: cuda:%d ready in %.1f ms (driver loaded in %.1f before): context "
            "%.1f, %d modules %.1f, pool %.1f\n", ordinal, (dlg_now() - at[0]) * 1e3,
            dlg_cuda_api_seconds() * 1e3, (at[1] - at[0]) * 1e3, dev->nmodules,
            (at[2] - at[1]) * 1e3, (dlg_now() - at[2]) * 1e3);
  return 0;
}

static int setup_device(int ordinal, char *why, size_t len)
{
  return setup(&devices[ordinal], ordinal, why, len);
}

dlg_cuda_device *dlg_cuda_device_get(int ordinal)
{
  if (forked) {
    dlg_fail(DLGEMM_ERR_NO_BACKEND, "CUDA cannot be used in a process forked after CUDA was set "
             "up in its parent");
    return NULL;
  }
  return dlg_device_ready(&devices_once, ordinal, setup_device, "CUDA") ? &devices[ordinal] : NULL;
}

int dlg_cuda_device_probe(int ordinal, char *why, size_t len)
{
  if (forked) {
    snprintf(why, len, "CUDA cannot be used in a process forked after CUDA was set up in its "
             "parent");
    return DLGEMM_ERR_NO_BACKEND;
  }
  return dlg_device_probe(&devices_once, ordinal, setup_device, "CUDA", why, len);
}

/* this thread's call: planned without workspaces; refused one */
static _Thread_local int lean, denied;

int dlg_cuda_lean(void) { return lean; }
void dlg_cuda_set_lean(int on) { lean = on; }
int dlg_cuda_take_denied(void)
{
  const int was = denied;
  denied = 0;
  return was;
}

CUresult dlg_cuda_workspace(const dlg_cuda_api *cu, const dlg_cuda_device *dev, size_t bytes,
                            CUstream s, CUdeviceptr *work)
{
  const CUresult r = dlg_fault_injected(DLG_FAULT_WORKSPACE)
                         ? CUDA_ERROR_OUT_OF_MEMORY
                         : cu->MemAllocFromPoolAsync(work, bytes, dev->pool, s);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) denied = 1;
  if (r) *work = 0;
  return r;
}

CUresult dlg_cuda_counted_work(const dlg_cuda_api *cu, const dlg_cuda_device *dev, size_t parts,
                               size_t counters, CUstream s, CUdeviceptr *work, CUdeviceptr *counts)
{
  CUresult r = dlg_cuda_workspace(cu, dev, parts + counters * sizeof(int), s, work);
  if (r) {
    *work = 0;
    return r;
  }
  *counts = *work + parts;
  if (counters && (r = cu->MemsetD32Async(*counts, 0, counters, s))) {
    cu->MemFreeAsync(*work, s);
    *work = 0;
  }
  return r;
}
