/*
 * device.c - the CUDA backend's per-GPU state: context, the kernel
 * families' modules and functions, the workspace pool; set up once per
 * device, under a lock, on first use.
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
#include "cuda/device/tiles.h"
#include "gpu/device_once.h"

static dlg_cuda_device devices[DLG_MAX_DEVICES];
static dlg_device_once devices_once = DLG_DEVICE_ONCE_INIT;

/* Kernel `name` of kernel family `family` (its image's name, as the build
 * lists it) into *f, allowed smem bytes of dynamic shared memory.  Asking
 * only the family's own module keeps the driver free of failed lookups
 * (compute-sanitizer reports each one); a family whose image did not load
 * is CUDA_ERROR_NOT_FOUND without asking the driver at all. */
static CUresult get_kernel(const dlg_cuda_api *cu, const dlg_cuda_device *dev, const char *family,
                           const char *name, int smem, CUfunction *f)
{
  CUresult r;
  int i;
  for (i = 0; i < dev->nmodules && strcmp(dev->module_family[i], family); i++) {
  }
  if (i == dev->nmodules) return CUDA_ERROR_NOT_FOUND;
  if ((r = cu->ModuleGetFunction(f, dev->modules[i], name)) || !smem) return r;
  return cu->FuncSetAttribute(*f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
}

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

/* The tile's kernels (dlg_sgemm[_streamk]_<BM>x<BN>_<ab>, see sgemm_simt.cu), allowed
 * their dynamic shared memory, and how many of their blocks an SM holds. */
static CUresult load_tile(const dlg_cuda_api *cu, dlg_cuda_device *dev, int t)
{
  static const char *const variant[4] = {"rr", "rk", "kr", "kk"};
  const int bm = dlg_sgemm_tiles[t].bm, bn = dlg_sgemm_tiles[t].bn, smem = dlg_sgemm_tiles[t].smem;
  char name[64];
  CUresult r = CUDA_SUCCESS;
  int v;
  for (v = 0; !r && v < 4; v++) {
    snprintf(name, sizeof name, "dlg_sgemm_%dx%d_%s", bm, bn, variant[v]);
    r = get_kernel(cu, dev, "sgemm_simt", name, smem, &dev->sgemm[t][v]);
    snprintf(name, sizeof name, "dlg_sgemm_streamk_%dx%d_%s", bm, bn, variant[v]);
    if (!r && dlg_sgemm_tiles[t].streamk)
      r = get_kernel(cu, dev, "sgemm_simt", name, smem, &dev->sgemm_streamk[t][v]);
  }
  if (!r)
    r = cu->OccupancyMaxActiveBlocksPerMultiprocessor(&dev->blocks_per_sm[t], dev->sgemm[t][0],
                                                      DLG_SGEMM_THREADS,
                                                      (size_t)dlg_sgemm_tiles[t].smem);
  if (!r && dev->blocks_per_sm[t] < 1) r = CUDA_ERROR_INVALID_VALUE;
  return r;
}

/* The tensor-core kernels dlg_hgemm_<family>_<type>_<ab> of image `image` into
 * f[kind][a_kc * 2 + b_kc], each allowed smem bytes of shared memory: every
 * layout of float16 and bfloat16, TF32's kk, TF32's rk for the wgmma
 * families (wgmma 1; wgmma 2: a wgmma family of the 16-bit kinds only), and
 * TF32X3's kk when the family has it (x3; else NULL: no name is looked up
 * that is not there). */
static CUresult load_hgemm(const dlg_cuda_api *cu, const dlg_cuda_device *dev, const char *image,
                           const char *family, int wgmma, int x3, CUfunction f[DLG_TC_KINDS][4],
                           int smem)
{
  static const char *const type[DLG_TC_KINDS] = {"f16", "bf16", "tf32", "tf32x3"};
  static const char *const variant[4] = {"rr", "rk", "kr", "kk"};
  char name[64];
  CUresult r = CUDA_SUCCESS;
  int t;
  for (t = 0; !r && t < DLG_TC_KINDS * 4; t++) {
    if ((t / 4 == DLG_TC_TF32 && (wgmma == 2 || (t % 4 != 3 && !(wgmma && t % 4 == 1)))) ||
        (t / 4 == DLG_TC_TF32X3 && (t % 4 != 3 || !x3)))
      continue;
    snprintf(name, sizeof name, "dlg_hgemm_%s_%s_%s", family, type[t / 4], variant[t % 4]);
    r = get_kernel(cu, dev, image, name, smem, &f[t / 4][t % 4]);
  }
  return r;
}

/* The factorizations' small kernels (lapack.cu), float and double. */
static CUresult load_lapack(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  static const char *const names[DLG_LAPACK_KERNELS] = {"lu_column", "laswp", "trsm_leaf",
                                                        "potrf_leaf", "tri_add",
                                                        "householder", "unit_lower",
                                                        "larft"};
  char name[48];
  CUresult r = CUDA_SUCCESS;
  int t;
  for (t = 0; !r && t < 2 * DLG_LAPACK_KERNELS; t++) {
    const int precision = t / DLG_LAPACK_KERNELS, kernel = t % DLG_LAPACK_KERNELS;
    snprintf(name, sizeof name, "dlg_%s_%c", names[kernel], "sd"[precision]);
    r = get_kernel(cu, dev, "lapack", name, 0, &dev->lapack[precision][kernel]);
  }
  return r;
}

/* The level-3 routines' small kernels (level3.cu), in s, d, c, z. */
static CUresult load_level3(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  static const char *const names[DLG_L3_KERNELS] = {"scale",    "tri_scale", "tri_merge",
                                                    "symmetrize", "tri_fill", "trsm_leaf",
                                                    "cpack",    "cplain"};
  char name[48];
  CUresult r = CUDA_SUCCESS;
  int t;
  for (t = 0; !r && t < 4 * DLG_L3_KERNELS; t++) {
    const int type = t / DLG_L3_KERNELS, kernel = t % DLG_L3_KERNELS;
    if (type < 2 && kernel >= DLG_L3_CPACK) continue;
    snprintf(name, sizeof name, "dlg_l3_%s_%c", names[kernel], "sdcz"[type]);
    r = get_kernel(cu, dev, "level3", name, 0, &dev->level3[type][kernel]);
  }
  return r;
}

/* How many clusters of two wgmma blocks the device runs at once (hgemm.c's
 * pairs), asked of the 256-wide tile, whose blocks are the largest; 0 where
 * the driver cannot say. */
static int wgmma_pairs(const dlg_cuda_api *cu, const dlg_cuda_device *dev)
{
  const unsigned grid[3] = {(unsigned)dev->sms & ~1u, 1, 1},
                 block[3] = {DLG_WGMMA_THREADS(128), 1, 1};
  int n = 0;
  return dlg_cuda_clusters_fit(cu, dev->hgemm_wgmma[0][DLG_TC_BF16][1], grid, block,
                               DLG_WGMMA_SMEM(128, 256), 2, &n)
             ? 0
             : n;
}

/* The wgmma families, where the sm_90a images loaded.  Not having them (a
 * build without sm_90, another chip, a load failure) only means the
 * mma.sync kernels run. */
static void load_wgmma(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  int t;
  if (load_hgemm(cu, dev, "hgemm_wgmma256", "wgmma", 1, 0, dev->hgemm_wgmma[0],
                 DLG_WGMMA_SMEM(128, 256)) ||
      load_hgemm(cu, dev, "hgemm_wgmma128", "wgmma128", 1, 1, dev->hgemm_wgmma[1],
                 DLG_WGMMA_SMEM(128, 128)) ||
      load_hgemm(cu, dev, "hgemm_wgmma192", "wgmma192", 1, 1, dev->hgemm_wgmma[2],
                 DLG_WGMMA_SMEM(128, 192)) ||
      load_hgemm(cu, dev, "hgemm_wgmma192x192", "wgmma192x192", 2, 0, dev->hgemm_wgmma[3],
                 DLG_WGMMA_SMEM(192, 192))) {
    memset(dev->hgemm_wgmma, 0, sizeof dev->hgemm_wgmma);
    return;
  }
  dev->wgmma_pairs = wgmma_pairs(cu, dev);
  for (t = 0; t < 4; t++) { /* the narrow tile: f16 / bf16, rk / kk */
    char name[48];
    snprintf(name, sizeof name, "dlg_hgemm_wgmma16_%s_%ck", t / 2 ? "bf16" : "f16", "rk"[t % 2]);
    if (get_kernel(cu, dev, "hgemm_wgmma16", name, DLG_WGMMA_SMEM(128, DLG_WGMMA_NARROW_BN),
                   &dev->hgemm_wgmma16[t / 2][t % 2])) {
      memset(dev->hgemm_wgmma16, 0, sizeof dev->hgemm_wgmma16);
      return;
    }
  }
}

/* The narrow kernels (narrow.cu: dlg_narrow_<dot|axpy>_<type>_<bucket>)
 * and how many blocks of each an SM holds (their split-K rule uses it).
 * A lookup that fails leaves all of them out, not the device: their
 * products then go to the tile kernels. */
/* One narrow kernel and how many of its blocks an SM holds. */
static CUresult narrow_kernel(const dlg_cuda_api *cu, dlg_cuda_device *dev, const char *name,
                              CUfunction *f, int *occupancy)
{
  CUresult r = get_kernel(cu, dev, "narrow", name, 0, f);
  return r ? r : cu->OccupancyMaxActiveBlocksPerMultiprocessor(occupancy, *f, DLG_NARROW_THREADS, 0);
}

static void load_narrow(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  static const char *const layout[2] = {"dot", "axpy"};
  static const char *const type[DLG_NARROW_TYPES] = {"f32", "f64", "f16", "bf16"};
  enum { PER_LAYOUT = DLG_NARROW_TYPES * DLG_NARROW_BUCKETS };
  char name[48];
  CUresult r = CUDA_SUCCESS;
  int t;
  for (t = 0; !r && t < 2 * PER_LAYOUT; t++) {
    const int l = t / PER_LAYOUT, ty = t % PER_LAYOUT / DLG_NARROW_BUCKETS,
              b = t % DLG_NARROW_BUCKETS;
    snprintf(name, sizeof name, "dlg_narrow_%s_%s_%d", layout[l], type[ty], 1 << b);
    r = narrow_kernel(cu, dev, name, &dev->narrow[l][ty][b], &dev->narrow_occ[l][ty][b]);
  }
  for (t = 0; !r && t < 4; t++) {
    snprintf(name, sizeof name, "dlg_narrow_tc_%s_%d", t / 2 ? "bf16" : "f16", t % 2 ? 16 : 8);
    r = narrow_kernel(cu, dev, name, &dev->narrow_tc[t / 2][t % 2], &dev->narrow_tc_occ[t / 2][t % 2]);
  }
  if (!r) r = get_kernel(cu, dev, "narrow", "dlg_narrow_reduce_f", 0, &dev->narrow_reduce[0]);
  if (!r) r = get_kernel(cu, dev, "narrow", "dlg_narrow_reduce_d", 0, &dev->narrow_reduce[1]);
  if (!r) {
    CUfunction marker;
    dev->narrow_sums_in_kernel =
        get_kernel(cu, dev, "narrow", "dlg_narrow_sums_in_kernel", 0, &marker) == CUDA_SUCCESS;
  }
  if (r) {
    memset(dev->narrow, 0, sizeof dev->narrow);
    memset(dev->narrow_tc, 0, sizeof dev->narrow_tc);
    memset(dev->narrow_reduce, 0, sizeof dev->narrow_reduce);
  }
}

/* The tiny kernels (tiny.cu: dlg_tiny[4]_<type>); a lookup that fails leaves
 * all of them out, and their products go to the other kernels. */
static void load_tiny(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  static const char *const type[DLG_TINY_TYPES] = {"f32", "f64", "f16", "bf16", "c64", "c128"};
  char name[32];
  int t;
  for (t = 0; t < 2 * DLG_TINY_TYPES; t++) {
    snprintf(name, sizeof name, "dlg_tiny%s_%s", t / DLG_TINY_TYPES ? "4" : "", type[t % DLG_TINY_TYPES]);
    if (get_kernel(cu, dev, "tiny", name, DLG_TINY_SMEM_CAP,
                   &dev->tiny[t / DLG_TINY_TYPES][t % DLG_TINY_TYPES])) {
      memset(dev->tiny, 0, sizeof dev->tiny);
      return;
    }
  }
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
  int count = 0, t, major = 0, minor = 0;
  double at[4]; /* when the context, the modules and the kernels were ready */
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
  for (t = 0; !r && t < DLG_TILES; t++) r = load_tile(cu, dev, t);
  if (!r) r = get_kernel(cu, dev, "sgemm_simt", "dlg_sgemm_splitk_reduce", 0, &dev->splitk_reduce);
  if (!r) r = get_kernel(cu, dev, "sgemm_sgpr", "dlg_sgemm_sgpr_64x128", 0, &dev->sgpr);
  if (!r) r = get_kernel(cu, dev, "sgemm_sgpr", "dlg_sgemm_sgpr_64x128_edge", 0, &dev->sgpr_edge);
  for (t = 0; !r && t < 4; t++) {
    static const char *const ab[4] = {"rr", "rk", "kr", "kk"};
    char name[32];
    snprintf(name, sizeof name, "dlg_dgemm_dmma_%s", ab[t]);
    r = get_kernel(cu, dev, "dgemm_dmma", name, DLG_DGEMM_SMEM, &dev->dgemm[t]);
    snprintf(name, sizeof name, "dlg_dgemm_tail_%s", ab[t]);
    if (!r) r = get_kernel(cu, dev, "dgemm_dmma", name, DLG_DGEMM_SMEM, &dev->dgemm_tail[t]);
  }
  if (!r)
    r = get_kernel(cu, dev, "dgemm_dmma", "dlg_dgemm_splitk_reduce", 0, &dev->dgemm_splitk_reduce);
  for (t = 0; !r && t < 4; t++) { /* sm_90 only: without them the cp.async kernels run */
    static const char *const ab[4] = {"rr", "rk", "kr", "kk"};
    char name[32];
    char tail[40];
    snprintf(name, sizeof name, "dlg_dgemm_tma_%s", ab[t]);
    snprintf(tail, sizeof tail, "dlg_dgemm_tma_tail_%s", ab[t]);
    if (get_kernel(cu, dev, "dgemm_tma", name, DLG_DGEMM_TMA_SMEM, &dev->dgemm_tma[t]) ||
        get_kernel(cu, dev, "dgemm_tma", tail, DLG_DGEMM_TMA_SMEM, &dev->dgemm_tma_tail[t])) {
      memset(dev->dgemm_tma, 0, sizeof dev->dgemm_tma);
      memset(dev->dgemm_tma_tail, 0, sizeof dev->dgemm_tma_tail);
      break;
    }
  }
  if (!r) r = load_hgemm(cu, dev, "hgemm_mma", "mma", 0, 0, dev->hgemm_mma, DLG_HMMA_SMEM);
  /* mma.sync has no promoting variant: 3xTF32 runs as TF32 there (hgemm_args.h) */
  dev->hgemm_mma[DLG_TC_TF32X3][3] = dev->hgemm_mma[DLG_TC_TF32][3];
  if (!r) r = get_kernel(cu, dev, "tf32_pack", "dlg_tf32_pack", 0, &dev->tf32_pack);
  if (!r) r = get_kernel(cu, dev, "tf32_pack", "dlg_pad16", 0, &dev->pad16);
  if (!r) r = load_lapack(cu, dev);
  if (!r) r = load_level3(cu, dev);
  if (!r) load_wgmma(cu, dev);
  if (!r) load_narrow(cu, dev);
  if (!r) load_tiny(cu, dev);
  at[3] = dlg_now();
  if (!r) r = create_pool(cu, dev, ordinal);
  cu->CtxPopCurrent(NULL);
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
            "%.1f, %d modules %.1f, kernels %.1f, pool %.1f\n", ordinal, (dlg_now() - at[0]) * 1e3,
            dlg_cuda_api_seconds() * 1e3, (at[1] - at[0]) * 1e3, dev->nmodules,
            (at[2] - at[1]) * 1e3, (at[3] - at[2]) * 1e3, (dlg_now() - at[3]) * 1e3);
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
