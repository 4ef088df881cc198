/*
 * copy_pool.c - the parallel strided copy behind the host-array engine.
 *
 * Workers are started on first use and live for the process; a job is the
 * byte range of one staging chunk, which the caller and the workers take
 * in 256 KiB pieces.  A generation counter under one mutex starts the job
 * and a count of finished threads ends it, so a job costs two wake-ups per
 * worker: small next to the ~200 us a chunk takes to copy.  Below 1 MiB
 * the caller copies alone.
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "copy_pool.h"

enum { MAX_THREADS = 32, SMALL = 1 << 20, PIECE = 256 << 10 };

static struct {
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  int started;
  unsigned long generation;
  int parts, finished;
  const dlg_lines *m;
  size_t off, len, next;
  char *buf;
  int gather;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
            .done = PTHREAD_COND_INITIALIZER};

/* Copy [off, off + len) of the compact image, line piece by line piece. */
static void copy_range(const dlg_lines *m, size_t off, size_t len, char *buf, int gather)
{
  char *b = buf;
  while (len) {
    const size_t line = off / m->width, in = off % m->width;
    const size_t n = m->width - in < len ? m->width - in : len;
    char *p = m->base + line * m->pitch + in;
    if (gather) memcpy(b, p, n);
    else memcpy(p, b, n);
    b += n, off += n, len -= n;
  }
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

static void *worker(void *arg)
{
  const int id = (int)(size_t)arg;
  unsigned long seen = 0;
  pthread_mutex_lock(&pool.lock);
  for (;;) {
    while (pool.generation == seen) pthread_cond_wait(&pool.wake, &pool.lock);
    seen = pool.generation;
    if (id < pool.parts) {
      pthread_mutex_unlock(&pool.lock);
      run_pieces();
      pthread_mutex_lock(&pool.lock);
      if (++pool.finished == pool.parts) pthread_cond_signal(&pool.done);
    }
  }
  return NULL;
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
    if (pthread_create(&t, &attr, worker, (void *)(size_t)(pool.started + 1))) break;
    pool.started++;
  }
  pthread_attr_destroy(&attr);
  return pool.started + 1;
}

void dlg_copy_lines(const dlg_lines *m, size_t off, size_t len, char *buf, int gather, int threads)
{
  int parts;
  if (len < SMALL || threads <= 1) {
    copy_range(m, off, len, buf, gather);
    return;
  }
  pthread_mutex_lock(&pool.lock);
  parts = start_workers(threads);
  pool.m = m, pool.off = off, pool.len = len, pool.buf = buf, pool.gather = gather, pool.next = 0;
  pool.parts = parts, pool.finished = 1; /* part 0 is the caller's */
  pool.generation++;
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  run_pieces();
  pthread_mutex_lock(&pool.lock);
  while (pool.finished < pool.parts) pthread_cond_wait(&pool.done, &pool.lock);
  pthread_mutex_unlock(&pool.lock);
}

int dlg_copy_threads_default(void)
{
  cpu_set_t set;
  int n = dlg_config_get()->copy_threads;
  if (n >= 1) return n > MAX_THREADS ? MAX_THREADS : n;
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
  if (n < 1) n = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (n > 2) n--; /* one processor for the driver's threads and the rest of the process */
  return n < 1 ? 1 : n > 16 ? 16 : n;
}
