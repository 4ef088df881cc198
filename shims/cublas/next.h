/*
 * next.h - the definitions of the cuBLAS names (names.h) that come after
 * dlgemm's: those of the cuBLAS the program was linked with.
 */
#ifndef DLG_SHIMS_CUBLAS_NEXT_H
#define DLG_SHIMS_CUBLAS_NEXT_H

#include <stddef.h>
#include <cublasLt.h>
#include <cublas_v2.h>
#include "shims/cublas/names.h"

typedef struct dlg_cublas_next {
#define DLG_NEXT_FIELD(name, lib) __typeof__(&name) name;
  DLG_CUBLAS_ENTRIES(DLG_NEXT_FIELD)
  DLG_CUBLAS_HELPERS(DLG_NEXT_FIELD)
#undef DLG_NEXT_FIELD
} dlg_cublas_next;

/* The next library's functions, looked up on first use (a field is NULL
 * where none is loaded: a call through our name then answers
 * CUBLAS_STATUS_NOT_INITIALIZED, as cuBLAS does for a handle never made). */
const dlg_cublas_next *dlg_cublas_next_get(void);

/* The field at `offset` of the table, looked up again while it is NULL (a
 * library the program loaded after our first call). */
void *dlg_cublas_next_refresh(size_t offset);

/* The next library's `name` (a field of dlg_cublas_next), or NULL. */
#define DLG_CUBLAS_NEXT(name)                                                                    \
  (dlg_cublas_next_get()->name                                                                   \
       ? dlg_cublas_next_get()->name                                                             \
       : (__typeof__(&name))dlg_cublas_next_refresh(offsetof(dlg_cublas_next, name)))

#endif
