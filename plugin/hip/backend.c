/*
 * backend.c - the HIP backend: AMD device state and the backend entry.
 *
 * Kernels are gfx906/gfx908/gfx90a code objects built at compile time (the assembly
 * SGPR-broadcast kernel and the generic HIP kernel) and embedded; the HIP
 * runtime is loaded with dlopen.  Where there is no runtime, no AMD device,
 * or a device the code objects were not built for, the probe says so and the
 * router moves on.  BUILT ONLY (see sgemm.h): on our machines only the
 * probe's "no device" answer is ever exercised.
 */
#include <stdio.h>
#include <string.h>
#include "core/errors.h"
#include "gpu/device_once.h"
#include "gpu/staging.h"
#include "hip/backend.h"
#include "hip/driver.h"
#include "hip/sgemm.h"

/* Code objects per architecture (CMakeLists.txt, DLGEMM_GCN_ARCHS): the
 * runtime refuses those not built for the device, so the first that loads
 * is the device's. */
extern const unsigned char dlg_gcn_sgpr_gfx906_co[], dlg_gcn_generic_gfx906_co[];
extern const unsigned char dlg_gcn_sgpr_gfx908_co[], dlg_gcn_generic_gfx908_co[];
extern const unsigned char dlg_gcn_sgpr_gfx90a_co[], dlg_gcn_generic_gfx90a_co[];
static const struct code_objects {
  const unsigned char *sgpr, *generic;
} code_objects[] = {
    {dlg_gcn_sgpr_gfx906_co, dlg_gcn_generic_gfx906_co},
    {dlg_gcn_sgpr_gfx908_co, dlg_gcn_generic_gfx908_co},
    {dlg_gcn_sgpr_gfx90a_co, dlg_gcn_generic_gfx90a_co},
};

static dlg_hip_device devices[DLG_MAX_DEVICES];
static dlg_device_once devices_once = DLG_DEVICE_ONCE_INIT;

static int setup(dlg_hip_device *dev, int ordinal, char *why, size_t len)
{
  static const char *const tiles[DLG_GCN_TILES] = {
      "dlg_gcn_sgemm_64x64", "dlg_gcn_sgemm_64x128", "dlg_gcn_sgemm_64x256"};
  const dlg_hip_api *hip = dlg_hip_api_get(why, len);
  int count = 0, previous = 0, t;
  hip_err e;
  if (!hip) return -1;
  if ((e = hip->GetDeviceCount(&count)) || count == 0) {
    snprintf(why, len, "no AMD GPU (%s)", e ? dlg_hip_error(e) : "device count is 0");
    return -1;
  }
  if (ordinal >= count) {
    snprintf(why, len, "HIP device %d does not exist (%d present)", ordinal, count);
    return -1;
  }
  hip->GetDevice(&previous);
  if (!(e = hip->SetDevice(ordinal))) {
    size_t i;
    for (i = 0, e = -1; e && i < sizeof code_objects / sizeof code_objects[0]; i++)
      e = hip->ModuleLoadData(&dev->sgpr_module, code_objects[i].sgpr);
    if (!e) e = hip->ModuleLoadData(&dev->generic_module, code_objects[i - 1].generic);
    for (t = 0; !e && t < DLG_GCN_TILES; t++)
      e = hip->ModuleGetFunction(&dev->sgpr[t], dev->sgpr_module, tiles[t]);
    if (!e) e = hip->ModuleGetFunction(&dev->generic, dev->generic_module, "dlg_gcn_sgemm_generic");
    if (!e) e = hip->StreamCreateWithFlags(&dev->stream, HIP_STREAM_NON_BLOCKING);
  }
  hip->SetDevice(previous);
  if (e) {
    snprintf(why, len, "HIP device %d: loading dlgemm's kernels (built for gfx906, gfx908, "
             "gfx90a): %s", ordinal, dlg_hip_error(e));
    return -1;
  }
  dev->ordinal = ordinal;
  pthread_mutex_init(&dev->lock, NULL);
  return 0;
}

static int setup_device(int ordinal, char *why, size_t len)
{
  return setup(&devices[ordinal], ordinal, why, len);
}

static dlg_hip_device *device_get(int ordinal)
{
  return dlg_device_ready(&devices_once, ordinal, setup_device, "HIP") ? &devices[ordinal] : NULL;
}

static int hip_probe(char *why, size_t len)
{
  return dlg_device_probe(&devices_once, 0, setup_device, "HIP", why, len);
}

static int hip_supports(const dlg_gemm *g)
{
  return g->dtype == DLG_F32 && g->dtype_in == DLG_F32 &&
         (g->place == DLG_HOST || g->place == DLG_ROCM);
}

/* Each batch entry of x between the caller's view and its compact copy. */
static hip_err copy(const dlg_hip_api *hip, const dlg_matrix *x, int64_t batch, char *dev_base,
                    int to_device, hip_stream s)
{
  int64_t p, n = dlg_staged_entries(x, batch);
  hip_err e = 0;
  for (p = 0; p < n && !e; p++) {
    dlg_copy2d c = dlg_staged_copy(x, p, 4);
    char *d = dev_base + c.dev_offset;
    e = to_device ? hip->Memcpy2DAsync(d, c.width, c.host, c.pitch, c.width, c.height,
                                       HIP_MEMCPY_HOST_TO_DEVICE, s)
                  : hip->Memcpy2DAsync(c.host, c.pitch, d, c.width, c.width, c.height,
                                       HIP_MEMCPY_DEVICE_TO_HOST, s);
  }
  return e;
}

/* Host arrays: copy in, compute, copy out, as cuda_host.c does; C is
 * written only after the kernels succeeded. */
static dlgemm_status run_host(const dlg_hip_api *hip, dlg_hip_device *dev, const dlg_gemm *g)
{
  size_t na = dlg_staged_bytes(&g->a, g->batch, 4), nb = dlg_staged_bytes(&g->b, g->batch, 4);
  size_t nc = dlg_staged_bytes(&g->c, g->batch, 4), need = na + nb + nc;
  dlg_gemm d = *g;
  dlgemm_status st = DLGEMM_OK;
  const char *step = "device allocation";
  char *base;
  hip_err e = 0;
  pthread_mutex_lock(&dev->lock);
  if (dev->staging_size < need) {
    if (dev->staging) hip->Free(dev->staging);
    dev->staging = NULL, dev->staging_size = 0;
    if ((e = hip->Malloc(&dev->staging, need))) goto out;
    dev->staging_size = need;
  }
  base = dev->staging;
  d.place = DLG_ROCM;
  d.a = dlg_staged_view(&g->a, (uintptr_t)base);
  d.b = dlg_staged_view(&g->b, (uintptr_t)(base + na));
  d.c = dlg_staged_view(&g->c, (uintptr_t)(base + na + nb));
  step = "copy to device";
  if ((e = copy(hip, &g->a, g->batch, base, 1, dev->stream)) ||
      (e = copy(hip, &g->b, g->batch, base + na, 1, dev->stream)) ||
      (g->beta != 0 && (e = copy(hip, &g->c, g->batch, base + na + nb, 1, dev->stream))))
    goto out;
  if ((st = dlg_hip_sgemm(dev, &d, dev->stream))) goto out;
  step = "kernel";
  if ((e = hip->StreamSynchronize(dev->stream))) goto out;
  step = "copy to host";
  if (!(e = copy(hip, &g->c, g->batch, base + na + nb, 0, dev->stream)))
    e = hip->StreamSynchronize(dev->stream);
out:
  pthread_mutex_unlock(&dev->lock);
  if (e) st = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "HIP %s failed: %s", step, dlg_hip_error(e));
  return st;
}

static dlgemm_status hip_run(const dlg_gemm *g)
{
  char why[160];
  const dlg_hip_api *hip = dlg_hip_api_get(why, sizeof why);
  dlg_hip_device *dev = device_get(g->place == DLG_ROCM ? g->device_id : 0);
  int previous = 0;
  hip_err e;
  dlgemm_status st;
  if (!dev || !hip) return DLGEMM_ERR_NO_BACKEND;
  /* The tensors' device for the call; the caller's current one afterwards. */
  hip->GetDevice(&previous);
  if ((e = hip->SetDevice(dev->ordinal)))
    return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "HIP device %d: %s", dev->ordinal,
                    dlg_hip_error(e));
  st = g->place == DLG_HOST ? run_host(hip, dev, g) : dlg_hip_sgemm(dev, g, (hip_stream)g->stream);
  hip->SetDevice(previous);
  return st;
}

const dlg_backend dlg_backend_hip = {
    "hip", DLGEMM_BACKEND_HIP, hip_probe, hip_supports, hip_run, NULL, NULL, NULL, NULL, NULL,
};
