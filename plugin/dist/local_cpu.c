/*
 * local_cpu.c - the host store of the distributed factorizations
 * (local.h): a copy of the caller's array, operated on by plain loops.
 *
 * It exists so that the distributed algorithm itself (which block goes
 * where, which rank solves, sends and updates what) is checked where there
 * is no GPU: DLGEMM_SCALAPACK=host runs ScaLAPACK's testers through it in
 * CI.  Their matrices are small; the loops read any strides (a transposed
 * view included) and sum in double.  Nothing routes a program here by
 * itself: the next ScaLAPACK is faster on the CPU.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/errors.h"
#include "dist/local_cpu.h"

static double get(const dlg_local *l, dlg_lmat m, int64_t i, int64_t j)
{
  const int64_t e = i * m.rs + j * m.cs;
  return l->dtype == DLG_F64 ? ((const double *)m.p)[e] : (double)((const float *)m.p)[e];
}

static void set(const dlg_local *l, dlg_lmat m, int64_t i, int64_t j, double v)
{
  const int64_t e = i * m.rs + j * m.cs;
  if (l->dtype == DLG_F64) ((double *)m.p)[e] = v;
  else ((float *)m.p)[e] = (float)v;
}

/* Whether every view of an operation is one the GPU store could take
 * (local.h); the first that is not fails the store, as it would there.
 * A copy's view and host array must be column-major as they are (the GPU
 * copies them by columns; a single column's pitch does not count). */
static int takeable(dlg_local *l, int n, const dlg_lmat *m)
{
  int i;
  for (i = 0; i < n && !l->status; i++)
    if (!dlg_lmat_takeable(m[i]))
      l->status = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "a %lldx%lld view (strides %lld, %lld) that "
                           "the GPU store cannot take", (long long)m[i].rows,
                           (long long)m[i].cols, (long long)m[i].rs, (long long)m[i].cs);
  return !l->status;
}

static int copyable(dlg_local *l, dlg_lmat m, int64_t ld)
{
  const dlg_lmat h = {0, m.rows, m.cols, 1, ld};
  const dlg_lmat both[2] = {m, h};
  if (!l->status && dlg_lmat_is_t(m))
    l->status = dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "a copy of a transposed view");
  return takeable(l, 2, both);
}

static void cpu_to_host(dlg_local *l, dlg_lmat m, void *host, int64_t ld)
{
  const dlg_lmat h = {(uintptr_t)host, m.rows, m.cols, 1, ld};
  int64_t i, j;
  if (!copyable(l, m, ld)) return;
  for (j = 0; j < m.cols; j++)
    for (i = 0; i < m.rows; i++) set(l, h, i, j, get(l, m, i, j));
}

static void cpu_from_host(dlg_local *l, const void *host, int64_t ld, dlg_lmat m)
{
  const dlg_lmat h = {(uintptr_t)host, m.rows, m.cols, 1, ld};
  int64_t i, j;
  if (!copyable(l, m, ld)) return;
  for (j = 0; j < m.cols; j++)
    for (i = 0; i < m.rows; i++) set(l, m, i, j, get(l, h, i, j));
}

/* A copy of the caller's array, as the GPU store has one: a call handed
 * back to the next ScaLAPACK finds its array as it was. */
typedef struct cpu_state {
  void *host;
  int64_t rows, cols, ld;
  char *copy; /* rows x cols (leading dimension rows), then the scratch */
} cpu_state;

static dlgemm_status cpu_open(dlg_local *l, void *host, int64_t rows, int64_t cols, int64_t ld,
                              int64_t scratch_elems, dlg_lmat *local, uintptr_t *scratch)
{
  const size_t es = dlg_elem_size(l->dtype), mine = (size_t)(rows * cols);
  cpu_state *s = calloc(1, sizeof *s);
  if (s) s->copy = malloc((mine + (size_t)(scratch_elems > 0 ? scratch_elems : 1)) * es);
  if (!s || !s->copy) {
    free(s);
    return l->status = dlg_fail(DLGEMM_ERR_OUT_OF_MEMORY, "no host memory for the local matrix");
  }
  s->host = host, s->rows = rows, s->cols = cols, s->ld = ld;
  l->state = s;
  *local = (dlg_lmat){(uintptr_t)s->copy, rows, cols, 1, rows > 0 ? rows : 1};
  cpu_from_host(l, host, ld, *local);
  *scratch = (uintptr_t)(s->copy + mine * es);
  return DLGEMM_OK;
}

static dlgemm_status cpu_close(dlg_local *l, int keep)
{
  cpu_state *s = l->state;
  if (!s) return l->status;
  if (keep) cpu_to_host(l, (dlg_lmat){(uintptr_t)s->copy, s->rows, s->cols, 1,
                                      s->rows > 0 ? s->rows : 1}, s->host, s->ld);
  free(s->copy);
  free(s);
  l->state = NULL;
  return l->status;
}

/* Left-looking, column by column: INFO is the first column whose pivot
 * is not positive (NaN included), as DPOTRF's. */
static int cpu_potrf_lower(dlg_local *l, dlg_lmat a)
{
  int64_t i, j, p;
  if (!takeable(l, 1, &a)) return 0;
  for (j = 0; j < a.rows; j++) {
    double d = get(l, a, j, j), r;
    for (p = 0; p < j; p++) d -= get(l, a, j, p) * get(l, a, j, p);
    if (!(d > 0)) {
      set(l, a, j, j, d);
      return (int)j + 1;
    }
    r = sqrt(d);
    set(l, a, j, j, r);
    for (i = j + 1; i < a.rows; i++) {
      double v = get(l, a, i, j);
      for (p = 0; p < j; p++) v -= get(l, a, i, p) * get(l, a, j, p);
      set(l, a, i, j, v / r);
    }
  }
  return 0;
}

/* b = b t^-T: row by row, x t^T = b is forward substitution with t's rows. */
static void cpu_trsm(dlg_local *l, dlg_lmat t, dlg_lmat b)
{
  const dlg_lmat views[2] = {t, b};
  int64_t r, j, p;
  if (!takeable(l, 2, views)) return;
  for (r = 0; r < b.rows; r++)
    for (j = 0; j < b.cols; j++) {
      double v = get(l, b, r, j);
      for (p = 0; p < j; p++) v -= get(l, b, r, p) * get(l, t, j, p);
      set(l, b, r, j, v / get(l, t, j, j));
    }
}

static void cpu_gemm_nt(dlg_local *l, double alpha, dlg_lmat a, dlg_lmat b, double beta, dlg_lmat c)
{
  const dlg_lmat views[3] = {a, b, c};
  int64_t i, j, p;
  if (!takeable(l, 3, views)) return;
  for (j = 0; j < c.cols; j++)
    for (i = 0; i < c.rows; i++) {
      double v = 0;
      for (p = 0; p < a.cols; p++) v += get(l, a, i, p) * get(l, b, j, p);
      set(l, c, i, j, alpha * v + (beta == 0 ? 0 : beta * get(l, c, i, j)));
    }
}

static void cpu_syrk_lower(dlg_local *l, double alpha, dlg_lmat a, double beta, dlg_lmat c)
{
  const dlg_lmat views[2] = {a, c};
  int64_t i, j, p;
  if (!takeable(l, 2, views)) return;
  for (j = 0; j < c.cols; j++)
    for (i = j; i < c.rows; i++) {
      double v = 0;
      for (p = 0; p < a.cols; p++) v += get(l, a, i, p) * get(l, a, j, p);
      set(l, c, i, j, alpha * v + (beta == 0 ? 0 : beta * get(l, c, i, j)));
    }
}

static const char *cpu_name(dlg_local *l)
{
  (void)l;
  return "host";
}

const dlg_local_ops dlg_local_cpu = {cpu_open,        cpu_close, cpu_to_host,    cpu_from_host,
                                     cpu_potrf_lower, cpu_trsm,  cpu_gemm_nt,    cpu_syrk_lower,
                                     cpu_name};
