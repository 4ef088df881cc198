/*
 * kernels.c - the kernel sets' functions, looked up in the device's
 * modules (device.c) on a set's first use, once per device.
 *
 * Under the driver's lazy loading (the default since CUDA 12.2) a module
 * load only reads the image; a kernel's code goes to the GPU when it is
 * looked up.  Looking all of them up when the device was set up cost a
 * preloaded program's first dgemm_ 60 ms of its 367 (bench/NOTES.md,
 * "Neighbours"), mostly for kernels it never ran.  A lookup inside a
 * stream capture is legal on the drivers that run these images (CUDA 13).
 */
#include <stdio.h>
#include <string.h>
#include "core/calllog.h"
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/device/kernels.h"
#include "cuda/device/tiles.h"

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
                                                        "larft",       "lu_panel"};
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
                                                    "cpack",    "cplain",    "csplit",
                                                    "ccombine", "csmallk"};
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
static CUresult load_wgmma(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  CUresult r;
  int t;
  if ((r = load_hgemm(cu, dev, "hgemm_wgmma256", "wgmma", 1, 0, dev->hgemm_wgmma[0],
                      DLG_WGMMA_SMEM(128, 256))) ||
      (r = load_hgemm(cu, dev, "hgemm_wgmma128", "wgmma128", 1, 1, dev->hgemm_wgmma[1],
                      DLG_WGMMA_SMEM(128, 128))) ||
      (r = load_hgemm(cu, dev, "hgemm_wgmma192", "wgmma192", 1, 1, dev->hgemm_wgmma[2],
                      DLG_WGMMA_SMEM(128, 192))) ||
      (r = load_hgemm(cu, dev, "hgemm_wgmma192x192", "wgmma192x192", 2, 0, dev->hgemm_wgmma[3],
                      DLG_WGMMA_SMEM(192, 192))) ||
      (r = load_hgemm(cu, dev, "hgemm_wgmma64", "wgmma64", 1, 0, dev->hgemm_wgmma[4],
                      DLG_WGMMA_SMEM(128, 64)))) {
    memset(dev->hgemm_wgmma, 0, sizeof dev->hgemm_wgmma);
    return r;
  }
  dev->wgmma_pairs = wgmma_pairs(cu, dev);
  for (t = 0; t < 4; t++) { /* the narrow tile: f16 / bf16, rk / kk */
    char name[48];
    snprintf(name, sizeof name, "dlg_hgemm_wgmma16_%s_%ck", t / 2 ? "bf16" : "f16", "rk"[t % 2]);
    if ((r = get_kernel(cu, dev, "hgemm_wgmma16", name, DLG_WGMMA_SMEM(128, DLG_WGMMA_NARROW_BN),
                        &dev->hgemm_wgmma16[t / 2][t % 2]))) {
      memset(dev->hgemm_wgmma16, 0, sizeof dev->hgemm_wgmma16);
      return r;
    }
  }
  return CUDA_SUCCESS;
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

static CUresult load_narrow(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  static const char *const layout[2] = {"dot", "axpy"};
  static const char *const type[DLG_NARROW_TYPES] = {"f32", "f64", "f16", "bf16", "c64", "c128"};
  enum { PER_LAYOUT = DLG_NARROW_TYPES * DLG_NARROW_BUCKETS };
  char name[48];
  CUresult r = CUDA_SUCCESS;
  int t;
  for (t = 0; !r && t < 2 * PER_LAYOUT; t++) {
    const int l = t / PER_LAYOUT, ty = t % PER_LAYOUT / DLG_NARROW_BUCKETS,
              b = t % DLG_NARROW_BUCKETS;
    if (1 << b > DLG_NARROW_WIDEST(ty)) continue;
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
  return r;
}

/* The tiny kernels (tiny.cu: dlg_tiny[4]_<type>); a lookup that fails leaves
 * all of them out, and their products go to the other kernels. */
static CUresult load_tiny(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  static const char *const type[DLG_TINY_TYPES] = {"f32", "f64", "f16", "bf16", "c64", "c128"};
  char name[32];
  CUresult r;
  int t;
  for (t = 0; t < 2 * DLG_TINY_TYPES; t++) {
    snprintf(name, sizeof name, "dlg_tiny%s_%s", t / DLG_TINY_TYPES ? "4" : "", type[t % DLG_TINY_TYPES]);
    if ((r = get_kernel(cu, dev, "tiny", name, DLG_TINY_SMEM_CAP,
                        &dev->tiny[t / DLG_TINY_TYPES][t % DLG_TINY_TYPES]))) {
      memset(dev->tiny, 0, sizeof dev->tiny);
      return r;
    }
  }
  return CUDA_SUCCESS;
}


/* The SIMT FP32 set: every tile, the split-K reduce, the SGPR kernels. */
static CUresult load_simt(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  CUresult r = CUDA_SUCCESS;
  int t;
  for (t = 0; !r && t < DLG_TILES; t++) r = load_tile(cu, dev, t);
  if (!r) r = get_kernel(cu, dev, "sgemm_simt", "dlg_sgemm_splitk_reduce", 0, &dev->splitk_reduce);
  if (!r) r = get_kernel(cu, dev, "sgemm_sgpr", "dlg_sgemm_sgpr_64x128", 0, &dev->sgpr);
  if (!r) r = get_kernel(cu, dev, "sgemm_sgpr", "dlg_sgemm_sgpr_64x128_edge", 0, &dev->sgpr_edge);
  return r;
}

/* The FP64 set: the DMMA kernels, their tails, thin and flat twins, the split-K reduce, and
 * the TMA kernels where they load (sm_90; without them the cp.async ones
 * run). */
static CUresult load_dmma(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  static const char *const ab[4] = {"rr", "rk", "kr", "kk"};
  /* dev->dgemm_shaped's order */
  static const struct { const char *name; unsigned smem; } shaped[3] = {
      {"thin_m", DLG_DGEMM_THIN_SMEM}, {"thin_n", DLG_DGEMM_THIN_SMEM}, {"flat", DLG_DGEMM_SMEM}};
  char name[40];
  CUresult r = CUDA_SUCCESS;
  int t, s;
  for (t = 0; !r && t < 4; t++) {
    snprintf(name, sizeof name, "dlg_dgemm_dmma_%s", ab[t]);
    r = get_kernel(cu, dev, "dgemm_dmma", name, DLG_DGEMM_SMEM, &dev->dgemm[t]);
    snprintf(name, sizeof name, "dlg_dgemm_tail_%s", ab[t]);
    if (!r) r = get_kernel(cu, dev, "dgemm_dmma", name, DLG_DGEMM_SMEM, &dev->dgemm_tail[t]);
    for (s = 0; !r && s < 3; s++) {
      snprintf(name, sizeof name, "dlg_dgemm_%s_%s", shaped[s].name, ab[t]);
      r = get_kernel(cu, dev, "dgemm_dmma", name, shaped[s].smem, &dev->dgemm_shaped[s][t]);
    }
  }
  if (!r)
    r = get_kernel(cu, dev, "dgemm_dmma", "dlg_dgemm_splitk_reduce", 0, &dev->dgemm_splitk_reduce);
  /* dgemm.c's plans count rounds of resident blocks */
  for (s = 0; !r && s < 4; s++) {
    r = cu->OccupancyMaxActiveBlocksPerMultiprocessor(
        &dev->dgemm_occ[s], s ? dev->dgemm_shaped[s - 1][0] : dev->dgemm[0], DLG_DGEMM_THREADS,
        s ? shaped[s - 1].smem : DLG_DGEMM_SMEM);
    if (!r && dev->dgemm_occ[s] < 1) r = CUDA_ERROR_INVALID_VALUE;
  }
  for (t = 0; !r && t < 4; t++) {
    snprintf(name, sizeof name, "dlg_dgemm_tma_%s", ab[t]);
    if (get_kernel(cu, dev, "dgemm_tma", name, DLG_DGEMM_TMA_SMEM, &dev->dgemm_tma[t]) ||
        (snprintf(name, sizeof name, "dlg_dgemm_tma_tail_%s", ab[t]),
         get_kernel(cu, dev, "dgemm_tma", name, DLG_DGEMM_TMA_SMEM, &dev->dgemm_tma_tail[t]))) {
      memset(dev->dgemm_tma, 0, sizeof dev->dgemm_tma);
      memset(dev->dgemm_tma_tail, 0, sizeof dev->dgemm_tma_tail);
      break;
    }
  }
  return r;
}

/* The complex DMMA kernels, complex128 and complex64, and complex64's
 * split-K reduce (optional: without them complex products take the real
 * embedding, cgemm.c). */
static CUresult load_zdmma(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  static const char *const ab[4] = {"rr", "rk", "kr", "kk"}, *const tile[2] = {"", "32"};
  char name[40];
  CUresult r = CUDA_SUCCESS;
  int t;
  for (t = 0; !r && t < 16; t++) { /* type t % 2, tile t / 2 % 2, layout t / 4 */
    const int ty = t % 2, ti = t / 2 % 2;
    snprintf(name, sizeof name, "dlg_%cgemm_dmma%s_%s", "zc"[ty], tile[ti], ab[t / 4]);
    r = get_kernel(cu, dev, "zgemm_dmma", name, DLG_ZGEMM_SMEM_OF(ty, ti),
                   &dev->zgemm[ty][ti][t / 4]);
  }
  if (!r) r = get_kernel(cu, dev, "zgemm_dmma", "dlg_cgemm_splitk_reduce", 0, &dev->cgemm_reduce);
  if (r) memset(dev->zgemm, 0, sizeof dev->zgemm), dev->cgemm_reduce = NULL;
  return r;
}

/* The complex64 SIMT tiles (optional: complex64 products keep the other
 * ways), each tile's blocks an SM holds asked of its kk kernel. */
static CUresult load_csimt(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  static const char *const ab[8] = {"rr", "rr_x", "rk", "rk_x", "kr", "kr_x", "kk", "kk_x"};
  char name[48];
  CUresult r = CUDA_SUCCESS;
  int t, v;
  for (t = 0; !r && t < DLG_CTILES; t++) {
    const dlg_sgemm_tile *c = &dlg_csimt_tiles[t];
    for (v = 0; !r && v < 8; v++) {
      snprintf(name, sizeof name, "dlg_csimt_%dx%d_%s", c->bm, c->bn, ab[v]);
      r = get_kernel(cu, dev, "sgemm_simt", name, c->smem, &dev->csimt[t][v]);
    }
    if (!r)
      r = cu->OccupancyMaxActiveBlocksPerMultiprocessor(&dev->csimt_occ[t], dev->csimt[t][6],
                                                        DLG_SGEMM_THREADS, (size_t)c->smem);
    if (!r && dev->csimt_occ[t] < 1) r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r) memset(dev->csimt, 0, sizeof dev->csimt);
  return r;
}

/* The mma.sync set (its three tiles) and TF32's packing. */
static CUresult load_mma(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  static const char *const family[DLG_HMMA_TILES] = {"mma", "mma64", "mma32"};
  CUresult r = CUDA_SUCCESS;
  int t;
  for (t = 0; !r && t < DLG_HMMA_TILES; t++) {
    r = load_hgemm(cu, dev, "hgemm_mma", family[t], 0, 0, dev->hgemm_mma[t], DLG_HMMA_SMEM(t));
    /* mma.sync has no promoting variant: 3xTF32 runs as TF32 there (hgemm_args.h) */
    dev->hgemm_mma[t][DLG_TC_TF32X3][3] = dev->hgemm_mma[t][DLG_TC_TF32][3];
    if (!r && (cu->OccupancyMaxActiveBlocksPerMultiprocessor(
                   &dev->hmma_occ[t], dev->hgemm_mma[t][DLG_TC_BF16][3], DLG_HMMA_THREADS,
                   (size_t)DLG_HMMA_SMEM(t)) ||
               dev->hmma_occ[t] < 1))
      dev->hmma_occ[t] = 1;
  }
  return r ? r : get_kernel(cu, dev, "tf32_pack", "dlg_tf32_pack", 0, &dev->tf32_pack);
}

/* The aligned copy (pad.c; optional: without it operands stay as they are). */
static CUresult load_pad(const dlg_cuda_api *cu, dlg_cuda_device *dev)
{
  return get_kernel(cu, dev, "tf32_pack", "dlg_pad16", 0, &dev->pad16);
}

/* Each set's loader, in dlg_kernel_set's order; an optional set that fails
 * to load has left its functions NULL, and the calls go elsewhere. */
static const struct {
  const char *name;
  CUresult (*load)(const dlg_cuda_api *, dlg_cuda_device *);
  int optional;
} kernel_sets[DLG_KERNEL_SETS] = {
  {"SIMT", load_simt, 0},     {"DMMA", load_dmma, 0},     {"mma.sync", load_mma, 0},
  {"wgmma", load_wgmma, 1},   {"padding", load_pad, 1},   {"narrow", load_narrow, 1},
  {"tiny", load_tiny, 1},     {"LAPACK", load_lapack, 0}, {"level-3", load_level3, 0},
  {"complex DMMA", load_zdmma, 1},  {"complex SIMT", load_csimt, 1},
};

dlgemm_status dlg_cuda_kernels(dlg_cuda_device *dev, dlg_kernel_set set)
{
  char why[160];
  int state = __atomic_load_n(&dev->sets[set], __ATOMIC_ACQUIRE);
  if (!state) {
    const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why); /* the device is set up: there */
    pthread_mutex_lock(&dev->sets_lock);
    if (!(state = dev->sets[set])) {
      const double t0 = dlg_now();
      CUresult r = cu->CtxPushCurrent(dev->ctx);
      if (!r) {
        r = kernel_sets[set].load(cu, dev);
        cu->CtxPopCurrent(NULL);
      }
      dev->sets_error[set] = r;
      state = !r || kernel_sets[set].optional ? 1 : -1;
      /* a cold start's share (bench/cold_start.sh) */
      if (dlg_config_get()->verbose)
        fprintf(stderr, "dlgemm: cuda:%d %s kernels looked up in %.1f ms%s%s\n", dev->ordinal,
                kernel_sets[set].name, (dlg_now() - t0) * 1e3, r ? ": " : "",
                r ? dlg_cuda_error(r) : "");
      __atomic_store_n(&dev->sets[set], state, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&dev->sets_lock);
  }
  if (state > 0) return DLGEMM_OK;
  return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA device %d: looking up dlgemm's %s kernels: %s",
                  dev->ordinal, kernel_sets[set].name, dlg_cuda_error(dev->sets_error[set]));
}
