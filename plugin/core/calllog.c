/*
 * calllog.c - the DLGEMM_VERBOSE line.
 *
 * One fprintf per call so that lines from concurrent threads do not
 * interleave within a line (stdio locks the stream for each call).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "core/calllog.h"
#include "core/config.h"

double dlg_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static _Thread_local char devices[64], shown[64];

void dlg_log_devices(const char *fmt, ...)
{
  va_list ap;
  if (!dlg_config_get()->verbose) return;
  va_start(ap, fmt);
  vsnprintf(devices, sizeof devices, fmt, ap);
  va_end(ap);
}

const char *dlg_log_backend(const char *name)
{
  const size_t len = strlen(name);
  const int theirs = !strncmp(devices, name, len) && devices[len] == ':';
  dlg_copy_text(shown, sizeof shown, theirs ? devices : name);
  devices[0] = '\0';
  return shown;
}

void dlg_log_call(const dlg_gemm *g, const char *layout, const char *backend, const char *why,
                  double seconds)
{
  static const char *const policy[] = {"", " tf32", " 3xtf32"};
  char batch[32] = "";
  const char *type;
  if (!dlg_config_get()->verbose) return;
  /* complex calls say so (their flops are 8 per multiply-add) */
  type = g->dtype == DLG_C64 ? " complex64" : g->dtype == DLG_C128 ? " complex128" : "";
  if (g->batch != 1) snprintf(batch, sizeof batch, " batch=%lld", (long long)g->batch);
  /* the policy is named where it can change the arithmetic: float32 products
   * (float32 and complex64 calls) */
  fprintf(stderr, "dlgemm: %s %s%s m=%lld n=%lld k=%lld%s%s -> %s (%s) %.3f ms %.2f GFLOP/s\n",
          g->origin, layout, type, (long long)g->m, (long long)g->n, (long long)g->k, batch,
          dlg_real_of(g->dtype) == DLG_F32 && g->dtype_in == g->dtype ? policy[g->precision] : "",
          dlg_log_backend(backend), why, seconds * 1e3,
          seconds > 0 ? dlg_flops(g) / seconds * 1e-9 : 0.0);
}

void dlg_log_factor(const dlg_factor *f, const char *backend, const char *why, double seconds)
{
  char info[32] = "", args[64] = "";
  if (!dlg_config_get()->verbose) return;
  if (f->info) snprintf(info, sizeof info, " info=%d", f->info);
  if (f->kind == DLG_POTRF) snprintf(args, sizeof args, " uplo=%c", f->lower ? 'L' : 'U');
  if (f->kind == DLG_ORMQR)
    snprintf(args, sizeof args, " side=%c trans=%c k=%lld ldc=%lld", f->right ? 'R' : 'L',
             f->trans ? 'T' : 'N', (long long)f->k, (long long)f->ldc);
  fprintf(stderr, "dlgemm: %s m=%lld n=%lld lda=%lld%s -> %s (%s)%s %.3f ms %.2f GFLOP/s\n",
          f->origin, (long long)f->m, (long long)f->n, (long long)f->lda, args,
          dlg_log_backend(backend), why, info,
          seconds * 1e3, seconds > 0 ? dlg_factor_flops(f) / seconds * 1e-9 : 0.0);
}
