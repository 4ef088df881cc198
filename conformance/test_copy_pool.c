/*
 * test_copy_pool - the host-array engine's copy threads (plugin/cuda/
 * hostarray/copy_pool.c) without a GPU: strided lines gathered into and
 * scattered from a compact buffer, byte for byte, nothing written outside
 * the range asked; several callers at once as the engines of several
 * devices are (each inside dlg_copy_enter / leave), with more threads asked
 * than this machine has processors, so that workers the scheduler leaves
 * asleep meet jobs that started, ended or were replaced without them; and
 * the parallelism a job takes while several engines are in a call.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check_run.h"
#include "cuda/hostarray/copy_pool.h"
#include "testutil.h"

enum { MIB = 1 << 20 };

/* One random copy: its matrix, buffer and the range, checked after. */
typedef struct shape {
  size_t width, pitch, height, off, len;
} shape;

static shape random_shape(rng *g)
{
  shape s;
  s.width = 1 + (size_t)rng_int(g, 3 * 4096);
  s.pitch = s.width + (size_t)rng_int(g, 3) * (size_t)rng_int(g, 300);
  s.height = (3 * MIB) / s.width + 1 + (size_t)rng_int(g, 50);
  /* at least a MiB most times (the pool's threads), sometimes less */
  s.len = rng_int(g, 8) ? MIB + (size_t)rng_int(g, 2 * MIB) : (size_t)rng_int(g, MIB);
  s.off = (size_t)rng_int(g, (int)(s.width * s.height - s.len + 1));
  return s;
}

static unsigned char byte_at(uint64_t seed, size_t i) { return (unsigned char)((seed + i) * 2654435761u >> 13); }

/* One gather or scatter of a random shape with `threads`; 0 if exact. */
static int one_copy(rng *g, int threads, char *why, size_t why_len)
{
  const shape s = random_shape(g);
  const int gather = rng_int(g, 2);
  const uint64_t seed = rng_next(g);
  const size_t bytes = s.pitch * (s.height - 1) + s.width;
  char *mat = malloc(bytes), *buf = malloc(s.len + 64), *mat0 = malloc(bytes);
  char *seen = malloc(bytes > s.len + 64 ? bytes : s.len + 64);
  const char *mat_now = mat, *buf_now = buf;
  dlg_lines l;
  size_t i;
  int bad = 0;
  ck_assert(mat && buf && mat0 && seen);
  for (i = 0; i < bytes; i++) mat[i] = (char)byte_at(seed, i);
  for (i = 0; i < s.len + 64; i++) buf[i] = (char)byte_at(~seed, i);
  memcpy(mat0, mat, bytes);
  l.base = mat, l.width = s.width, l.pitch = s.pitch, l.height = s.height;
  dlg_copy_lines(&l, s.off, s.len, buf, gather, threads);
  /* what the caller sees on return, at once: a worker still copying (one
   * the job did not wait for) would show as bytes not yet written */
  memcpy(seen, gather ? buf : mat, gather ? s.len + 64 : bytes);
  if (gather) buf_now = seen;
  else mat_now = seen;
  /* byte k of the compact image is line k / width, column k % width */
  for (i = 0; i < bytes && !bad; i++) {
    const size_t line = i / s.pitch, col = i % s.pitch;
    const size_t k = line * s.width + col;
    const int inside = col < s.width && k >= s.off && k < s.off + s.len;
    const char want = inside && !gather ? (char)byte_at(~seed, k - s.off) : mat0[i];
    if (mat_now[i] != want) {
      snprintf(why, why_len, "%s width %zu pitch %zu height %zu off %zu len %zu: matrix byte %zu",
               gather ? "gather" : "scatter", s.width, s.pitch, s.height, s.off, s.len, i);
      bad = 1;
    }
  }
  for (i = 0; i < s.len + 64 && !bad; i++) {
    const size_t k = s.off + i;
    const char want = i < s.len && gather ? mat0[(k / s.width) * s.pitch + k % s.width]
                                          : (char)byte_at(~seed, i);
    if (buf_now[i] != want) {
      snprintf(why, why_len, "%s width %zu pitch %zu height %zu off %zu len %zu: buffer byte %zu",
               gather ? "gather" : "scatter", s.width, s.pitch, s.height, s.off, s.len, i);
      bad = 1;
    }
  }
  free(mat), free(buf), free(mat0), free(seen);
  return bad;
}

START_TEST(copies_are_exact)
{
  rng g = {test_seed("test_copy_pool")};
  static const int threads[] = {1, 2, 5, 16, 40};
  char why[256];
  int t;
  for (t = 0; t < 60; t++)
    if (one_copy(&g, threads[t % 5], why, sizeof why)) ck_abort_msg("%d threads: %s", threads[t % 5], why);
}
END_TEST

/* An engine: its own stream of copies, inside dlg_copy_enter / leave. */
typedef struct engine {
  uint64_t seed;
  int copies, bad;
  char why[256];
} engine;

static void *engine_run(void *arg)
{
  engine *e = arg;
  rng g = {e->seed};
  int i;
  dlg_copy_enter();
  for (i = 0; i < e->copies && !e->bad; i++) {
    if (rng_int(&g, 4) == 0) sched_yield(); /* the engines' turns interleave differently */
    e->bad = one_copy(&g, 1 + rng_int(&g, 12), e->why, sizeof e->why);
  }
  dlg_copy_leave();
  return NULL;
}

START_TEST(engines_at_once)
{
  rng g = {test_seed("test_copy_pool engines")};
  engine e[3];
  pthread_t t[3];
  int i;
  for (i = 0; i < 3; i++) {
    memset(&e[i], 0, sizeof e[i]);
    e[i].seed = rng_next(&g), e[i].copies = 40;
    ck_assert_int_eq(pthread_create(&t[i], NULL, engine_run, &e[i]), 0);
  }
  for (i = 0; i < 3; i++) pthread_join(t[i], NULL);
  for (i = 0; i < 3; i++) ck_assert_msg(!e[i].bad, "engine %d: %s", i, e[i].why);
}
END_TEST

START_TEST(parallelism_grows_with_engines)
{
  cpu_set_t set;
  int procs = 0, most;
  if (sched_getaffinity(0, sizeof set, &set) == 0) procs = CPU_COUNT(&set);
  if (procs < 1) procs = (int)sysconf(_SC_NPROCESSORS_ONLN);
  ck_assert_int_eq(dlg_copy_parallelism(6), 6); /* no engine in a call */
  dlg_copy_enter();
  ck_assert_int_eq(dlg_copy_parallelism(6), 6); /* one */
  dlg_copy_enter();
  most = procs - 2; /* a processor for the other engine and the driver */
  ck_assert_int_eq(dlg_copy_parallelism(6), 12 <= most ? 12 : 6 > most ? 6 : most);
  ck_assert_int_eq(dlg_copy_parallelism(1000), 1000); /* never fewer than asked */
  dlg_copy_leave();
  ck_assert_int_eq(dlg_copy_parallelism(6), 6);
  dlg_copy_leave();
}
END_TEST

int main(void)
{
  TCase *tc = tcase_create("copy_pool");
  tcase_set_timeout(tc, 120); /* a job waiting for a worker that never comes fails here */
  tcase_add_test(tc, copies_are_exact);
  tcase_add_test(tc, engines_at_once);
  tcase_add_test(tc, parallelism_grows_with_engines);
  return check_run("copy_pool", tc);
}
