/*
 * calllog.h - DLGEMM_VERBOSE: one line per call on stderr.
 */
#ifndef DLG_CALLLOG_H
#define DLG_CALLLOG_H

#include "core/errors.h"
#include "core/factor.h"
#include "core/gemm.h"

/* A monotonic clock in seconds, for timing calls. */
double dlg_now(void);

/* The device(s) that took this thread's call ("cuda:1", "cuda:0+1"), said
 * by the backend as it runs, under DLGEMM_VERBOSE only: the call's line
 * names them in place of the backend. */
void dlg_log_devices(const char *fmt, ...) DLG_PRINTF(1, 2);
/* What a line names for backend `name`: the devices said for this call
 * when they are name's (a call that fell back to the CPU is "cpu-blas"),
 * else name.  Clears them. */
const char *dlg_log_backend(const char *name);

/* "dlgemm: <origin> <layout> m=.. n=.. k=.. [batch=..] -> <backend> (<why>) <ms> <GFLOP/s>"
 * layout is the caller's own words ("NT", "A:row B:col C:row"). */
void dlg_log_call(const dlg_gemm *g, const char *layout, const char *backend, const char *why,
                  double seconds);

/* "dlgemm: <origin> m=.. n=.. lda=.. [uplo=..] -> <backend> (<why>) <ms> <GFLOP/s>"
 * for a factorization; INFO too when it is not 0. */
void dlg_log_factor(const dlg_factor *f, const char *backend, const char *why, double seconds);

#endif
