/*
 * blacs.h - the program's BLACS (ScaLAPACK's message layer over MPI),
 * through which the distributed factorizations talk between ranks.
 */
#ifndef DLG_DIST_BLACS_H
#define DLG_DIST_BLACS_H

#include <stddef.h>
#include "core/gemm.h"

typedef struct dlg_blacs {
  void (*gridinfo)(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
  int (*pnum)(int ctxt, int prow, int pcol); /* the process at (prow, pcol) */
  /* broadcast send / receive of an m x n column-major matrix (lda) over
   * scope "All", "Row" or "Column"; [0] float, [1] double */
  void (*gebs2d[2])(int ctxt, char *scope, char *top, int m, int n, void *a, int lda);
  void (*gebr2d[2])(int ctxt, char *scope, char *top, int m, int n, void *a, int lda, int rsrc,
                    int csrc);
  void (*igebs2d)(int ctxt, char *scope, char *top, int m, int n, int *a, int lda);
  void (*igebr2d)(int ctxt, char *scope, char *top, int m, int n, int *a, int lda, int rsrc,
                  int csrc);
  void (*igsum2d)(int ctxt, char *scope, char *top, int m, int n, int *a, int lda, int rdest,
                  int cdest);
  /* element-wise sums of an m x n matrix over scope, on every rank with
   * rdest -1; [0] float, [1] double */
  void (*gsum2d[2])(int ctxt, char *scope, char *top, int m, int n, void *a, int lda, int rdest,
                    int cdest);
} dlg_blacs;

/* The BLACS of the process (ScaLAPACK's own C entry points, found once),
 * or NULL with why[] saying what is missing: a program that calls a
 * ScaLAPACK routine has them loaded. */
const dlg_blacs *dlg_blacs_get(char *why, size_t why_len);

/* A rank's place in a process grid: P x Q, this rank at (row, col). */
typedef struct dlg_grid {
  int ctxt, p, q, row, col;
} dlg_grid;

/* Broadcast of an m x n matrix of dtype (F32 or F64) at a (ld) from the
 * rank (rsrc, csrc) to the others of scope ("All", "Row", "Column"): the
 * root sends, the others of the scope receive into a. */
void dlg_blacs_bcast(const dlg_blacs *b, const dlg_grid *g, const char *scope, dlg_dtype dtype,
                     int m, int n, void *a, int ld, int rsrc, int csrc);
/* The same for count ints. */
void dlg_blacs_bcast_ints(const dlg_blacs *b, const dlg_grid *g, const char *scope, int *v,
                          int count, int rsrc, int csrc);
static inline void dlg_blacs_bcast_int(const dlg_blacs *b, const dlg_grid *g, const char *scope,
                                       int *v, int rsrc, int csrc)
{
  dlg_blacs_bcast_ints(b, g, scope, v, 1, rsrc, csrc);
}
/* v summed over every rank of the grid, the sum on each. */
int dlg_blacs_sum_all(const dlg_blacs *b, const dlg_grid *g, int v);

#endif
