/*
 * level3_forward.h - the next BLAS's answer to a level-3 call
 * (level3_forward.c).
 */
#ifndef DLG_LEVEL3_FORWARD_H
#define DLG_LEVEL3_FORWARD_H

#include <stddef.h>
#include "shims/common/blas_call.h"

/* x to the next BLAS's routine of its name (LP64 or ILP64, as x came):
 * 0, or -1 with an error printed when nothing in the process has it. */
int blas_level3_forward(const blas_call *x);

/* x's routine name without decoration ("ssymm", "zher2k"), in buf. */
const char *blas_level3_name(const blas_call *x, char *buf, size_t len);

#endif
