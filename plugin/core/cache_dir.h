/*
 * cache_dir.h - where dlgemm keeps what it measured for later processes
 * (the host model, cuda/model.c; the verdicts against a program's cuBLAS,
 * api/rival_cache.c): $XDG_CACHE_HOME/dlgemm, else ~/.cache/dlgemm.
 */
#ifndef DLG_CACHE_DIR_H
#define DLG_CACHE_DIR_H

#include <stddef.h>

/* The directory's name into dir; -1 where neither variable is set. */
int dlg_cache_dir(char *dir, size_t len);

/* The directory and its parent, where missing (failures are the callers'
 * to meet when they open a file there). */
void dlg_cache_make_dir(const char *dir);

/* Every character of s that a file name should not carry (what a driver
 * calls its GPU: spaces, colons, slashes) made '_'. */
void dlg_cache_name(char *s);

/* FNV-1a of len bytes, continuing from h (start: DLG_HASH_START). */
#define DLG_HASH_START 1469598103934665603ull
unsigned long long dlg_hash(unsigned long long h, const void *p, size_t len);

#endif
