/*
 * gemm.h - the problem every entry point reduces to, and what a backend is.
 *
 * Entry points (dlgemm_matmul, sgemm_, cblas_sgemm...) know about their own
 * argument conventions; they translate them into one dlg_gemm, whose operands
 * are plain (rows, cols, row stride, col stride, batch stride) views.  The
 * router picks a backend for it and the backend knows nothing about where
 * the call came from.  Adding a backend is one dlg_backend and one entry in
 * route.c's table; adding a kernel family to a backend, README "Layout".
 */
#ifndef DLG_GEMM_H
#define DLG_GEMM_H

#include <stddef.h>
#include <stdint.h>
#include "dlgemm.h"

/* Element types.  F32, F64, C64 and C128 calls have one dtype throughout;
 * F16 and BF16 are input types (A and B) whose products accumulate in FP32
 * and whose C is F16, BF16 or F32.  C64 and C128 are complex (two F32 or
 * two F64, real part first, as Fortran's COMPLEX and DLPack's kDLComplex);
 * a complex dlg_gemm's alpha and beta are still real (dlgemm_matmul's ABI
 * has doubles), while the level-3 routines' (core/level3.h) are complex. */
typedef enum dlg_dtype {
  DLG_F32 = 0,
  DLG_F64 = 1,
  DLG_F16 = 2,
  DLG_BF16 = 3,
  DLG_C64 = 4,
  DLG_C128 = 5
} dlg_dtype;

/* Where the operands live. */
typedef enum dlg_place {
  DLG_HOST = 0, /* pageable or pinned host memory */
  DLG_CUDA = 1, /* memory of one CUDA device */
  DLG_ROCM = 2  /* memory of one ROCm device */
} dlg_place;

/* One operand: rows x cols, element (i, j) of batch p at
 * data + (p*bs + i*rs + j*cs) * elem_size. */
typedef struct dlg_matrix {
  void *data;
  int64_t rows, cols;
  int64_t rs, cs, bs; /* element strides; bs == 0 broadcasts over the batch */
} dlg_matrix;

typedef struct dlg_gemm {
  dlg_dtype dtype;         /* C's */
  dlg_dtype dtype_in;      /* A's and B's: dtype, or F16 / BF16 */
  dlg_place place;
  int device_id;           /* for DLG_CUDA / DLG_ROCM */
  int64_t m, n, k, batch;
  double alpha, beta;
  dlg_matrix a, b, c;      /* a: m x k, b: k x n, c: m x n */
  dlgemm_precision precision;
  void *stream;            /* caller's stream for device tensors */
  const char *origin;      /* entry point name, for DLGEMM_VERBOSE */
} dlg_gemm;

static inline size_t dlg_elem_size(dlg_dtype t)
{
  if (t == DLG_C128) return 16;
  return (t == DLG_F64 || t == DLG_C64) ? 8 : (t == DLG_F16 || t == DLG_BF16) ? 2 : 4;
}
static inline int dlg_is_complex(dlg_dtype t) { return t == DLG_C64 || t == DLG_C128; }
/* The real type of a complex one (and of a real one, itself). */
static inline dlg_dtype dlg_real_of(dlg_dtype t)
{
  return t == DLG_C64 ? DLG_F32 : t == DLG_C128 ? DLG_F64 : t;
}
static inline int dlg_is_half(dlg_dtype t) { return t == DLG_F16 || t == DLG_BF16; }
/* Real flops, as LAPACK counts them: a complex multiply-add is 8. */
static inline double dlg_flops(const dlg_gemm *g)
{
  const double per = dlg_is_complex(g->dtype) ? 8.0 : 2.0;
  return per * (double)g->m * (double)g->n * (double)g->k * (double)g->batch;
}

/* After validation every matrix is either column-major (rs == 1, leading
 * dimension cs >= rows) or row-major (cs == 1, leading dimension rs >= cols);
 * see dlg_canonical_layout() in validate.h. */
static inline int dlg_is_colmajor(const dlg_matrix *x) { return x->rs == 1; }
static inline int64_t dlg_ld(const dlg_matrix *x) { return x->rs == 1 ? x->cs : x->rs; }
/* Matrix p of the batch (elements of es bytes).  An empty operand may have
 * no data at all: NULL stays NULL (offsetting it is undefined). */
static inline void *dlg_batch_at(const dlg_matrix *x, int64_t p, size_t es)
{
  return x->data ? (char *)x->data + (size_t)(p * x->bs) * es : NULL;
}

struct dlg_factor;  /* core/factor.h */
struct dlg_level3;  /* core/level3.h */

typedef struct dlg_backend {
  const char *name;
  dlgemm_backend family;
  /* Once per process: 0 when usable; otherwise fills why[] and returns a
   * status.  Must be cheap to call repeatedly (implementations cache). */
  int (*probe)(char *why, size_t why_len);
  /* Whether this backend can run g (dtype, place, precision, sizes). */
  int (*supports)(const dlg_gemm *g);
  /* Run g.  On failure returns a status and has not produced a partial C
   * that the caller could mistake for an answer: the caller falls back. */
  dlgemm_status (*run)(const dlg_gemm *g);
  /* Optional, GPU backends: whether g on host memory finishes sooner here
   * than on the next BLAS (the backend's cost model), with why[] saying by
   * how much.  Without it DLGEMM_MIN_MNK decides. */
  int (*prefer)(const dlg_gemm *g, char *why, size_t why_len);
  /* Optional: a LAPACK factorization of host arrays (core/factor.h), with
   * the same contract as run (on failure the caller's arrays are untouched),
   * and whether one is worth running here.  NULL where the backend has none. */
  dlgemm_status (*factor)(struct dlg_factor *f);
  int (*factor_pays)(const struct dlg_factor *f, char *why, size_t why_len);
  /* Optional: a level-3 routine other than real GEMM on host arrays
   * (core/level3.h), with run's contract, and whether it pays here. */
  dlgemm_status (*level3)(struct dlg_level3 *x);
  int (*level3_pays)(const struct dlg_level3 *x, char *why, size_t why_len);
} dlg_backend;

#endif
