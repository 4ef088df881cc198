/*
 * device_once.h - set each GPU of a backend up once, on first use, under a
 * lock; afterwards asking for it costs one atomic load (every routed call
 * asks).  A failed setup is remembered with its reason and not retried.
 */
#ifndef DLG_DEVICE_ONCE_H
#define DLG_DEVICE_ONCE_H

#include <pthread.h>
#include <stddef.h>
#include "core/config.h" /* DLG_MAX_DEVICES */

typedef struct dlg_device_once {
  int state[DLG_MAX_DEVICES]; /* 0 untried, 1 ready, -1 failed */
  char error[DLG_MAX_DEVICES][192];
  pthread_mutex_t lock;
} dlg_device_once;

#define DLG_DEVICE_ONCE_INIT {{0}, {{0}}, PTHREAD_MUTEX_INITIALIZER}

/* Sets device `ordinal` up; 0 on success, else -1 with why[] filled in. */
typedef int (*dlg_device_setup)(int ordinal, char *why, size_t why_len);

/* 1 when device `ordinal` is ready (setup has run once, successfully);
 * otherwise 0 with dlgemm_last_error() saying why.  family names the
 * backend in messages ("CUDA", "HIP"). */
int dlg_device_ready(dlg_device_once *once, int ordinal, dlg_device_setup setup,
                     const char *family);

/* A backend's probe: 0 when device `ordinal` (the first it computes on) is
 * ready, else DLGEMM_ERR_NO_BACKEND with why[] saying why. */
int dlg_device_probe(dlg_device_once *once, int ordinal, dlg_device_setup setup,
                     const char *family, char *why, size_t why_len);

#endif
