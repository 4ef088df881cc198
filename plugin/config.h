/*
 * config.h - settings read from the environment, once per process.
 */
#ifndef DLG_CONFIG_H
#define DLG_CONFIG_H

#include <stdint.h>

typedef enum dlg_force { DLG_FORCE_AUTO = 0, DLG_FORCE_CPU = 1, DLG_FORCE_GPU = 2 } dlg_force;

typedef struct dlg_config {
  int verbose;            /* DLGEMM_VERBOSE: one line per call on stderr */
  dlg_force force;        /* DLGEMM_FORCE=cpu|gpu|auto */
  double min_mnk;         /* DLGEMM_MIN_MNK: host calls with m*n*k below stay on the CPU */
  const char *cpu_blas;   /* DLGEMM_CPU_BLAS: path of the BLAS that answers CPU calls */
  int tile_bm, tile_bn;   /* DLGEMM_SGEMM_TILE=<BM>x<BN>: pin the SIMT tile (0: choose) */
  int sgemm_sgpr;         /* DLGEMM_SGEMM_KERNEL=sgpr: the GCN design's CUDA port (experiment) */
  int streamk;            /* DLGEMM_SGEMM_STREAMK: -1 auto (cost model), 0 off, 1 wherever it applies */
} dlg_config;

#define DLG_DEFAULT_MIN_MNK (256.0 * 256.0 * 256.0)

const dlg_config *dlg_config_get(void);
/* Re-read the environment (tests change it between cases). */
void dlg_config_reload(void);

#endif
