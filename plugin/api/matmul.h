/*
 * matmul.h - the DLPack entry points (matmul.c), for callers inside the
 * library: the XLA custom-call handler (xla.c) multiplies through
 * dlgemm_matmul as any outside caller does.  They are declared in the public
 * header; including this one names the module that defines them.  The
 * rival's path (rival.c) calls them with the routine a program called.
 */
#ifndef DLG_API_MATMUL_H
#define DLG_API_MATMUL_H

#include "dlgemm.h"

/* dlgemm_matmul for a caller inside the library that came through another
 * door (shims/cublas): DLGEMM_VERBOSE names `origin` as the routine. */
dlgemm_status dlg_matmul_from(const char *origin, const DLTensor *a, const DLTensor *b,
                              DLTensor *c, double alpha, double beta, const dlgemm_options *opts);

#endif
