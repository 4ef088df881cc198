/*
 * calllog.h - DLGEMM_VERBOSE: one line per call on stderr.
 */
#ifndef DLG_CALLLOG_H
#define DLG_CALLLOG_H

#include "core/factor.h"
#include "core/gemm.h"

/* A monotonic clock in seconds, for timing calls. */
double dlg_now(void);

/* "dlgemm: <origin> <layout> m=.. n=.. k=.. [batch=..] -> <backend> (<why>) <ms> <GFLOP/s>"
 * layout is the caller's own words ("NT", "A:row B:col C:row"). */
void dlg_log_call(const dlg_gemm *g, const char *layout, const char *backend, const char *why,
                  double seconds);

/* "dlgemm: <origin> m=.. n=.. lda=.. [uplo=..] -> <backend> (<why>) <ms> <GFLOP/s>"
 * for a factorization; INFO too when it is not 0. */
void dlg_log_factor(const dlg_factor *f, const char *backend, const char *why, double seconds);

#endif
