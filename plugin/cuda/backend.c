/*
 * backend.c - the CUDA backend's entry: what it takes, and where each call
 * goes: device tensors to the kernels on the caller's stream, host arrays
 * to the host-array engines (one call over every device of
 * hostarray/slots.h: spread.c), and the cost models for the router.
 * Complex tensors go to the level-3 code's complex GEMM
 * (level3/complex_gemm.c) from here, not from device/gemm.c: that code is
 * built on the kernels' launchers, so device/ cannot look up to it.
 */
#include "core/calllog.h"
#include "core/errors.h"
#include "cuda/device/device.h"
#include "cuda/device/driver.h"
#include "cuda/backend.h"
#include "cuda/device/gemm.h"
#include "cuda/device/pointers.h"
#include "cuda/hostarray/slots.h"
#include "cuda/spread.h"
#include "cuda/lapack/offload.h"
#include "cuda/level3/complex_gemm.h"
#include "cuda/level3/offload.h"
#include "cuda/model.h"

/* FP32 (SIMT, or the tensor cores under the TF32 policies), FP64 (DMMA)
 * and complex64 / complex128 (one of those on the 4M embedding), on device
 * memory or host arrays; float16 / bfloat16 (tensor cores) on device
 * memory. */
static int cuda_supports(const dlg_gemm *g)
{
  if (dlg_is_half(g->dtype_in)) return g->place == DLG_CUDA;
  return g->dtype_in == g->dtype && (g->place == DLG_HOST || g->place == DLG_CUDA);
}

/* Usable when the first device of host-array calls is: the one every rank
 * of a job asks about is then its own, not device 0. */
static int cuda_probe(char *why, size_t len)
{
  const dlg_device_choice *slots = dlg_cuda_slots();
  return dlg_cuda_device_probe(slots->n ? slots->ordinal[0] : 0, why, len);
}

/* A level-3 routine on host arrays: whether the whole trip (level3/) beats
 * the next BLAS, by the host model of the first device (slot 0), where it
 * runs. */
static int cuda_level3_pays(const dlg_level3 *x, char *why, size_t len)
{
  double in, out;
  /* an 80^3 product's worth: the whole trip costs about 100-130 us there
   * (H100, every routine at n = 64 and 96), which netlib's DSYR2K at n = 64
   * beats by 10%; asked first, so that small calls never start the GPU */
  if (dlg_level3_flops(x) < 2.0 * 80 * 80 * 80) {
    dlg_copy_text(why, len, "below an 80^3 product");
    return 0;
  }
  if (!dlg_cuda_slot_device(0)) {
    dlg_copy_text(why, len, "no CUDA device");
    return 0;
  }
  dlg_cuda_level3_bytes(x, &in, &out);
  return dlg_cuda_whole_offload_pays(0, dlg_real_of(x->dtype), dlg_level3_flops(x), in, out, why,
                                     len);
}

/* Host arrays: real ones by the engine's model of the first device (slot
 * 0: a call split over several is at least as fast); complex ones make one
 * level-3 trip per batch entry, each the first entry's question. */
static int cuda_prefer(const dlg_gemm *g, char *why, size_t len)
{
  if (dlg_is_complex(g->dtype)) {
    const dlg_level3 x = dlg_level3_of_gemm(g, 0);
    return cuda_level3_pays(&x, why, len);
  }
  return dlg_cuda_offload_pays(0, g, why, len);
}

static dlgemm_status cuda_run(const dlg_gemm *g)
{
  const dlg_cuda_api *cu;
  dlg_cuda_device *dev;
  char why[160];
  CUresult r;
  dlgemm_status st;
  if (g->place == DLG_HOST)
    return dlg_is_complex(g->dtype) ? dlg_cuda_complex_host(g) : dlg_cuda_offload(g);
  if (!(dev = dlg_cuda_device_get(g->device_id)) || !(cu = dlg_cuda_api_get(why, sizeof why)))
    return DLGEMM_ERR_NO_BACKEND;
  /* Device tensors: on their own device, on the caller's stream, in the
   * device's primary context, leaving the caller's current context as it
   * was. */
  dlg_log_devices("cuda:%d", dev->ordinal);
  if ((r = cu->CtxPushCurrent(dev->ctx)))
    return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA device %d: %s", dev->ordinal,
                    dlg_cuda_error(r));
  if (!(st = dlg_cuda_check_pointers(cu, g, dev->ordinal)))
    st = dlg_is_complex(g->dtype) ? dlg_cuda_complex_device(dev, cu, g, (CUstream)g->stream)
                                  : dlg_cuda_gemm(dev, g, (CUstream)g->stream);
  cu->CtxPopCurrent(NULL);
  return st;
}

const dlg_backend dlg_backend_cuda = {
    "cuda",      DLGEMM_BACKEND_CUDA, cuda_probe, cuda_supports, cuda_run, cuda_prefer,
    dlg_cuda_factor, dlg_cuda_factor_pays, dlg_cuda_level3, cuda_level3_pays,
};
