/*
 * devices.c - the devices of host-array calls (devices.h).
 *
 * Without DLGEMM_DEVICES, several ranks of an MPI job on one node would all
 * compute on device 0 (each splitting its calls over every device is no
 * better: they all contend for every link).  A rank started by a launcher
 * takes the device of its node-local rank, modulo the devices it sees; a
 * process on its own takes them all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu/devices.h"

/* Each launcher's node-local rank, launchers' own variables first: a
 * launcher started inside a Slurm allocation (mpirun, mpiexec) runs one
 * daemon per node through srun, and every rank it starts inherits that
 * daemon's SLURM_LOCALID, 0, which is right only under srun itself. */
static const char *const local_rank_vars[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK", /* Open MPI */
    "MV2_COMM_WORLD_LOCAL_RANK",  /* MVAPICH2 */
    "MPI_LOCALRANKID",            /* MPICH and Intel MPI (Hydra) */
    "PALS_LOCAL_RANKID",          /* HPE Cray PALS */
    "PMI_LOCAL_RANK",             /* Cray PMI, and others speaking PMI */
    "FLUX_TASK_LOCAL_ID",         /* Flux */
    "JSM_NAMESPACE_LOCAL_RANK",   /* IBM jsrun */
    "SLURM_LOCALID",              /* srun */
};

/* A rank: digits only, no sign, not past int. */
static int parse_rank(const char *v)
{
  char *end;
  long r;
  if (!v || *v < '0' || *v > '9') return -1;
  errno = 0;
  r = strtol(v, &end, 10);
  return errno || *end || r > 0x7fffffff ? -1 : (int)r;
}

/* The listed devices, if every one exists. */
static int take_listed(const int *listed, int nlisted, int count, dlg_device_choice *out)
{
  int i, used = 0;
  for (i = 0; i < nlisted; i++)
    if (listed[i] >= count) {
      snprintf(out->warning, sizeof out->warning, "ignoring DLGEMM_DEVICES: it names device %d, "
               "and %d device%s present; using the default devices", listed[i], count,
               count == 1 ? " is" : "s are");
      return 0;
    }
  for (i = 0; i < nlisted; i++) {
    out->ordinal[i] = listed[i];
    used += snprintf(out->why + used, sizeof out->why - (size_t)used, "%s%d",
                     i ? "," : "DLGEMM_DEVICES=", listed[i]);
    if (used >= (int)sizeof out->why) used = (int)sizeof out->why - 1;
  }
  out->n = nlisted;
  return 1;
}

/* The device of the first launcher's local rank found. */
static int take_local_rank(dlg_env_fn env, int count, dlg_device_choice *out)
{
  size_t i;
  for (i = 0; i < sizeof local_rank_vars / sizeof local_rank_vars[0]; i++) {
    const char *v = env(local_rank_vars[i]);
    const int rank = parse_rank(v);
    if (!v || !*v) continue;
    if (rank < 0) {
      snprintf(out->warning, sizeof out->warning, "ignoring %s='%.40s' (not a rank)",
               local_rank_vars[i], v);
      continue;
    }
    out->n = 1, out->ordinal[0] = rank % count;
    snprintf(out->why, sizeof out->why, "node-local rank %s=%d of %d device%s", local_rank_vars[i],
             rank, count, count == 1 ? "" : "s");
    return 1;
  }
  return 0;
}

void dlg_devices_choose(const int *listed, int nlisted, dlg_env_fn env, int count,
                        dlg_device_choice *out)
{
  int i;
  memset(out, 0, sizeof *out);
  if (count <= 0) {
    snprintf(out->why, sizeof out->why, "no device");
    return;
  }
  if (count > DLG_MAX_DEVICES) count = DLG_MAX_DEVICES;
  if (nlisted > DLG_MAX_DEVICES) nlisted = DLG_MAX_DEVICES;
  if (nlisted > 0 && take_listed(listed, nlisted, count, out)) return;
  if (take_local_rank(env, count, out)) return;
  for (i = 0; i < count; i++) out->ordinal[i] = i;
  out->n = count;
  snprintf(out->why, sizeof out->why, "every device (%d)", count);
}
