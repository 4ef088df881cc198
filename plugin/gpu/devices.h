/*
 * devices.h - which GPUs a process's host-array calls run on: DLGEMM_DEVICES,
 * else the device of its node-local rank when a launcher started it, else
 * every device; and how many ranks share them.  A pure function of the
 * environment and the device count, so that every rule is tested without a
 * GPU.
 */
#ifndef DLG_DEVICES_H
#define DLG_DEVICES_H

#include "core/config.h"

/* The environment, as getenv reads it (tests pass their own). */
typedef const char *(*dlg_env_fn)(const char *name);

/* The chosen devices as slots: logical devices, one host-array engine
 * each; a device listed twice is two slots. */
typedef struct dlg_device_choice {
  int n;                        /* slots; 0: no device */
  int ordinal[DLG_MAX_DEVICES]; /* the device of each slot */
  /* Processes of this job on this node (the launcher's count; 1 where it
   * sets none), and of them those on this process's devices: ranks of a
   * ScaLAPACK job copy at once, sharing the host's memory and the links
   * (cuda/model.c) */
  int node_ranks, device_ranks;
  char why[128];                /* how they were chosen, for DLGEMM_VERBOSE */
  char warning[160];            /* a setting ignored, and why; "" when none */
} dlg_device_choice;

/* The slots for count devices present, from DLGEMM_DEVICES as the
 * configuration parsed it (listed[0..nlisted)) and the launchers'
 * local-rank variables read through env. */
void dlg_devices_choose(const int *listed, int nlisted, dlg_env_fn env, int count,
                        dlg_device_choice *out);

#endif
