/*
 * soak_signals.c - what a scheduler or a user does to a process in dlgemm
 * (soak.h): each scenario forks a fresh process (the parent never touches
 * the library or the GPU), lets it get into its calls, then signals it and
 * times how long it takes to go.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "blas_symbols.h"
#include "soak.h"

static int gpu;

/* One long host-array call: about 0.1-0.3 s on the GPU path, as long on
 * the CPU without one (a smaller product). */
static void long_call(void)
{
  const int n = gpu ? 6144 : 400;
  const double one = 1, zero = 0;
  static _Thread_local double *a, *c;
  size_t i;
  if (!a) {
    a = malloc((size_t)n * n * sizeof *a), c = malloc((size_t)n * n * sizeof *c);
    for (i = 0; i < (size_t)n * n; i++) a[i] = (double)(i % 7) - 3;
  }
  dgemm_("N", "T", &n, &n, &n, &one, a, &n, a, &n, &zero, c, &n, 1, 1);
}

/* Fork a child running fn; returns once the child has said it is calling
 * (the first call under way), with its pid. */
static pid_t start(void (*fn)(int ready))
{
  int p[2];
  char byte;
  pid_t pid;
  if (pipe(p)) return -1;
  fflush(stdout); /* nothing printed twice */
  if ((pid = fork()) == 0) {
    close(p[0]);
    fn(p[1]);
    _exit(0);
  }
  close(p[1]);
  if (read(p[0], &byte, 1) != 1) pid = -pid; /* it died first */
  close(p[0]);
  return pid;
}

static void say_ready(int fd)
{
  if (write(fd, "r", 1) != 1) _exit(3);
  close(fd);
}

/* Seconds until pid ends, and how (its wait status). */
static double wait_end(pid_t pid, int *status, double limit)
{
  const double t0 = soak_now();
  while (soak_now() - t0 < limit) {
    const pid_t w = waitpid(pid, status, WNOHANG);
    if (w == pid) return soak_now() - t0;
    usleep(2000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, status, 0);
  return -1;
}

/* --- the children -------------------------------------------------------------- */

static void calls_forever(int ready)
{
  long_call(); /* set up, so that the signal comes inside a call, not the driver's start */
  say_ready(ready);
  for (;;) long_call();
}

static volatile sig_atomic_t interrupted;
static volatile long handler_tid;
static void on_sigint(int sig)
{
  (void)sig;
  interrupted = 1;
  handler_tid = (long)syscall(SYS_gettid);
}

/* The program's own handler: the loop notices between calls and leaves. */
static void calls_until_handled(int ready)
{
  struct sigaction sa;
  long calls = 0;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, NULL);
  long_call();
  say_ready(ready);
  while (!interrupted) long_call(), calls++;
  /* dlgemm's threads block signals (core/threads.h): the handler ran on ours */
  _exit(handler_tid == (long)syscall(SYS_gettid) ? 0 : 4);
}

static void *call_loop(void *arg)
{
  (void)arg;
  for (;;) long_call();
  return NULL;
}

/* exit() while four other threads are in calls. */
static void exits_in_flight(int ready)
{
  pthread_t t[4];
  int i;
  long_call();
  for (i = 0; i < 4; i++) pthread_create(&t[i], NULL, call_loop, NULL);
  say_ready(ready);
  usleep(400000);
  exit(0);
}

/* Mixed checked calls for 6 s; exit 0 only if all were right and some
 * finished after the third second (a neighbour is killed at the second). */
static void shares_gpu(int ready)
{
  rng r = {soak_seed() ^ ((uint64_t)getpid() << 16)};
  cudrv cu;
  CUcontext ctx;
  const double t0 = soak_now();
  long wrong = 0, late = 0;
  if (gpu) cudrv_load(&cu, &ctx);
  wrong += soak_call(SOAK_GEMM, &r, gpu ? &cu : NULL);
  say_ready(ready);
  while (soak_now() - t0 < 6) {
    const int kind = rng_int(&r, gpu ? SOAK_KINDS : SOAK_KINDS - 1);
    wrong += soak_call(kind, &r, gpu ? &cu : NULL);
    late += soak_now() - t0 > 3;
  }
  printf("  neighbour %d: %ld calls after the kill, %ld wrong\n", (int)getpid(), late, wrong);
  fflush(stdout);
  _exit(wrong ? 1 : late ? 0 : 5);
}

/* --- the scenarios -------------------------------------------------------------- */

static int by_signal(int sig)
{
  int status = 0;
  const pid_t pid = start(calls_forever);
  double t;
  if (pid <= 0) return printf("FAIL: %s: the child died before calling\n", strsignal(sig)), 1;
  usleep(150000);
  kill(pid, sig);
  t = wait_end(pid, &status, 10);
  printf("%s during host-array calls: %s after %.3f s\n", strsignal(sig),
         t >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == sig ? "ended by it"
                                                                   : "NOT ended by it",
         t);
  return !(t >= 0 && t < 1.0 && WIFSIGNALED(status) && WTERMSIG(status) == sig);
}

static int handled(void)
{
  int status = 0;
  const pid_t pid = start(calls_until_handled);
  double t;
  if (pid <= 0) return printf("FAIL: handler: the child died before calling\n"), 1;
  usleep(150000);
  kill(pid, SIGINT);
  t = wait_end(pid, &status, 10);
  printf("the program's SIGINT handler: %s, process left %.3f s after the signal\n",
         t >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ran on the program's thread"
         : t >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 4 ? "ran on ANOTHER thread"
                                                                    : "did NOT run",
         t);
  return !(t >= 0 && t < 1.0 + (gpu ? 0.5 : 2.0) && WIFEXITED(status) && !WEXITSTATUS(status));
}

static int exiting(void)
{
  int status = 0;
  const pid_t pid = start(exits_in_flight);
  const double t = pid > 0 ? wait_end(pid, &status, 20) : -1;
  printf("exit() with four threads in calls: %s after %.3f s\n",
         t >= 0 && WIFEXITED(status) && !WEXITSTATUS(status) ? "exited 0" : "did NOT exit cleanly",
         t);
  return !(t >= 0 && WIFEXITED(status) && !WEXITSTATUS(status));
}

static int kill_neighbour(void)
{
  pid_t pid[3];
  int i, status, failed = 0;
  for (i = 0; i < 3; i++) pid[i] = start(shares_gpu);
  if (pid[0] <= 0 || pid[1] <= 0 || pid[2] <= 0) return printf("FAIL: a neighbour died\n"), 1;
  usleep(1500000);
  kill(pid[0], SIGKILL);
  waitpid(pid[0], &status, 0);
  for (i = 1; i < 3; i++) {
    const double t = wait_end(pid[i], &status, 60);
    if (!(t >= 0 && WIFEXITED(status) && !WEXITSTATUS(status))) failed++;
  }
  printf("SIGKILL of one of three processes sharing the GPU: the other two %s\n",
         failed ? "did NOT go on" : "went on calling, every answer right");
  return failed != 0;
}

int soak_signals(void)
{
  int failed = 0;
  gpu = soak_has_gpu();
  soak_seed();
  printf("signals: %s\n", gpu ? "with a GPU" : "no GPU: the calls run on the CPU path");
  fflush(stdout);
  failed += by_signal(SIGINT);
  failed += by_signal(SIGTERM);
  failed += handled();
  failed += exiting();
  failed += kill_neighbour();
  printf("signals %s\n", failed ? "FAILED" : "passed");
  return failed != 0;
}
