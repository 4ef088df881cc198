/*
 * matmul.h - the DLPack entry points (matmul.c), for callers inside the
 * library: the XLA custom-call handler (xla.c) multiplies through
 * dlgemm_matmul as any outside caller does.  They are declared in the public
 * header; including this one names the module that defines them.
 */
#ifndef DLG_API_MATMUL_H
#define DLG_API_MATMUL_H

#include "dlgemm.h"

#endif
