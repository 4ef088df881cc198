/*
 * own.h - cuBLAS for a product that came without a cuBLAS handle: the
 * rival that dlgemm measures itself against when a framework reaches it
 * through a door of its own (XLA's custom call, routed by the JAX
 * lowering), and the library that makes the call when cuBLAS wins.
 */
#ifndef DLG_SHIMS_CUBLAS_OWN_H
#define DLG_SHIMS_CUBLAS_OWN_H

#include "api/rival.h"

/* Whether the program has a cuBLAS loaded to measure against (nothing is
 * loaded here that the program did not load). */
int dlg_cublas_own_available(void);

/* call's product (a dlg_rival_call's `theirs`) by the program's cuBLAS,
 * on call->stream, through a handle of dlgemm's own for the current
 * context's device, with C at `out`: 0 when it ran, -1 when cuBLAS cannot
 * take it (no cuBLAS, a type or layout it has no form for, a failure). */
int dlg_cublas_own_gemm(const dlg_rival_call *call, void *out);

#endif
