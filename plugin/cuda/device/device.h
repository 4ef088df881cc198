/*
 * device.h - per-GPU state of the CUDA backend: context, the kernel
 * families' modules and functions, the workspace pool.
 */
#ifndef DLG_CUDA_DEVICE_H
#define DLG_CUDA_DEVICE_H

#include <pthread.h>
#include "core/gemm.h"
#include "cuda/device/driver.h"
#include "kernels/cuda/dgemm_args.h"
#include "kernels/cuda/hgemm_args.h"
#include "kernels/cuda/narrow_args.h"
#include "kernels/cuda/tiny_args.h"
#include "kernels/cuda/sgemm_args.h"
#include "kernels/cuda/zgemm_args.h"

enum { DLG_CUDA_MAX_MODULES = 24 };

/* lapack.cu's kernels, in the order of its names (device.c) */
enum { DLG_LU_COLUMN, DLG_LASWP, DLG_TRSM_LEAF, DLG_POTRF_LEAF, DLG_TRI_ADD, DLG_HOUSEHOLDER,
       DLG_UNIT_LOWER, DLG_LARFT, DLG_LU_PANEL, DLG_LAPACK_KERNELS };

/* level3.cu's kernels, in the order of its names (device.c); those from
 * cpack on exist for the complex types only */
enum { DLG_L3_SCALE, DLG_L3_TRI_SCALE, DLG_L3_TRI_MERGE, DLG_L3_SYMMETRIZE, DLG_L3_TRI_FILL,
       DLG_L3_TRSM_LEAF, DLG_L3_CPACK, DLG_L3_CPLAIN, DLG_L3_CSPLIT, DLG_L3_CCOMBINE, DLG_L3_CSMALLK,
       DLG_L3_KERNELS };

/* The sets of kernels looked up together, each on its first use
 * (kernels.h): a program whose first call is a dgemm_ pays for the
 * DMMA kernels' lookups, not for all of them (cold start, issue 53).  A
 * set marked optional in kernels.c may be missing: its functions stay NULL
 * and the calls that would use it go to the other kernels. */
typedef enum {
  DLG_KERNELS_SIMT,   /* sgemm_simt.cu's tiles, stream-K, split-K reduce; sgemm_sgpr.cu */
  DLG_KERNELS_DMMA,   /* dgemm_dmma.cu; dgemm_tma.cu where it loads */
  DLG_KERNELS_MMA,    /* hgemm_mma.cu, tf32_pack.cu's packing */
  DLG_KERNELS_WGMMA,  /* the hgemm_wgmma*.cu images (optional: sm_90a) */
  DLG_KERNELS_PAD,    /* tf32_pack.cu's aligned copy (pad.c) */
  DLG_KERNELS_NARROW, /* narrow.cu (optional) */
  DLG_KERNELS_TINY,   /* tiny.cu (optional) */
  DLG_KERNELS_LAPACK, /* lapack.cu */
  DLG_KERNELS_LEVEL3, /* level3.cu */
  DLG_KERNELS_ZDMMA,  /* zgemm_dmma.cu (optional: complex products keep the real embedding) */
  DLG_KERNELS_CSIMT,  /* sgemm_simt.cu's complex64 tiles (optional, as ZDMMA) */
  DLG_KERNEL_SETS
} dlg_kernel_set;

typedef struct dlg_cuda_device {
  int ordinal;
  CUcontext ctx;     /* the primary context: the one the runtime API uses too */
  CUmodule modules[DLG_CUDA_MAX_MODULES]; /* one per kernel family image (images.h) */
  const char *module_family[DLG_CUDA_MAX_MODULES]; /* whose image each module is */
  int nmodules;
  /* per kernel set: 0 not looked up yet, 1 ready, -1 failed (its CUresult
   * in sets_error); read without the lock once non-zero */
  int sets[DLG_KERNEL_SETS];
  CUresult sets_error[DLG_KERNEL_SETS];
  pthread_mutex_t sets_lock;
  CUfunction sgemm[DLG_TILES][4]; /* [tile][a_kc * 2 + b_kc] */
  CUfunction sgemm_streamk[DLG_TILES][4];
  int blocks_per_sm[DLG_TILES];   /* occupancy of each tile's kernels */
  CUfunction splitk_reduce;
  CUfunction sgpr, sgpr_edge; /* sgemm_sgpr.cu: full 64-row blocks, and any */
  CUfunction dgemm[4];        /* dgemm_dmma.cu, [a_kc * 2 + b_kc] */
  CUfunction dgemm_tail[4];   /* the same with the last wave split along k */
  CUfunction dgemm_shaped[3][4]; /* the other tiles: thin 32 x 128, 128 x 32, flat 64 x 128 */
  int dgemm_occ[4];           /* blocks an SM of the wide tile's kernel and dgemm_shaped's */
  CUfunction dgemm_tma[4];    /* dgemm_tma.cu (sm_90), the same order; 0: not loaded */
  CUfunction dgemm_tma_tail[4]; /* its twins for a split last wave */
  CUfunction dgemm_splitk_reduce;
  /* zgemm_dmma.cu, [0 complex128, 1 complex64][0 the 64 x 64 tile, 1 the
   * 32 x 32][a_kc * 2 + b_kc], and complex64's split-K reduce (complex128's
   * is dgemm_splitk_reduce); NULL where absent */
  CUfunction zgemm[2][2][4], cgemm_reduce;
  /* sgemm_simt.cu's complex64 tiles, [DLG_CTILE_*][(a_kc * 2 + b_kc) * 2 +
   * conj], conj: the x conj(y) kernels; and each tile's blocks an SM holds
   * (NULL, 0 where absent) */
  CUfunction csimt[DLG_CTILES][8];
  int csimt_occ[DLG_CTILES];
  /* hgemm_mma.cu, [tile: DLG_HMMA_BM(i) x DLG_HMMA_BN(i)][DLG_TC_* kind][a_kc
   * * 2 + b_kc]; TF32 has kk only; and each tile's blocks an SM holds */
  CUfunction hgemm_mma[DLG_HMMA_TILES][DLG_TC_KINDS][4];
  int hmma_occ[DLG_HMMA_TILES];
  CUfunction tf32_pack, pad16;  /* tf32_pack.cu */
  CUfunction lapack[2][DLG_LAPACK_KERNELS]; /* lapack.cu: [0 float, 1 double][kernel] */
  CUfunction level3[4][DLG_L3_KERNELS];    /* level3.cu: [s, d, c, z][kernel] */
  /* hgemm_wgmma.cu, [tile index: DLG_WGMMA_BM(i) x DLG_WGMMA_BN(i)] then as
   * hgemm_mma (TF32 also rk); NULL without sm_90a, or where a tile has no
   * kernel of that kind (192 x 192: the 16-bit kinds only) */
  CUfunction hgemm_wgmma[DLG_WGMMA_TILES][DLG_TC_KINDS][4];
  /* how many clusters of two wgmma blocks run at once (hgemm.c's pairs;
   * asked of the 256-wide tile, whose blocks are the largest); 0: none */
  int wgmma_pairs;
  /* the narrow wgmma tile (128 x 16), [DLG_TC_F16 / _BF16][first operand
   * k-contiguous]; NULL where absent */
  CUfunction hgemm_wgmma16[2][2];
  /* narrow.cu, [DLG_NARROW_DOT / _AXPY][DLG_NARROW_* type][nn bucket, in the
   * type's own columns (complex ones: complex columns)], with
   * each one's blocks per SM, and the split-K sums' reduce [0 float, 1
   * double]; all NULL where any is missing (the families take those products) */
  CUfunction narrow[2][DLG_NARROW_TYPES][DLG_NARROW_BUCKETS];
  int narrow_occ[2][DLG_NARROW_TYPES][DLG_NARROW_BUCKETS];
  CUfunction narrow_reduce[2];
  int narrow_sums_in_kernel; /* split narrow products add their splits (narrow.cu) */
  /* narrow.cu's tensor-core dot kernels, [f16, bf16][nn up to 8, 16]; NULL where absent */
  CUfunction narrow_tc[2][2];
  int narrow_tc_occ[2][2];
  /* tiny.cu, [0: dlg_tiny_*, 1: dlg_tiny4_*][DLG_TINY_* type]; all NULL
   * where any is missing */
  CUfunction tiny[2][DLG_TINY_TYPES];
  CUmemoryPool pool; /* split-K workspaces: stream-ordered, kept for reuse */
  int sms;
  char name[96], bus_id[32]; /* for the routing model's cache key and messages */
} dlg_cuda_device;

/* The device, initialised on first use (context, modules loaded from the
 * embedded fatbins; their kernels are looked up per set), or NULL with a
 * dlgemm_last_error() message. */
dlg_cuda_device *dlg_cuda_device_get(int ordinal);

/* The backend's probe: 0 when device `ordinal` (the first of host-array
 * calls) is set up (or can be), else DLGEMM_ERR_NO_BACKEND with why[]
 * saying why. */
int dlg_cuda_device_probe(int ordinal, char *why, size_t why_len);

/* The workspace of a kernel whose blocks add up their parts themselves
 * (stream-K, the DGEMM tail, the narrow splits): `parts` bytes (a multiple
 * of 4) from the device's pool on stream s, then `counters` ints behind
 * them (*counts), zeroed before anything queued after.  Freed with
 * MemFreeAsync on s; on failure nothing is held and *work is 0. */
CUresult dlg_cuda_counted_work(const dlg_cuda_api *cu, const dlg_cuda_device *dev, size_t parts,
                               size_t counters, CUstream s, CUdeviceptr *work, CUdeviceptr *counts);

/* A kernel family's workspace (split-K parts) from the device's pool on
 * stream s.  Refused for want of memory (another process may hold the
 * GPU), it marks this thread's call denied: dlg_cuda_gemm then plans the
 * call again lean, and the planners that ask dlg_cuda_lean() pick what
 * needs no workspace.  Every family allocates before it writes C, so C is
 * untouched when an allocation fails. */
CUresult dlg_cuda_workspace(const dlg_cuda_api *cu, const dlg_cuda_device *dev, size_t bytes,
                            CUstream s, CUdeviceptr *work);
int dlg_cuda_lean(void);
/* lean: the planners' switch; denied: read and cleared by the caller */
void dlg_cuda_set_lean(int on);
int dlg_cuda_take_denied(void);

#endif
