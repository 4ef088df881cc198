/*
 * config.h - settings read from the environment, once per process.
 */
#ifndef DLG_CONFIG_H
#define DLG_CONFIG_H

#include <stdint.h>
#include "dlgemm.h"

typedef enum dlg_force { DLG_FORCE_AUTO = 0, DLG_FORCE_CPU = 1, DLG_FORCE_GPU = 2 } dlg_force;

/* GPUs a backend handles (ordinals 0 to 15), and entries DLGEMM_DEVICES may list. */
enum { DLG_MAX_DEVICES = 16 };

/* DLGEMM_CUBLAS: what becomes of a program's cuBLAS products (api/rival.c) */
typedef enum dlg_rival_mode { DLG_RIVAL_OFF = 0, DLG_RIVAL_AUTO = 1, DLG_RIVAL_ON = 2 } dlg_rival_mode;

/* DLGEMM_SCALAPACK: ScaLAPACK's entry points (shims/scalapack, plugin/dist) */
typedef enum dlg_dist_mode {
  DLG_DIST_OFF = 0,
  DLG_DIST_GPU = 1,      /* cuSOLVERMp where it loads and takes the call, else resident */
  DLG_DIST_HOST = 2,     /* dlgemm's own algorithm on the CPU (tests) */
  DLG_DIST_RESIDENT = 3  /* dlgemm's own algorithm on the GPU */
} dlg_dist_mode;

typedef struct dlg_config {
  int verbose;            /* DLGEMM_VERBOSE: one line per call on stderr */
  dlg_force force;        /* DLGEMM_FORCE=cpu|gpu|auto */
  double min_mnk;         /* DLGEMM_MIN_MNK: host calls with m*n*k below stay on the CPU */
  const char *cpu_blas;   /* DLGEMM_CPU_BLAS: path of the BLAS that answers CPU calls */
  const char *cpu_blas64; /* DLGEMM_CPU_BLAS64: the same for the ILP64 (64_) entry points */
  int tile_bm, tile_bn;   /* DLGEMM_SGEMM_TILE=<BM>x<BN>: pin the SIMT tile (0: choose) */
  int sgemm_sgpr;         /* DLGEMM_SGEMM_KERNEL=sgpr: the GCN design's CUDA port (experiment) */
  int streamk;            /* DLGEMM_SGEMM_STREAMK: -1 auto (cost model), 0 off, 1 wherever it applies */
  int dgemm_tail;         /* DLGEMM_DGEMM_TAIL: -1 auto, 0 off, 1 wherever it applies (dgemm.c) */
  int dgemm_tma;          /* DLGEMM_DGEMM_TMA: 1 auto, 0 off (the cp.async kernel everywhere) */
  int dgemm_tile;         /* DLGEMM_DGEMM_TILE: -1 auto (default), 0 wide, 1 thin, 2 flat (dgemm.c) */
  int dgemm_splits;       /* DLGEMM_DGEMM_SPLITS: 0 auto, else split-K's chunks of k (dgemm.c) */
  int hgemm_kernel;       /* DLGEMM_HGEMM_KERNEL: 0 auto, 1 mma (mma.sync), 2 wgmma (sm_90a, where it applies) */
  int wgmma_tile;         /* DLGEMM_WGMMA_WIDTH: 0 auto, else 1 + the tile's index
                             (hgemm_args.h); DLG_WGMMA_TILES + 1: 64r (hgemm.c) */
  int hmma_tile;          /* DLGEMM_HMMA_TILE: 0 auto, else 1 + the mma.sync tile's index (hgemm_args.h) */
  int wgmma_walk_rows;    /* DLGEMM_WGMMA_WALK_ROWS: tile-rows per group of the wgmma kernels' walk */
  int wgmma_pairs;        /* DLGEMM_WGMMA_PAIRS: 0 off, 1 auto, 2 on (hgemm.c's pairs of blocks) */
  dlgemm_precision fp32_mode; /* DLGEMM_FP32_MODE=strict|tf32|3xtf32: the BLAS shim's SGEMM policy */
  int narrow;             /* DLGEMM_NARROW=0: C with a side of 16 or less goes to the big tiles too */
  int narrow32;           /* DLGEMM_NARROW32: 0 auto, 1 on (float32 to 32 wide), 2 off (to 16); narrow.c */
  int narrow_complex;     /* DLGEMM_NARROW_COMPLEX: 0 off, 1 on (complex to 16 / 8 wide); narrow.c */
  int cgemm_way;          /* DLGEMM_CGEMM_WAY: 0 auto, 1-4 an embedding, 5 native, 6 embed, 7 smallk, 8 simt (cgemm.c) */
  int zgemm_tile;         /* DLGEMM_ZGEMM_TILE: 0 auto, 1 the 64 x 64 tile, 2 the 32 x 32 (zdmma.c) */
  int narrow_splits;      /* DLGEMM_NARROW_SPLITS=N: pin the narrow kernels' split of k (0: choose) */
  int tiny;               /* DLGEMM_TINY: 1 auto (tiny.c's table), 2 on (m, n, k <= 64), 0 off */
  int tiny_r;             /* DLGEMM_TINY_R: 0 auto, else the tiny kernels' r x r of C a thread */
  int wgmma_splits;       /* DLGEMM_WGMMA_SPLITS=N: pin the wgmma kernels' split of k (0: choose) */
  int pad;                /* DLGEMM_PAD: 0 auto, 1 off, 2 always (pad.c) */
  /* The host-array engine (hostarray/engine.c): */
  int copy_threads;       /* DLGEMM_COPY_THREADS: host threads staging pageable memory (0: all CPUs but one, to 16) */
  double pinned_mb;       /* DLGEMM_PINNED_MB: pinned staging memory, allocated once */
  int stage_cached;       /* DLGEMM_STAGE_STORES=cached: ordinary stores into the chunks (copy_pool.c) */
  double device_mb;       /* DLGEMM_DEVICE_MB: device memory a call may hold (0: half the GPU's) */
  int recalibrate;        /* DLGEMM_CALIBRATE=1: measure the routing model again, ignore the cache */
  int peer;               /* DLGEMM_PEER=on: a split call's parts copy shared panels between devices */
  /* DLGEMM_INJECT_FAULT=<what>:<n>: the n-th (from 1) engine event of that
   * kind in this process fails, for tests of the fallback. */
  enum { DLG_FAULT_NONE, DLG_FAULT_OOM, DLG_FAULT_LAUNCH, DLG_FAULT_COPY, DLG_FAULT_WORKSPACE,
         DLG_FAULT_RANDOM } fault;
  long fault_at; /* the n-th event of its kind fails; DLG_FAULT_RANDOM: 1 in n of any kind */
  /* DLGEMM_LAPACK_MIN_N: factorizations (dgetrf_, dpotrf_...) with
   * min(m, n) below it stay on the next LAPACK */
  double lapack_min_n;
  /* DLGEMM_LEVEL3_BLOCK: the narrowest block of C (or B) that a level-3
   * routine's host-array pipeline cuts (plugin/cuda/level3/offload.c) */
  double level3_block;
  /* DLGEMM_PBLAS_BLOCK: what ScaLAPACK's PILAENV answers, PBLAS's block of
   * k (shims/fortran/pilaenv.c); 0: ScaLAPACK's own answer */
  int pblas_block;
  dlg_rival_mode rival;   /* DLGEMM_CUBLAS=off|auto|on */
  dlg_dist_mode dist;     /* DLGEMM_SCALAPACK=off|gpu|host|resident */
  double dist_min;        /* DLGEMM_SCALAPACK_MIN: the least dimension taken */
  int min_mnk_set;        /* DLGEMM_MIN_MNK was given: it, not the model, routes host calls */
  /* DLGEMM_DEVICES=0,1: the CUDA ordinals host-array calls use, in order,
   * an engine per entry (0,0: two engines on one GPU, the tests' second
   * device); ndevices 0 when unset or unparsable: the device of the
   * launcher's node-local rank, else every device (plugin/gpu/devices.c) */
  int ndevices;
  int devices[DLG_MAX_DEVICES];
} dlg_config;

#define DLG_DEFAULT_MIN_MNK (256.0 * 256.0 * 256.0)
#define DLG_DEFAULT_LAPACK_MIN_N 384.0
#define DLG_DEFAULT_LEVEL3_BLOCK 1024.0

const dlg_config *dlg_config_get(void);
/* Whether this GPU event of kind `what` (DLG_FAULT_OOM, _LAUNCH, _COPY) is
 * the n-th of its kind that DLGEMM_INJECT_FAULT names: the host-array
 * engine and the factorizations ask before each allocation, launch, copy. */
int dlg_fault_injected(int what);
/* While on, this thread's events are not counted: a measurement of the
 * routing model (a call may start one) is not what a test breaks. */
void dlg_fault_hold(int on);

/* Re-read the environment (tests change it between cases). */
void dlg_config_reload(void);

#endif
