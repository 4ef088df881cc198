/*
 * copy_pool.h - host threads that move bytes between a caller's strided
 * matrix and a compact (pinned) buffer, in parallel.
 *
 * One memcpy thread moves pageable memory at a fraction of what the PCIe
 * link takes (about 8 of its 43 GB/s on the H100 machine); the host-array
 * engine keeps the link busy by splitting each staging copy over several.
 */
#ifndef DLG_COPY_POOL_H
#define DLG_COPY_POOL_H

#include <stddef.h>

/* A matrix's memory as height lines of width bytes, pitch bytes apart: its
 * compact image is the lines back to back. */
typedef struct dlg_lines {
  char *base;
  size_t width, pitch, height;
} dlg_lines;

/* Copy bytes [off, off + len) of the compact image of m: from m into buf
 * (gather) or from buf into m.  Runs on the pool's threads and the
 * caller's; returns when done.  Callers on several threads take turns.
 * threads is the parallelism wanted, 1 for the caller alone (more while
 * several engines are in a call: dlg_copy_enter); returns the parallelism
 * the job had. */
int dlg_copy_lines(const dlg_lines *m, size_t off, size_t len, char *buf, int gather, int threads);

/* Threads the pool will use by default: DLGEMM_COPY_THREADS (config.h),
 * else all but one of the processors this process may run on, up to 16 (on
 * the H100 machine's 16 processors, 15 threads beat 12 and 8). */
int dlg_copy_threads_default(void);

/* An engine starts / ends a call: while several are in one, each job takes
 * the threads asked times their number, leaving a processor to each other
 * engine and one to the driver (never fewer than asked). */
void dlg_copy_enter(void);
void dlg_copy_leave(void);

/* The threads a job asking for `threads` takes now. */
int dlg_copy_parallelism(int threads);

#endif
