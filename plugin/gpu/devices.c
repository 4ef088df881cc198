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

/* Each launcher's node-local rank and, where it sets one, how many ranks it
 * started on the node; launchers' own variables first: a launcher started
 * inside a Slurm allocation (mpirun, mpiexec) runs one daemon per node
 * through srun, and every rank it starts inherits that daemon's
 * SLURM_LOCALID, 0, which is right only under srun itself.  No count is
 * read for srun (SLURM_TASKS_PER_NODE is a list over the nodes), PALS or
 * Flux: there a rank counts as alone on its node. */
static const struct launcher {
  const char *rank, *size;
} launchers[] = {
    {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"}, /* Open MPI */
    {"MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE"},   /* MVAPICH2 */
    {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},                       /* MPICH, Intel MPI (Hydra) */
    {"PALS_LOCAL_RANKID", NULL},                                  /* HPE Cray PALS */
    {"PMI_LOCAL_RANK", "PMI_LOCAL_SIZE"},                         /* Cray PMI and others */
    {"FLUX_TASK_LOCAL_ID", NULL},                                 /* Flux */
    {"JSM_NAMESPACE_LOCAL_RANK", "JSM_NAMESPACE_LOCAL_SIZE"},     /* IBM jsrun */
    {"SLURM_LOCALID", NULL},                                      /* srun */
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

/* The first launcher whose local rank is set and valid (*rank), with the
 * ranks it started on this node (*size; 1 where it does not say); NULL
 * when none started this process. */
static const struct launcher *find_launcher(dlg_env_fn env, int *rank, int *size,
                                            dlg_device_choice *out)
{
  size_t i;
  for (i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
    const char *v = env(launchers[i].rank);
    if (!v || !*v) continue;
    if ((*rank = parse_rank(v)) < 0) {
      snprintf(out->warning, sizeof out->warning, "ignoring %s='%.40s' (not a rank)",
               launchers[i].rank, v);
      continue;
    }
    *size = launchers[i].size ? parse_rank(env(launchers[i].size)) : -1;
    if (*size <= *rank) *size = 1; /* unset, or not a count that includes this rank */
    return &launchers[i];
  }
  return NULL;
}

void dlg_devices_choose(const int *listed, int nlisted, dlg_env_fn env, int count,
                        dlg_device_choice *out)
{
  int i, rank = 0, size = 1;
  const struct launcher *l;
  memset(out, 0, sizeof *out);
  out->node_ranks = out->device_ranks = 1;
  if (count <= 0) {
    snprintf(out->why, sizeof out->why, "no device");
    return;
  }
  if (count > DLG_MAX_DEVICES) count = DLG_MAX_DEVICES;
  if (nlisted > DLG_MAX_DEVICES) nlisted = DLG_MAX_DEVICES;
  l = find_launcher(env, &rank, &size, out);
  /* every rank is assumed to list the same devices */
  out->node_ranks = out->device_ranks = size;
  if (nlisted > 0 && take_listed(listed, nlisted, count, out)) return;
  if (l) {
    const int used = snprintf(out->why, sizeof out->why, "node-local rank %s=%d of %d device%s",
                              l->rank, rank, count, count == 1 ? "" : "s");
    out->n = 1, out->ordinal[0] = rank % count;
    /* the ranks r < size with r % count == rank % count */
    out->device_ranks = (size - 1 - rank % count) / count + 1;
    if (size > 1 && used > 0 && used < (int)sizeof out->why)
      snprintf(out->why + used, sizeof out->why - (size_t)used, "; %d ranks on the node, %d on "
               "its device", size, out->device_ranks);
    return;
  }
  for (i = 0; i < count; i++) out->ordinal[i] = i;
  out->n = count;
  snprintf(out->why, sizeof out->why, "every device (%d)", count);
}
