/*
 * threads.c - dlgemm's threads start with every signal blocked (threads.h
 * says why): the new thread inherits the mask its creator holds while it
 * is created, and the creator gets its own back.
 */
#include <signal.h>
#include "core/threads.h"

int dlg_thread_start(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
  sigset_t all, was;
  int r;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &was);
  r = pthread_create(t, attr, fn, arg);
  pthread_sigmask(SIG_SETMASK, &was, NULL);
  return r;
}
