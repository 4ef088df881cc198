/*
 * trip_cost.c - the time of a host-array call on a GPU (trip_cost.h).
 *
 * Pageable bytes cross twice: the copy pool moves them between the
 * caller's pages and pinned chunks, the link between the chunks and the
 * device.  The link is full duplex, so copies in and out overlap there;
 * the pool is one set of threads on one memory, so its gathers and
 * scatters add up.  Counting them as overlapping had a k = 32 update of
 * a 1 GB C (PDGEMM's local calls) at 25 ms on the H200 machine, so it
 * went to the GPU, where it ran 55 ms against OpenBLAS's 27-35.
 */
#include <math.h>
#include "gpu/trip_cost.h"

dlg_trip_rates dlg_trip_share(dlg_trip_rates r, int node_ranks, int device_ranks)
{
  if (node_ranks > 1) r.staging /= node_ranks;
  if (device_ranks > 1) r.to_device /= device_ranks, r.to_host /= device_ranks;
  return r;
}

double dlg_trip_pipelined(const dlg_trip_rates *r, double in, double out, double flops,
                          double tiles)
{
  const double t_in = in / fmin(r->to_device, r->staging);
  const double t_out = out / fmin(r->to_host, r->staging);
  const double t_pool = (in + out) / r->staging, t_k = flops / r->flops;
  const double longest = fmax(t_in, fmax(t_out, t_k));
  /* with `tiles` tile rows and columns, about 1/tiles of the rest is exposed */
  return fmax(longest, t_pool) + (t_in + t_out + t_k - longest) / fmax(1.0, tiles);
}

double dlg_trip_whole(const dlg_trip_rates *r, double in, double out, double flops)
{
  return in / fmin(r->to_device, r->staging) + flops / r->flops +
         out / fmin(r->to_host, r->staging);
}
