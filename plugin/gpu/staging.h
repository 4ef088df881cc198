/*
 * staging.h - how a host operand is laid out in device memory for the plain
 * copy-in, compute, copy-out path of a GPU backend: compactly (leading
 * dimension = the contiguous extent), in the same orientation, one matrix
 * per batch entry (one only when the operand is broadcast).  Backends do the
 * copies with their own API; the geometry is the same for all of them.
 */
#ifndef DLG_STAGING_H
#define DLG_STAGING_H

#include <stdint.h>
#include "core/gemm.h"

/* Device bytes of the compact copy of x, rounded up for alignment. */
static inline size_t dlg_staged_bytes(const dlg_matrix *x, int64_t batch, size_t esize)
{
  size_t one = (size_t)(x->rows * x->cols) * esize;
  return ((x->bs ? (size_t)batch : 1) * one + 255) / 256 * 256;
}

/* Batch entries of x that are copied: one for a broadcast operand. */
static inline int64_t dlg_staged_entries(const dlg_matrix *x, int64_t batch)
{
  return x->bs ? batch : 1;
}

/* One 2-D copy: height lines of width bytes, pitch apart on the host and
 * contiguous on the device, from/to host at device offset dev_offset. */
typedef struct dlg_copy2d {
  char *host;
  size_t dev_offset, width, height, pitch;
} dlg_copy2d;

static inline dlg_copy2d dlg_staged_copy(const dlg_matrix *x, int64_t p, size_t esize)
{
  const int colmajor = dlg_is_colmajor(x);
  dlg_copy2d c;
  c.width = (size_t)(colmajor ? x->rows : x->cols) * esize;
  c.height = (size_t)(colmajor ? x->cols : x->rows);
  c.pitch = (size_t)dlg_ld(x) * esize;
  c.host = dlg_batch_at(x, p, esize);
  c.dev_offset = (size_t)p * c.width * c.height;
  return c;
}

/* The device view of x: same orientation, compact, at base. */
static inline dlg_matrix dlg_staged_view(const dlg_matrix *x, uintptr_t base)
{
  dlg_matrix d = *x;
  const int colmajor = dlg_is_colmajor(x);
  d.data = (void *)base;
  d.rs = colmajor ? 1 : x->cols;
  d.cs = colmajor ? (x->rows > 1 ? x->rows : 1) : 1;
  if (!colmajor && x->cols <= 1) d.rs = 1, d.cs = x->rows > 1 ? x->rows : 1; /* a column */
  d.bs = x->bs ? x->rows * x->cols : 0;
  return d;
}

#endif
