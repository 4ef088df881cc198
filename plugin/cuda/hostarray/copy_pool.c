/*
 * copy_pool.c - the parallel strided copy behind the host-array engine.
 *
 * Workers are started on first use and live for the process; a job is the
 * byte range of one staging chunk, which the caller and the workers take
 * in 256 KiB pieces.  A generation counter under one mutex starts the job;
 * it ends when its pieces are done and the workers that joined have left.
 * The engine posts jobs back to back, a chunk every ~100 us, and on the
 * H100 machine (a VM) waking a sleeping thread costs tens of microseconds;
 * so the workers, and the caller waiting for them, spin for SPIN_SECONDS
 * before they sleep.  Below 1 MiB the caller copies alone.  Jobs of several
 * callers (the engines of several devices, each on its thread) take turns:
 * one pool moves what the host's memory can, and splitting it would not
 * move more.  But 16 threads move less than the memory can (52 GB/s on the
 * H200 machine, whose two links take 54 each): while several engines are
 * in a call (dlg_copy_enter), a job takes each one's threads, leaving a
 * processor to each other engine and to the driver.
 *
 * The bytes are written with streaming (non-temporal) stores: the
 * destination is either a pinned chunk that the copy engine reads next or
 * the caller's C, neither wanted in the CPU's caches, and a store that
 * misses the cache otherwise reads the line first.  On the H100 machine
 * 12 threads moved 53 GB/s with memcpy and 65-83 GB/s with streaming
 * stores; with the spinning, sgemm_ at n = 4096 went from 18 to 28-30
 * TFLOP/s (bench/NOTES.md).  But a streaming store sends the chunk to the
 * host's memory, from which the copy engine reads it again: three passes
 * over the memory for each byte staged.  Several GPUs' staging at once is
 * bound by that (ScaLAPACK on 4 ranks: 50-75 GB/s for the machine against
 * 52 GB/s for one process alone, bench/NOTES.md, session 32), so
 * DLGEMM_STAGE_STORES=cached writes the chunks with ordinary stores, for
 * small rings of chunks (DLGEMM_PINNED_MB) that may stay in the last-level
 * cache until the copy engine has read them: an experiment, measured to
 * lose (4 ranks, a 16 MB ring: PxPOTRF at 65536 2.22 s against 1.83, its
 * copy in 790 ms against 529; session 33), kept for other hosts' caches.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "core/calllog.h"
#include "core/config.h"
#include "core/fork.h"
#include "core/threads.h"
#include "cuda/hostarray/copy_pool.h"

enum { MAX_THREADS = 32, SMALL = 1 << 20, PIECE = 256 << 10 };
#define SPIN_SECONDS 200e-6 /* about two chunks' copy time */

static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER; /* one job at a time */
static int engines; /* in a call now (dlg_copy_enter), atomically */

static struct {
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  int started;
  unsigned long generation;
  int parts;           /* workers 1..parts-1 may join the job */
  int open;            /* pieces are left to take: workers may still join */
  unsigned long users; /* workers in the job; the caller waits for none other */
  const dlg_lines *m;
  size_t off, len, next;
  char *buf;
  int gather;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
            .done = PTHREAD_COND_INITIALIZER};

/* memcpy with stores that bypass the caches (the caller fences). */
static void stream_copy(char *d, const char *s, size_t n)
{
#if defined(__SSE2__)
  if (n >= 256) {
    const size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
      const __m128i x0 = _mm_loadu_si128((const __m128i *)s);
      const __m128i x1 = _mm_loadu_si128((const __m128i *)(s + 16));
      const __m128i x2 = _mm_loadu_si128((const __m128i *)(s + 32));
      const __m128i x3 = _mm_loadu_si128((const __m128i *)(s + 48));
      _mm_stream_si128((__m128i *)d, x0);
      _mm_stream_si128((__m128i *)(d + 16), x1);
      _mm_stream_si128((__m128i *)(d + 32), x2);
      _mm_stream_si128((__m128i *)(d + 48), x3);
    }
  }
#endif
  memcpy(d, s, n);
}

/* Streaming stores are weakly ordered: make them visible before the
 * thread reports its part done (and the copy engine or the caller reads). */
static void store_fence(void)
{
#if defined(__SSE2__)
  _mm_sfence();
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

static void relax(void)
{
#if defined(__SSE2__)
  _mm_pause();
#else
  sched_yield();
#endif
}

/* Spin until *word differs from value or SPIN_SECONDS pass; 1 if it did. */
static int spin_while(const unsigned long *word, unsigned long value)
{
  const double until = dlg_now() + SPIN_SECONDS;
  int i;
  for (;;) {
    for (i = 0; i < 64; i++) {
      if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != value) return 1;
      relax();
    }
    if (dlg_now() > until) return 0;
  }
}

/* Copy [off, off + len) of the compact image, line piece by line piece. */
static void copy_range(const dlg_lines *m, size_t off, size_t len, char *buf, int gather)
{
  const int cached = gather && dlg_config_get()->stage_cached;
  char *b = buf;
  while (len) {
    const size_t line = off / m->width, in = off % m->width;
    const size_t n = m->width - in < len ? m->width - in : len;
    char *p = m->base + line * m->pitch + in;
    if (cached) memcpy(b, p, n);
    else if (gather) stream_copy(b, p, n);
    else stream_copy(p, b, n);
    b += n, off += n, len -= n;
  }
  store_fence();
}

/* Take pieces of the current job until none is left.  Pieces are small and
 * handed out by an atomic counter, not split in equal parts up front: a
 * thread the scheduler sets aside then delays one piece, not the job (with
 * equal parts the job took as long as its slowest thread, and staging
 * varied from 14 to 47 GB/s between runs on the H100 machine). */
static void run_pieces(void)
{
  for (;;) {
    const size_t lo = __atomic_fetch_add(&pool.next, PIECE, __ATOMIC_RELAXED);
    if (lo >= pool.len) return;
    copy_range(pool.m, pool.off + lo, pool.len - lo < PIECE ? pool.len - lo : PIECE,
               pool.buf + lo, pool.gather);
  }
}

/* A worker joins a job only while it is open, and the caller waits only for
 * the workers that joined: one that the scheduler left asleep (more threads
 * than free processors) costs the job nothing, where a job that waited for
 * all of them ran at a third of its speed on the H200 machine.  A worker
 * in the job keeps its fields from changing until it leaves. */
static void *worker(void *arg)
{
  const int id = (int)(size_t)arg;
  unsigned long seen = 0;
  for (;;) {
    int mine;
    spin_while(&pool.generation, seen);
    pthread_mutex_lock(&pool.lock);
    while (pool.generation == seen) pthread_cond_wait(&pool.wake, &pool.lock);
    seen = pool.generation;
    if ((mine = pool.open && id < pool.parts)) __atomic_add_fetch(&pool.users, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&pool.lock);
    if (!mine) continue;
    run_pieces();
    pthread_mutex_lock(&pool.lock);
    if (__atomic_sub_fetch(&pool.users, 1, __ATOMIC_RELEASE) == 0 && !pool.open)
      pthread_cond_signal(&pool.done);
    pthread_mutex_unlock(&pool.lock);
  }
  return NULL;
}

/* fork(): the workers run outside the calls, so the door (core/fork.h) does
 * not stop them; the job's state is locked across fork(), and the child,
 * which has none of the workers, starts with none. */
static void fork_prepare(void) { pthread_mutex_lock(&pool.lock); }
static void fork_parent(void) { pthread_mutex_unlock(&pool.lock); }
static void fork_child(void)
{
  pool.started = 0, pool.open = 0, pool.users = 0;
  pthread_cond_init(&pool.wake, NULL);
  pthread_cond_init(&pool.done, NULL);
  pthread_mutex_unlock(&pool.lock);
}
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;
static void register_hooks(void)
{
  static const dlg_fork_hooks hooks = {fork_prepare, fork_parent, fork_child};
  dlg_fork_register(&hooks);
}

/* Workers 1..n-1 exist; returns how many threads (caller included) can work. */
static int start_workers(int n)
{
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (n > MAX_THREADS) n = MAX_THREADS;
  while (pool.started + 1 < n) {
    pthread_t t;
    if (dlg_thread_start(&t, &attr, worker, (void *)(size_t)(pool.started + 1))) break;
    pool.started++;
  }
  pthread_attr_destroy(&attr);
  return pool.started + 1;
}

/* The processors this process may run on, asked once (a job of several
 * engines needs it, and jobs come every ~100 us). */
static int nprocs;
static pthread_once_t nprocs_once = PTHREAD_ONCE_INIT;
static void count_processors(void)
{
  cpu_set_t set;
  int n = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
  if (n < 1) n = (int)sysconf(_SC_NPROCESSORS_ONLN);
  nprocs = n < 1 ? 1 : n;
}
static int processors(void)
{
  pthread_once(&nprocs_once, count_processors);
  return nprocs;
}

int dlg_copy_parallelism(int threads)
{
  const int n = __atomic_load_n(&engines, __ATOMIC_RELAXED);
  int most;
  if (n < 2) return threads;
  /* a processor for each other engine's thread, which polls its streams
   * meanwhile, and one for the driver's */
  most = processors() - n;
  return threads * n <= most ? threads * n : threads > most ? threads : most;
}

int dlg_copy_lines(const dlg_lines *m, size_t off, size_t len, char *buf, int gather, int threads)
{
  unsigned long users;
  if (len < SMALL || threads <= 1) {
    copy_range(m, off, len, buf, gather);
    return 1;
  }
  threads = dlg_copy_parallelism(threads);
  pthread_once(&hooks_once, register_hooks);
  pthread_mutex_lock(&turn);
  pthread_mutex_lock(&pool.lock);
  pool.m = m, pool.off = off, pool.len = len, pool.buf = buf, pool.gather = gather, pool.next = 0;
  pool.parts = threads = start_workers(threads), pool.open = 1;
  __atomic_store_n(&pool.generation, pool.generation + 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  run_pieces();
  /* every piece is taken: close the job, then wait for the workers in it,
   * who finish within a piece's time */
  pthread_mutex_lock(&pool.lock);
  pool.open = 0;
  pthread_mutex_unlock(&pool.lock);
  while ((users = __atomic_load_n(&pool.users, __ATOMIC_ACQUIRE)) && spin_while(&pool.users, users))
    ;
  pthread_mutex_lock(&pool.lock);
  while (pool.users) pthread_cond_wait(&pool.done, &pool.lock);
  pthread_mutex_unlock(&pool.lock);
  pthread_mutex_unlock(&turn);
  return threads;
}

int dlg_copy_threads_default(void)
{
  int n = dlg_config_get()->copy_threads;
  if (n >= 1) return n > MAX_THREADS ? MAX_THREADS : n;
  n = processors();
  if (n > 2) n--; /* one processor for the driver's threads and the rest of the process */
  return n > 16 ? 16 : n;
}

void dlg_copy_enter(void) { __atomic_add_fetch(&engines, 1, __ATOMIC_RELAXED); }
void dlg_copy_leave(void) { __atomic_sub_fetch(&engines, 1, __ATOMIC_RELAXED); }
