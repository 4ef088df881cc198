/*
 * trip_cost.h - how long a host-array call takes on a GPU, from the rates
 * measured on this machine (cuda/model.c measures and caches them): pure
 * arithmetic, tested without a GPU.
 */
#ifndef DLG_TRIP_COST_H
#define DLG_TRIP_COST_H

typedef struct dlg_trip_rates {
  double to_device, to_host; /* bytes/s: pinned memory over the link, each way */
  double staging;            /* bytes/s: the copy pool, pageable <-> pinned */
  double flops;              /* flops/s: the kernels */
} dlg_trip_rates;

/* One rank's share when the ranks of a job on one node copy at once, as
 * ScaLAPACK's do: the host's memory, where all staging goes, among
 * node_ranks; each link among the device_ranks on it. */
dlg_trip_rates dlg_trip_share(dlg_trip_rates r, int node_ranks, int device_ranks);

/* Seconds of the engine's trip (cuda/hostarray/engine.c), fixed costs
 * aside: in bytes to the device, flops, out bytes back, overlapped except
 * around the first and last of `tiles` (1 to 4) tile rows or columns. */
double dlg_trip_pipelined(const dlg_trip_rates *r, double in, double out, double flops,
                          double tiles);

/* Seconds of a trip that overlaps nothing: copies in, kernels, copies out. */
double dlg_trip_whole(const dlg_trip_rates *r, double in, double out, double flops);

#endif
