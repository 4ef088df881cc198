/*
 * fork.c - the door every computing call passes, and the one
 * pthread_atfork handler that drains it (fork.h says why).
 *
 * The door is a count of threads inside and a flag that a fork is waiting.
 * A fork that waits blocks new callers (so a busy process cannot starve it)
 * but never one that is already inside: depth is per thread, and a thread
 * inside only counts once.  A fork made from inside a call (a program's
 * xerbla_ that forks) waits for the others only.
 */
#include <pthread.h>
#include "core/fork.h"

static pthread_mutex_t door = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t door_cv = PTHREAD_COND_INITIALIZER;
static int inside, forking;
static _Thread_local int depth;

static const dlg_fork_hooks *hooks[DLG_FORK_MAX_HOOKS];
static int nhooks;

void dlg_call_enter(void)
{
  if (depth++) return;
  pthread_mutex_lock(&door);
  while (forking) pthread_cond_wait(&door_cv, &door);
  inside++;
  pthread_mutex_unlock(&door);
}

void dlg_call_leave(void)
{
  if (--depth) return;
  pthread_mutex_lock(&door);
  if (--inside == 0 && forking) pthread_cond_broadcast(&door_cv);
  pthread_mutex_unlock(&door);
}

int dlg_fork_register(const dlg_fork_hooks *h)
{
  int r = -1;
  pthread_mutex_lock(&door);
  if (nhooks < DLG_FORK_MAX_HOOKS) {
    hooks[nhooks++] = h;
    r = 0;
  }
  pthread_mutex_unlock(&door);
  return r;
}

/* Returns with the door locked and nobody else inside. */
static void prepare(void)
{
  int i;
  pthread_mutex_lock(&door);
  forking = 1;
  while (inside > (depth ? 1 : 0)) pthread_cond_wait(&door_cv, &door);
  for (i = 0; i < nhooks; i++)
    if (hooks[i]->prepare) hooks[i]->prepare();
}

static void parent(void)
{
  int i;
  for (i = nhooks - 1; i >= 0; i--)
    if (hooks[i]->parent) hooks[i]->parent();
  forking = 0;
  pthread_cond_broadcast(&door_cv);
  pthread_mutex_unlock(&door);
}

/* The child has one thread, this one, which holds the door: it opens again,
 * with this thread inside if it forked from inside a call.  The condition
 * variable may have had waiters that do not exist here: it starts afresh. */
static void child(void)
{
  int i;
  for (i = nhooks - 1; i >= 0; i--)
    if (hooks[i]->child) hooks[i]->child();
  forking = 0;
  inside = depth ? 1 : 0;
  pthread_cond_init(&door_cv, NULL);
  pthread_mutex_unlock(&door);
}

/* At load, before any thread of ours can be inside: the handler must be in
 * place before the first call, and registering it lazily would itself be a
 * once-only setup that a fork could catch halfway. */
__attribute__((constructor)) static void install(void) { pthread_atfork(prepare, parent, child); }
