/*
 * matmul.c - the DLPack entry points: dlgemm_matmul on DLTensors, its
 * managed (0.x) and versioned (1.x) forms, and the API table.
 */
#include <stdio.h>
#include <string.h>
#include "api/matmul.h"
#include "api/validate.h"
#include "core/calllog.h"
#include "core/config.h"
#include "core/errors.h"
#include "core/fork.h"
#include "cpu/backend.h"
#include "route/route.h"

#define STR2(x) #x
#define STR(x) STR2(x)

DLGEMM_API const char *dlgemm_version(void)
{
  return STR(DLGEMM_VERSION_MAJOR) "." STR(DLGEMM_VERSION_MINOR) "." STR(DLGEMM_VERSION_PATCH);
}

static void describe_layout(const dlg_gemm *g, char *out, size_t len)
{
  snprintf(out, len, "A:%s B:%s C:%s", dlg_is_colmajor(&g->a) ? "col" : "row",
           dlg_is_colmajor(&g->b) ? "col" : "row", dlg_is_colmajor(&g->c) ? "col" : "row");
}

static dlgemm_status matmul_inside(const char *origin, const DLTensor *a, const DLTensor *b,
                                   DLTensor *c, double alpha, double beta,
                                   const dlgemm_options *opts)
{
  dlgemm_options o;
  dlg_gemm g;
  const dlg_backend *be;
  char why[448], layout[32];
  dlgemm_status st;
  double t0;

  if ((st = dlg_validate_options(opts, &o))) return st;
  memset(&g, 0, sizeof g);
  if ((st = dlg_validate_tensors(a, b, c, &g))) return st;
  g.alpha = alpha;
  g.beta = beta;
  g.precision = o.precision;
  g.stream = o.stream;
  g.origin = origin;
  if (g.m == 0 || g.n == 0 || g.batch == 0) return DLGEMM_OK;

  if (!(be = route_pick_backend(&g, o.backend, why, sizeof why))) return DLGEMM_ERR_NO_BACKEND;
  t0 = dlg_now();
  st = be->run(&g);
  if (st == DLGEMM_OK) dlg_append_note(why, sizeof why);
  if (st != DLGEMM_OK && be != &dlg_backend_cpu && g.place == DLG_HOST &&
      o.backend == DLGEMM_BACKEND_AUTO) {
    /* The GPU failed on host memory: the next BLAS gives the same answer. */
    snprintf(why, sizeof why, "fallback after %s failed: %s", be->name, dlgemm_last_error());
    be = &dlg_backend_cpu;
    st = be->run(&g);
  }
  layout[0] = 0;
  if (dlg_config_get()->verbose) describe_layout(&g, layout, sizeof layout);
  dlg_log_call(&g, layout, be->name, st == DLGEMM_OK ? why : dlgemm_last_error(),
               dlg_now() - t0);
  return st;
}

/* Through the door that fork() drains (core/fork.h). */
dlgemm_status dlg_matmul_from(const char *origin, const DLTensor *a, const DLTensor *b,
                              DLTensor *c, double alpha, double beta, const dlgemm_options *opts)
{
  dlgemm_status st;
  dlg_call_enter();
  st = matmul_inside(origin, a, b, c, alpha, beta, opts);
  dlg_call_leave();
  return st;
}

DLGEMM_API dlgemm_status dlgemm_matmul(const DLTensor *a, const DLTensor *b, DLTensor *c,
                                       double alpha, double beta, const dlgemm_options *opts)
{
  return dlg_matmul_from("dlgemm_matmul", a, b, c, alpha, beta, opts);
}

DLGEMM_API dlgemm_status dlgemm_matmul_managed(const DLManagedTensor *a, const DLManagedTensor *b,
                                               DLManagedTensor *c, double alpha, double beta,
                                               const dlgemm_options *opts)
{
  if (!a || !b || !c)
    return dlg_fail(DLGEMM_ERR_NULL_ARGUMENT, "%s is NULL", !a ? "A" : !b ? "B" : "C");
  return dlgemm_matmul(&a->dl_tensor, &b->dl_tensor, &c->dl_tensor, alpha, beta, opts);
}

/* A 1.x tensor's version and flags, before its DLTensor is looked at. */
static dlgemm_status check_versioned(const DLManagedTensorVersioned *t, const char *name,
                                     int written)
{
  if (!t) return dlg_fail(DLGEMM_ERR_NULL_ARGUMENT, "%s is NULL", name);
  if (t->version.major != 1)
    return dlg_fail(DLGEMM_ERR_DLPACK_VERSION, "%s: DLPack version %u.%u is not supported; "
                    "dlgemm takes 1.x (DLManagedTensorVersioned) and 0.x (DLManagedTensor)",
                    name, t->version.major, t->version.minor);
  if (written && (t->flags & DLPACK_FLAG_BITMASK_READ_ONLY))
    return dlg_fail(DLGEMM_ERR_READ_ONLY, "%s is marked read-only (DLPACK_FLAG_BITMASK_READ_ONLY) "
                    "and cannot receive the product", name);
  return DLGEMM_OK;
}

DLGEMM_API dlgemm_status dlgemm_matmul_versioned(const DLManagedTensorVersioned *a,
                                                 const DLManagedTensorVersioned *b,
                                                 DLManagedTensorVersioned *c, double alpha,
                                                 double beta, const dlgemm_options *opts)
{
  dlgemm_status st;
  if ((st = check_versioned(a, "A", 0)) || (st = check_versioned(b, "B", 0)) ||
      (st = check_versioned(c, "C", 1)))
    return st;
  return dlgemm_matmul(&a->dl_tensor, &b->dl_tensor, &c->dl_tensor, alpha, beta, opts);
}

/* One table serves every version: a version-1 caller reads only its prefix. */
#define API_TABLE(v)                                                                         \
  {v, sizeof(dlgemm_api), dlgemm_version, dlgemm_options_init, dlgemm_matmul,              \
   dlgemm_status_string, dlgemm_last_error, dlgemm_matmul_managed, dlgemm_matmul_versioned}
static const dlgemm_api api_tables[] = {API_TABLE(1), API_TABLE(2)};

DLGEMM_API const dlgemm_api *dlgemm_get_api(int abi_version)
{
  if (abi_version >= 1 && abi_version <= DLGEMM_ABI_VERSION) return &api_tables[abi_version - 1];
  dlg_fail(DLGEMM_ERR_ABI_VERSION, "ABI version %d is not provided; this library (%s) provides "
           "versions 1 to %d", abi_version, dlgemm_version(), DLGEMM_ABI_VERSION);
  return NULL;
}
