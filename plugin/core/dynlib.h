/*
 * dynlib.h - bind a table of function pointers from a shared library found
 * at run time (the GPU drivers: libdlgemm.so links none of them).
 */
#ifndef DLG_DYNLIB_H
#define DLG_DYNLIB_H

#include <stddef.h>

typedef struct dlg_symbol {
  const char *name;
  size_t offset; /* of the function pointer in the table */
} dlg_symbol;

/* dlopen the first of libs[] (NULL-terminated) that loads, and store each of
 * syms[] into table.  0 on success; otherwise -1 with why[] saying which
 * library is missing (what) or which function it lacks. */
int dlg_dynlib_bind(const char *const *libs, const char *what, const dlg_symbol *syms,
                    size_t nsyms, void *table, char *why, size_t why_len);

#endif
