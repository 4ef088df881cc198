/*
 * share.h - the panels that every part of a split host-array call reads
 * (the operand whose side was not cut: A when C is cut into column
 * blocks), sent from host memory once: panel i crosses to the device of
 * part i mod P, its owner, and the other parts copy it from there (peer
 * copies) instead of staging it from the host again.
 *
 * This is the handshake between the parts' threads.  The copies, events
 * and device memory are the caller's, carried here as opaque handles, so
 * it is plain C and pthreads, tested without a GPU (test_share).
 *
 * No part waits forever: every part walks the panels in the same order,
 * so a part waiting for panel i waits for an owner that is itself at most
 * waiting for a panel before i, and so on down to a part that can go on;
 * a part that stops - it failed, or it runs its block in pieces whose
 * panels differ - leaves, so that the others send its unpublished panels
 * from the host themselves and its owners stop waiting for it; and an
 * owner waits for its readers only once it has left.  Two split calls
 * sharing at once could still wait on each other's engines: the caller
 * lets one share at a time.
 */
#ifndef DLG_SHARE_H
#define DLG_SHARE_H

#include <pthread.h>
#include <stdint.h>
#include "core/config.h"

/* The owner's device copy of a panel. */
typedef struct dlg_share_copy {
  uint64_t where; /* its address on the owner's device */
  void *ready;    /* the owner's event, recorded once the copy is queued */
  void *context;  /* the owner's device context */
} dlg_share_copy;

typedef struct dlg_share_panel {
  int state;        /* DLG_SHARE_PENDING, _PUBLISHED, _HOST */
  dlg_share_copy copy;
  unsigned taken;   /* bit p: part p's copy of it is queued, or p made none */
  void *copied[DLG_MAX_DEVICES]; /* part p's event, fired once its copy is done */
} dlg_share_panel;

enum { DLG_SHARE_PENDING, DLG_SHARE_PUBLISHED, DLG_SHARE_HOST };

typedef struct dlg_share {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int parts, panels;
  unsigned left; /* bit p: part p stopped taking part */
  dlg_share_panel *panel;
} dlg_share;

/* 0, or -1 when out of memory (then nothing is held). */
int dlg_share_init(dlg_share *s, int parts, int panels);
void dlg_share_destroy(dlg_share *s);

/* The part that sends panel i from the host. */
int dlg_share_owner(const dlg_share *s, int panel);

/* The owner: its copy of the panel is queued, c->ready recorded behind it. */
void dlg_share_publish(dlg_share *s, int panel, const dlg_share_copy *c);

/* A reader: waits until the panel is published (1, *c its copy) or its
 * owner left without publishing it (0: the reader sends it from the host). */
int dlg_share_take(dlg_share *s, int panel, dlg_share_copy *c);

/* A reader that took the panel: its copy is queued, `copied` recorded
 * behind it; NULL when it queued none. */
void dlg_share_taken(dlg_share *s, int panel, int part, void *copied);

/* The owner, before it frees its copy: waits until every other part took
 * the panel or left, then returns the events of the copies made of it
 * (at most DLG_MAX_DEVICES) for the owner's free to wait on. */
int dlg_share_readers(dlg_share *s, int panel, void **copied);

/* Part p stops: its panels not yet published go to the readers from the
 * host, and its owners no longer wait for it.  Idempotent. */
void dlg_share_leave(dlg_share *s, int part);

/* The copies made between parts (taken with an event), for the call's line. */
int dlg_share_copies(dlg_share *s);

#endif
