/*
 * rival_cache.h - the verdicts of api/rival.c kept on disk, so that a
 * program's later runs (and its other processes: DDP ranks, notebooks)
 * start from what the first one measured instead of measuring again.
 *
 * One file per GPU and pair of libraries: its name carries the GPU's name
 * and bus slot, and a hash of both libraries' files (path, size, time):
 * rebuilt dlgemm or another cuBLAS, and the old verdicts are not read.
 * A verdict is a line, "<the class's key in hex> o|t", appended with one
 * write() (atomic among processes); later lines win.  DLGEMM_CALIBRATE=1
 * measures again (and appends).
 */
#ifndef DLG_API_RIVAL_CACHE_H
#define DLG_API_RIVAL_CACHE_H

#include <stddef.h>

/* The verdicts' file for the GPU `tag` ("name-bus") against the rival
 * library that holds function `rival`: 0, or -1 where there is no cache
 * directory. */
int dlg_rival_cache_path(const char *tag, const void *rival, char *path, size_t len);

/* Each well-formed line of the file, in order, to put(key, ours, ctx):
 * keys of key_len bytes, ours 1 (dlgemm) or 0 (the rival).  Returns how
 * many; a missing, foreign (not a regular file, a link) or oversized file
 * gives none. */
int dlg_rival_cache_load(const char *path, size_t key_len,
                         void (*put)(const void *key, int ours, void *ctx), void *ctx);

/* Append one verdict (creating the directory and file as needed); a file
 * grown past its bound takes no more. */
void dlg_rival_cache_save(const char *path, const void *key, size_t key_len, int ours);

#endif
