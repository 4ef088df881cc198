/*
 * gcn_args.h - the kernel arguments of the GCN kernels, shared by the HIP
 * and assembly sources and the host code that launches them (plain C).
 * The assembly kernel reads dlg_gcn_args at fixed offsets
 * (sgemm_sgpr.S): the static assert below keeps them honest.
 */
#ifndef DLG_GCN_ARGS_H
#define DLG_GCN_ARGS_H

#include <stddef.h>

/* dlg_gcn_sgemm_64x{64,128,256}: column-major C = alpha * A * B + beta * C. */
typedef struct dlg_gcn_args {
  const float *a, *b;       /* offsets 0, 8 */
  float *c;                 /* 16 */
  long long sa, sb, sc;     /* 24, 32, 40: batch strides in elements */
  int m, n, k;              /* 48, 52, 56 */
  int lda, ldb, ldc;        /* 60, 64, 68 */
  float alpha, beta;        /* 72, 76 */
} dlg_gcn_args;             /* 80 bytes: .amdhsa_kernarg_size */

_Static_assert(offsetof(dlg_gcn_args, m) == 48 && offsetof(dlg_gcn_args, ldb) == 64 &&
                   offsetof(dlg_gcn_args, beta) == 76 && sizeof(dlg_gcn_args) == 80,
               "sgemm_sgpr.S reads dlg_gcn_args at these offsets");

/* dlg_gcn_sgemm_generic: any strides.  X(i, j) of batch p is
 * x[p*xb + i*xr + j*xc] for x in a (m x k), b (k x n), c (m x n). */
typedef struct dlg_gcn_generic_args {
  const float *a, *b;
  float *c;
  long long ar, ac, ab, br, bc, bb, cr, cc, cb;
  int m, n, k;
  float alpha, beta;
} dlg_gcn_generic_args;

#define DLG_GCN_GENERIC_BLOCK 16 /* 16 x 16 work-items, one element of C each */

#endif
