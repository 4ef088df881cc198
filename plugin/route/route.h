/*
 * route.h - which backend takes a call.
 */
#ifndef DLG_ROUTE_H
#define DLG_ROUTE_H

#include <stddef.h>
#include "core/config.h"
#include "core/factor.h"
#include "core/gemm.h"
#include "core/level3.h"

/* Choose a backend for g from table[0..n).  requested is the options'
 * backend override.  Returns NULL (and a dlgemm_last_error() message) when
 * nothing can run g; otherwise why[] says, in a few words, why this one. */
const dlg_backend *route_pick_from(const dlg_gemm *g, dlgemm_backend requested,
                                   const dlg_config *cfg, const dlg_backend *const *table,
                                   size_t n, char *why, size_t why_len);

/* route_pick_from() over the backends built into this library. */
const dlg_backend *route_pick_backend(const dlg_gemm *g, dlgemm_backend requested, char *why,
                                      size_t why_len);

/* The first usable GPU backend that supports g, or NULL; used by the host
 * paths to fall back after a GPU failure and by the router itself. */
const dlg_backend *route_gpu_for(const dlg_gemm *g, const dlg_backend *const *table, size_t n);

/* The GPU backend of table[0..n) that takes factorization f (cfg's
 * DLGEMM_FORCE, then the backend's factor_pays, asked before its probe), or
 * NULL for the next LAPACK; why[] says why. */
const dlg_backend *route_pick_factor_from(const dlg_factor *f, const dlg_config *cfg,
                                          const dlg_backend *const *table, size_t n, char *why,
                                          size_t why_len);
/* route_pick_factor_from() over the backends built into this library. */
const dlg_backend *route_pick_factor(const dlg_factor *f, char *why, size_t why_len);

/* The same for a level-3 routine other than real GEMM (core/level3.h). */
const dlg_backend *route_pick_level3(const dlg_level3 *x, char *why, size_t why_len);

#endif
