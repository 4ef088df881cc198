/*
 * local.h - a rank's local matrix during a distributed factorization, and
 * the few operations the algorithms (potrf.c) make on it, each store doing
 * them its own way: resident on the rank's GPU on dlgemm's kernels
 * (local_cuda.c), or in the caller's host array with plain loops
 * (local_cpu.c: the same algorithm checked without a GPU, by ScaLAPACK's
 * testers in CI).  Matrices are views: element (i, j) at p + (i rs + j cs)
 * elements, one of rs and cs 1 (a transposed view is how the upper
 * triangle becomes the lower one).  The first failure is kept in status
 * and every later operation does nothing.
 */
#ifndef DLG_DIST_LOCAL_H
#define DLG_DIST_LOCAL_H

#include <stdint.h>
#include "core/gemm.h"

typedef struct dlg_lmat {
  uintptr_t p;
  int64_t rows, cols, rs, cs;
} dlg_lmat;

typedef struct dlg_local dlg_local;

typedef struct dlg_local_ops {
  /* the caller's rows x cols local array (leading dimension ld) as the
   * store's matrix, column-major, and scratch matrices enough for a step:
   * what *local and *scratch get */
  dlgemm_status (*open)(dlg_local *l, void *host, int64_t rows, int64_t cols, int64_t ld,
                        int64_t scratch_elems, dlg_lmat *local, uintptr_t *scratch);
  /* the result into the caller's array; everything held given back */
  dlgemm_status (*close)(dlg_local *l, int keep);
  /* copies between a column-major view (rs 1) and host memory (ld) */
  void (*to_host)(dlg_local *l, dlg_lmat m, void *host, int64_t ld);
  void (*from_host)(dlg_local *l, const void *host, int64_t ld, dlg_lmat m);
  int (*potrf_lower)(dlg_local *l, dlg_lmat a);                   /* INFO */
  void (*trsm_right_lower_t)(dlg_local *l, dlg_lmat t, dlg_lmat b); /* b = b t^-T */
  /* c = alpha a b^T + beta c; syrk: its lower triangle with b = a */
  void (*gemm_nt)(dlg_local *l, double alpha, dlg_lmat a, dlg_lmat b, double beta, dlg_lmat c);
  void (*syrk_lower)(dlg_local *l, double alpha, dlg_lmat a, double beta, dlg_lmat c);
  const char *(*name)(dlg_local *l); /* "host", "cuda:0": for DLGEMM_VERBOSE */
} dlg_local_ops;

struct dlg_local {
  const dlg_local_ops *ops;
  dlg_dtype dtype; /* DLG_F32 or DLG_F64 */
  dlgemm_status status;
  void *state;     /* the store's own */
};

/* The rows x cols block of m at (i, j). */
static inline dlg_lmat dlg_lmat_sub(dlg_lmat m, int64_t i, int64_t j, int64_t rows, int64_t cols,
                                    size_t es)
{
  const dlg_lmat s = {m.p + (uintptr_t)((i * m.rs + j * m.cs) * (int64_t)es), rows, cols, m.rs,
                      m.cs};
  return s;
}

static inline dlg_lmat dlg_lmat_t(dlg_lmat m)
{
  const dlg_lmat t = {m.p, m.cols, m.rows, m.cs, m.rs};
  return t;
}

/* Whether a view is the transpose of a column-major matrix.  A single
 * column whose elements are adjacent is both (the upper case's panels when
 * NB is 1: rs and cs both 1); it counts as column-major, and every store
 * decides by this one test, so that the matrix, its leading dimension and
 * the operation on it agree. */
static inline int dlg_lmat_is_t(dlg_lmat m)
{
  return !(m.rs == 1 && (m.cols <= 1 || m.cs >= m.rows));
}

/* The column-major matrix a view is: itself, or the one it transposes; a
 * single column's leading dimension (never used) at least its rows, as the
 * kernels and copies require of any. */
static inline dlg_lmat dlg_lmat_stored(dlg_lmat m)
{
  dlg_lmat s = dlg_lmat_is_t(m) ? dlg_lmat_t(m) : m;
  if (s.cols <= 1 && s.cs < s.rows) s.cs = s.rows;
  return s;
}

/* Whether the GPU store can take a view: its stored matrix column-major
 * with a leading dimension of at least its rows (the level-3 routines and
 * the copies refuse any other).  The host store, whose loops read any
 * strides, refuses what this refuses, so that CI finds such a view. */
static inline int dlg_lmat_takeable(dlg_lmat m)
{
  const dlg_lmat s = dlg_lmat_stored(m);
  return s.rs == 1 && s.cs >= (s.rows > 1 ? s.rows : 1);
}

#endif
