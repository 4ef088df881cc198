/*
 * fork.h - fork() while other threads are inside the library: the child's
 * first call must work whatever the parent's threads were doing.
 *
 * Every computing entry point (the BLAS shims, dlgemm_matmul) runs between
 * dlg_call_enter() and dlg_call_leave().  fork() waits, in our pthread_atfork
 * handler, until no thread is inside, and holds new callers at the door
 * until it returns: no lock of ours, no once-only setup, no stdio stream is
 * then held by a thread that will not exist in the child.  What runs
 * outside the calls (the copy pool's threads) registers hooks that lock its
 * state around fork() and reset it in the child.
 */
#ifndef DLG_FORK_H
#define DLG_FORK_H

/* Nestable per thread: a call made from inside a call passes straight in. */
void dlg_call_enter(void);
void dlg_call_leave(void);

/* Hooks of a module with state that threads outside the calls touch.
 * prepare runs after the calls have drained, in registration order; parent
 * and child in the reverse order.  Any may be NULL. */
typedef struct dlg_fork_hooks {
  void (*prepare)(void);
  void (*parent)(void);
  void (*child)(void);
} dlg_fork_hooks;

/* Registers hooks (static storage; at most DLG_FORK_MAX_HOOKS of them);
 * returns -1 when the table is full. */
#define DLG_FORK_MAX_HOOKS 8
int dlg_fork_register(const dlg_fork_hooks *hooks);

#endif
