/*
 * test_share - the handshake of a split call's parts over the panels they
 * all read (plugin/gpu/share.c), without a GPU: parts as threads walking
 * the panels in order as the engines do, owners publishing, readers taking
 * and queuing "copies", owners waiting for their readers before they free;
 * with random delays, and with parts that leave at a random panel (a fault,
 * or blocks of their own).  Checked: nobody waits forever (the timeout), a
 * panel whose owner left unpublished goes from the host, an owner frees
 * only once every copy of its panel is queued or its reader left, the
 * events it waits on are exactly its readers' copies, and the copies
 * counted for the call's line are the ones made.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check_run.h"
#include "gpu/share.h"
#include "testutil.h"

enum { MAX_PANELS = 40 };

/* One trial: its board, each part's script and what happened. */
typedef struct trial {
  dlg_share s;
  int parts, panels;
  int leave_at[DLG_MAX_DEVICES]; /* the panel a part stops at (panels: it finishes) */
  uint64_t seed;
  /* written by the parts */
  int freed[MAX_PANELS];          /* the owner freed its copy */
  int from_host[DLG_MAX_DEVICES][MAX_PANELS];
  int token[DLG_MAX_DEVICES][MAX_PANELS]; /* a reader's queued copy ("event") */
  int bad;                        /* a reader took a freed panel, or an owner's list was wrong */
  char why[160];
} trial;

typedef struct part { trial *r; int p; } part;

static void jitter(rng *g)
{
  const int k = rng_int(g, 8);
  if (k == 0) {
    struct timespec ts = {0, 1000 * rng_int(g, 50)};
    nanosleep(&ts, NULL);
  } else if (k < 3) {
    sched_yield();
  }
}

static void flag(trial *r, const char *why)
{
  if (!r->bad) snprintf(r->why, sizeof r->why, "%s", why);
  r->bad = 1;
}

static void *walk(void *arg)
{
  part *me = arg;
  trial *r = me->r;
  const int p = me->p;
  rng g = {r->seed * 31 + (uint64_t)p + 1};
  int i, owned[MAX_PANELS] = {0};
  for (i = 0; i < r->panels && i < r->leave_at[p]; i++) {
    jitter(&g);
    if (dlg_share_owner(&r->s, i) == p) {
      const dlg_share_copy c = {(uint64_t)(1000 + i), &r->freed[i], NULL};
      dlg_share_publish(&r->s, i, &c);
      owned[i] = 1;
    } else {
      dlg_share_copy c;
      if (!dlg_share_take(&r->s, i, &c)) {
        r->from_host[p][i] = 1;
        continue;
      }
      if (c.where != (uint64_t)(1000 + i) || c.ready != &r->freed[i]) flag(r, "wrong copy handed out");
      if (__atomic_load_n(&r->freed[i], __ATOMIC_SEQ_CST)) flag(r, "a panel taken after its owner freed it");
      jitter(&g);
      /* a reader that faults after taking queues no copy (NULL) */
      r->token[p][i] = rng_int(&g, 10) ? 1 : 0;
      dlg_share_taken(&r->s, i, p, r->token[p][i] ? &r->token[p][i] : NULL);
    }
  }
  dlg_share_leave(&r->s, p);
  for (i = 0; i < r->panels; i++)
    if (owned[i]) { /* free after the readers' copies, as the engine does */
      void *ev[DLG_MAX_DEVICES];
      int n = dlg_share_readers(&r->s, i, ev), q, want = 0, k;
      for (q = 0; q < r->parts; q++)
        if (q != p && r->token[q][i]) {
          want++;
          for (k = 0; k < n && ev[k] != &r->token[q][i]; k++) continue;
          if (k == n) flag(r, "an owner did not wait for a reader's copy");
        }
      if (n != want) flag(r, "an owner waited for copies nobody made");
      __atomic_store_n(&r->freed[i], 1, __ATOMIC_SEQ_CST);
    }
  return NULL;
}

static void run_trial(trial *r)
{
  pthread_t t[DLG_MAX_DEVICES];
  part parts[DLG_MAX_DEVICES];
  int p, i, want;
  ck_assert_int_eq(dlg_share_init(&r->s, r->parts, r->panels), 0);
  for (p = 0; p < r->parts; p++) {
    parts[p].r = r, parts[p].p = p;
    ck_assert_int_eq(pthread_create(&t[p], NULL, walk, &parts[p]), 0);
  }
  for (p = 0; p < r->parts; p++) pthread_join(t[p], NULL);
  for (p = 0, want = 0; p < r->parts; p++)
    for (i = 0; i < r->panels; i++) want += r->token[p][i];
  if (dlg_share_copies(&r->s) != want) flag(r, "the copies counted are not the copies made");
  dlg_share_destroy(&r->s);
}

START_TEST(every_part_finishes)
{
  trial r;
  int i, p;
  memset(&r, 0, sizeof r);
  r.parts = 3, r.panels = 10, r.seed = 1;
  for (p = 0; p < r.parts; p++) r.leave_at[p] = r.panels;
  run_trial(&r);
  ck_assert_msg(!r.bad, "%s", r.why);
  for (p = 0; p < r.parts; p++)
    for (i = 0; i < r.panels; i++) ck_assert_int_eq(r.from_host[p][i], 0);
  for (i = 0; i < r.panels; i++) ck_assert_int_eq(r.freed[i], 1);
}
END_TEST

START_TEST(a_part_that_leaves_first_sends_nothing)
{
  trial r;
  int i, p;
  memset(&r, 0, sizeof r);
  r.parts = 2, r.panels = 7, r.seed = 2;
  r.leave_at[0] = 0, r.leave_at[1] = r.panels; /* part 0 runs its block in pieces */
  run_trial(&r);
  ck_assert_msg(!r.bad, "%s", r.why);
  for (i = 0; i < r.panels; i++) /* part 0's panels from the host, part 1's shared with nobody */
    ck_assert_int_eq(r.from_host[1][i], i % 2 == 0);
  for (p = 0; p < 2; p++) ck_assert_int_eq(r.token[p][0], 0);
}
END_TEST

START_TEST(random_trials)
{
  rng g = {test_seed("test_share")};
  int t;
  for (t = 0; t < 3000; t++) {
    trial r;
    int p;
    memset(&r, 0, sizeof r);
    r.parts = 1 + rng_int(&g, 4);
    r.panels = rng_int(&g, 12);
    r.seed = rng_next(&g);
    for (p = 0; p < r.parts; p++)
      r.leave_at[p] = rng_int(&g, 3) ? r.panels : rng_int(&g, r.panels + 1);
    run_trial(&r);
    if (r.bad) ck_abort_msg("trial %d (%d parts, %d panels): %s", t, r.parts, r.panels, r.why);
  }
}
END_TEST

int main(void)
{
  TCase *tc = tcase_create("share");
  tcase_set_timeout(tc, 30); /* a deadlock fails here (a pass takes about a second) */
  tcase_add_test(tc, every_part_finishes);
  tcase_add_test(tc, a_part_that_leaves_first_sends_nothing);
  tcase_add_test(tc, random_trials);
  return check_run("share", tc);
}
