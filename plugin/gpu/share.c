/*
 * share.c - the handshake of the parts of a split call over the panels
 * they all read (share.h).  One lock and one condition for the whole
 * board: a call has at most a few dozen panels and a handful of parts,
 * and every wait is for a copy that takes milliseconds.
 */
#include <stdlib.h>
#include <string.h>
#include "gpu/share.h"

int dlg_share_init(dlg_share *s, int parts, int panels)
{
  memset(s, 0, sizeof *s);
  if (parts < 1 || parts > DLG_MAX_DEVICES || panels < 0) return -1;
  if (!(s->panel = calloc((size_t)(panels ? panels : 1), sizeof *s->panel))) return -1;
  s->parts = parts, s->panels = panels;
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->changed, NULL);
  return 0;
}

void dlg_share_destroy(dlg_share *s)
{
  if (!s->panel) return;
  pthread_cond_destroy(&s->changed);
  pthread_mutex_destroy(&s->lock);
  free(s->panel);
  s->panel = NULL;
}

int dlg_share_owner(const dlg_share *s, int panel) { return panel % s->parts; }

void dlg_share_publish(dlg_share *s, int panel, const dlg_share_copy *c)
{
  pthread_mutex_lock(&s->lock);
  if (s->panel[panel].state == DLG_SHARE_PENDING) {
    s->panel[panel].copy = *c;
    s->panel[panel].state = DLG_SHARE_PUBLISHED;
  }
  pthread_cond_broadcast(&s->changed);
  pthread_mutex_unlock(&s->lock);
}

int dlg_share_take(dlg_share *s, int panel, dlg_share_copy *c)
{
  dlg_share_panel *p = &s->panel[panel];
  int published;
  pthread_mutex_lock(&s->lock);
  while (p->state == DLG_SHARE_PENDING) pthread_cond_wait(&s->changed, &s->lock);
  published = p->state == DLG_SHARE_PUBLISHED;
  if (published) *c = p->copy;
  pthread_mutex_unlock(&s->lock);
  return published;
}

void dlg_share_taken(dlg_share *s, int panel, int part, void *copied)
{
  pthread_mutex_lock(&s->lock);
  s->panel[panel].taken |= 1u << part;
  s->panel[panel].copied[part] = copied;
  pthread_cond_broadcast(&s->changed);
  pthread_mutex_unlock(&s->lock);
}

int dlg_share_readers(dlg_share *s, int panel, void **copied)
{
  dlg_share_panel *p = &s->panel[panel];
  const unsigned others = ((1u << s->parts) - 1) & ~(1u << dlg_share_owner(s, panel));
  int n = 0, q;
  pthread_mutex_lock(&s->lock);
  while (((p->taken | s->left) & others) != others) pthread_cond_wait(&s->changed, &s->lock);
  for (q = 0; q < s->parts; q++)
    if ((others >> q & 1) && p->copied[q]) copied[n++] = p->copied[q];
  pthread_mutex_unlock(&s->lock);
  return n;
}

void dlg_share_leave(dlg_share *s, int part)
{
  int i;
  pthread_mutex_lock(&s->lock);
  s->left |= 1u << part;
  for (i = part; i < s->panels; i += s->parts)
    if (s->panel[i].state == DLG_SHARE_PENDING) s->panel[i].state = DLG_SHARE_HOST;
  pthread_cond_broadcast(&s->changed);
  pthread_mutex_unlock(&s->lock);
}

int dlg_share_copies(dlg_share *s)
{
  int i, q, n = 0;
  pthread_mutex_lock(&s->lock);
  for (i = 0; i < s->panels; i++)
    for (q = 0; q < s->parts; q++) n += s->panel[i].copied[q] != NULL;
  pthread_mutex_unlock(&s->lock);
  return n;
}
