/*
 * threads.h - starting dlgemm's own threads (the copy pool's workers, a
 * split call's parts).  They block every signal they can: a signal meant
 * for the process is then taken by one of the program's threads, where its
 * handler expects to run (and a sigwait()ing program sees it), never by a
 * thread in the middle of a copy that the program does not know exists.
 */
#ifndef DLG_THREADS_H
#define DLG_THREADS_H

#include <pthread.h>

/* pthread_create's arguments and result. */
int dlg_thread_start(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

#endif
