/*
 * route.c - the router: one decision per call, written down in one place.
 *
 *   device tensors         -> the backend of that device, or an error;
 *   backend override       -> that backend, or an error (never a silent swap);
 *   DLGEMM_FORCE=cpu       -> the next BLAS;
 *   DLGEMM_FORCE=gpu       -> a GPU if one is usable, else the next BLAS;
 *   DLGEMM_MIN_MNK set     -> a GPU when m*n*k >= DLGEMM_MIN_MNK, else the next BLAS;
 *   otherwise              -> the GPU backend's cost model, where it has one
 *                             (transfers, kernel rate and overheads against
 *                             the next BLAS's rate, measured), else the
 *                             DLGEMM_MIN_MNK default.
 *
 * Factorizations (route_pick_factor): DLGEMM_FORCE=cpu -> the next LAPACK;
 * =gpu -> a GPU backend with a factor entry; otherwise its factor_pays (a
 * size threshold, asked before the GPU is even started).
 *
 * A backend is "usable" when its probe succeeded (driver and device found,
 * kernels loaded) and it supports the dtype, place and precision of the call.
 * Where no GPU backend's probe succeeds, DLGEMM_VERBOSE says why once a
 * process (a machine without a GPU, a driver with no device or too old for
 * the kernels): each call's line says only that it went to the CPU.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "cpu/backend.h"
#include "route/route.h"
#ifdef DLGEMM_HAVE_CUDA
#include "cuda/backend.h"
#endif
#ifdef DLGEMM_HAVE_HIP
#include "hip/backend.h"
#endif

/* The backends compiled into this library, GPU families first, the CPU
 * (next BLAS) last. */
static const dlg_backend *const builtin_table[] = {
#ifdef DLGEMM_HAVE_CUDA
    &dlg_backend_cuda,
#endif
#ifdef DLGEMM_HAVE_HIP
    &dlg_backend_hip, /* after CUDA: host arrays go to AMD only when it is the only GPU */
#endif
    &dlg_backend_cpu,
};

/* Once a process, with DLGEMM_VERBOSE: every GPU backend's probe failed, and why. */
static void say_why_cpu(const dlg_config *cfg, const dlg_backend *const *table, size_t n)
{
  static atomic_int said;
  char line[640] = "", reason[192];
  size_t i, used = 0;
  if (!cfg->verbose || atomic_load(&said)) return;
  for (i = 0; i < n; i++) {
    if (table[i]->family == DLGEMM_BACKEND_CPU) continue;
    if (table[i]->probe(reason, sizeof reason) == 0) return; /* usable: the call was the reason */
    used += (size_t)snprintf(line + used, sizeof line - used, "%s%s: %s", used ? "; " : "",
                             table[i]->name, reason);
    if (used >= sizeof line) used = sizeof line - 1;
  }
  if (used && !atomic_exchange(&said, 1))
    fprintf(stderr, "dlgemm: no GPU backend is usable (%s): calls go to the CPU\n", line);
}

static int usable(const dlg_backend *be, const dlg_gemm *g, char *why, size_t why_len)
{
  return be->probe(why, why_len) == 0 && be->supports(g);
}

const dlg_backend *route_gpu_for(const dlg_gemm *g, const dlg_backend *const *table, size_t n)
{
  char ignored[160];
  size_t i;
  for (i = 0; i < n; i++)
    if (table[i]->family != DLGEMM_BACKEND_CPU && usable(table[i], g, ignored, sizeof ignored))
      return table[i];
  return NULL;
}

static const dlg_backend *find_family(dlgemm_backend family, const dlg_backend *const *table,
                                      size_t n)
{
  size_t i;
  for (i = 0; i < n; i++)
    if (table[i]->family == family) return table[i];
  return NULL;
}

static const char *family_name(dlgemm_backend f)
{
  return f == DLGEMM_BACKEND_CPU ? "cpu" : f == DLGEMM_BACKEND_CUDA ? "cuda" : "hip";
}

const dlg_backend *route_pick_from(const dlg_gemm *g, dlgemm_backend requested,
                                   const dlg_config *cfg, const dlg_backend *const *table,
                                   size_t n, char *why, size_t why_len)
{
  const dlg_backend *be, *gpu;
  char reason[160] = "";

  if (g->place != DLG_HOST || requested != DLGEMM_BACKEND_AUTO) {
    dlgemm_backend family = requested;
    if (g->place == DLG_CUDA) family = DLGEMM_BACKEND_CUDA;
    if (g->place == DLG_ROCM) family = DLGEMM_BACKEND_HIP;
    if (requested != DLGEMM_BACKEND_AUTO && requested != family) {
      dlg_fail(DLGEMM_ERR_NO_BACKEND, "the %s backend was requested but the tensors live on a "
               "%s device", family_name(requested), family_name(family));
      return NULL;
    }
    be = find_family(family, table, n);
    if (!be) {
      dlg_fail(DLGEMM_ERR_NO_BACKEND, "the %s backend is not built into this libdlgemm",
               family_name(family));
      return NULL;
    }
    if (be->probe(reason, sizeof reason)) {
      dlg_fail(DLGEMM_ERR_NO_BACKEND, "the %s backend is not available: %s", be->name, reason);
      return NULL;
    }
    if (!be->supports(g)) {
      dlg_fail(DLGEMM_ERR_NO_BACKEND, "the %s backend does not support this call (dtype, "
               "precision or size)", be->name);
      return NULL;
    }
    dlg_copy_text(why, why_len, requested != DLGEMM_BACKEND_AUTO ? "requested" : "device tensors");
    return be;
  }

  be = find_family(DLGEMM_BACKEND_CPU, table, n);
  gpu = cfg->force == DLG_FORCE_CPU ? NULL : route_gpu_for(g, table, n);
  if (cfg->force == DLG_FORCE_CPU) {
    dlg_copy_text(why, why_len, "DLGEMM_FORCE=cpu");
  } else if (!gpu) {
    dlg_copy_text(why, why_len, "no usable GPU backend");
    say_why_cpu(cfg, table, n);
  } else if (cfg->force == DLG_FORCE_GPU) {
    dlg_copy_text(why, why_len, "DLGEMM_FORCE=gpu");
    be = gpu;
  } else if (!cfg->min_mnk_set && gpu->prefer) {
    if (gpu->prefer(g, why, why_len)) be = gpu;
  } else if ((double)g->m * (double)g->n * (double)g->k < cfg->min_mnk) {
    snprintf(why, why_len, "m*n*k below DLGEMM_MIN_MNK=%.0f", cfg->min_mnk);
  } else {
    snprintf(why, why_len, "m*n*k at or above DLGEMM_MIN_MNK=%.0f", cfg->min_mnk);
    be = gpu;
  }
  if (!be || !be->supports(g)) {
    dlg_fail(DLGEMM_ERR_NO_BACKEND, "no backend supports this call (%s)", why);
    return NULL;
  }
  return be;
}

const dlg_backend *route_pick_backend(const dlg_gemm *g, dlgemm_backend requested, char *why,
                                      size_t why_len)
{
  return route_pick_from(g, requested, dlg_config_get(), builtin_table,
                         sizeof builtin_table / sizeof builtin_table[0], why, why_len);
}

/* A host routine of another kind than dlg_gemm: a factorization (call is
 * a dlg_factor) or a level-3 routine (a dlg_level3).  The first backend of
 * table that has one, asked whether it pays before it is probed, so that a
 * small call never starts the GPU. */
static const dlg_backend *pick_host(const void *call, int level3, const dlg_config *cfg,
                                    const dlg_backend *const *table, size_t n, char *why,
                                    size_t why_len)
{
  char reason[160];
  size_t i;
  if (cfg->force == DLG_FORCE_CPU) {
    dlg_copy_text(why, why_len, "DLGEMM_FORCE=cpu");
    return NULL;
  }
  for (i = 0; i < n; i++) {
    const dlg_backend *be = table[i];
    if (level3 ? !be->level3 : !be->factor) continue;
    if (cfg->force != DLG_FORCE_GPU &&
        !(level3 ? be->level3_pays((const dlg_level3 *)call, why, why_len)
                 : be->factor_pays((const dlg_factor *)call, why, why_len)))
      return NULL;
    if (be->probe(reason, sizeof reason)) continue;
    if (cfg->force == DLG_FORCE_GPU) dlg_copy_text(why, why_len, "DLGEMM_FORCE=gpu");
    return be;
  }
  dlg_copy_text(why, why_len, "no usable GPU backend");
  say_why_cpu(cfg, table, n);
  return NULL;
}

const dlg_backend *route_pick_factor_from(const dlg_factor *f, const dlg_config *cfg,
                                          const dlg_backend *const *table, size_t n, char *why,
                                          size_t why_len)
{
  return pick_host(f, 0, cfg, table, n, why, why_len);
}

const dlg_backend *route_pick_level3(const dlg_level3 *x, char *why, size_t why_len)
{
  return pick_host(x, 1, dlg_config_get(), builtin_table,
                   sizeof builtin_table / sizeof builtin_table[0], why, why_len);
}

const dlg_backend *route_pick_factor(const dlg_factor *f, char *why, size_t why_len)
{
  return route_pick_factor_from(f, dlg_config_get(), builtin_table,
                                sizeof builtin_table / sizeof builtin_table[0], why, why_len);
}
