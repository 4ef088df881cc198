/*
 * spread.c - one host-array GEMM over several devices (spread.h).
 *
 * gpu/split.c cuts C's longer side into a block per slot, in proportion to
 * each slot's speed on this call by its model (model.c; slots on one device
 * share its speed, and slots all on one device are equal without asking).
 * Each block is a product of its own - the same A and B panels, the same
 * alpha and beta on its own part of C - run by its slot's engine: the
 * caller's thread takes the first, one thread each the others.
 *
 * Failure, for the call as for one engine.  A block whose engine fails
 * before writing leaves its part of C untouched; when every block failed
 * so, the call returns the status and the caller falls back with C as it
 * was.  Otherwise the blocks that failed are computed on the next BLAS, the
 * answer that BLAS gives for them, and the fallback is noted.  A block
 * whose engine fails after writing is finished on the next BLAS by the
 * engine itself.
 *
 * Peer copies (DLGEMM_PEER=on).  Every part reads the operand whose side
 * was not cut whole: from the host, that is one more host copy of it per
 * device, through the copy threads all parts share.  Where every pair of
 * the call's devices can reach each other's memory (NVLink, or PCIe peer
 * to peer; or one device, listed twice), each panel of it crosses from the
 * host once, to the device of part i mod P, and the others copy it from
 * there (gpu/share.h; the engine's copies).  One call shares at a time:
 * two would each hold engines the other's parts wait for.
 */
#include <pthread.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "core/threads.h"
#include "cpu/backend.h"
#include "cuda/device/driver.h"
#include "cuda/hostarray/engine.h"
#include "cuda/hostarray/slots.h"
#include "cuda/spread.h"
#include "cuda/model.h"
#include "gpu/share.h"
#include "gpu/split.h"

typedef struct part {
  int slot;
  dlg_gemm g;
  const dlg_offload_share *share; /* NULL: every panel from the host */
  dlgemm_status st;
  char error[200], note[256]; /* the engine's, which are its thread's */
} part;

static void *run_part(void *arg)
{
  part *p = arg;
  p->st = dlg_cuda_offload_one(p->slot, &p->g, p->share);
  if (p->st) dlg_copy_text(p->error, sizeof p->error, dlgemm_last_error());
  dlg_copy_text(p->note, sizeof p->note, dlg_take_note());
  return NULL;
}

/* elems elements of es bytes past p; an empty operand's NULL stays NULL. */
static void *past(void *p, int64_t elems, size_t es)
{
  return p ? (char *)p + (size_t)elems * es : NULL;
}

/* Columns (cols) or rows [lo, hi) of g's C, as a product of their own. */
static dlg_gemm block(const dlg_gemm *g, int cols, int64_t lo, int64_t hi)
{
  const size_t es = dlg_elem_size(g->dtype);
  dlg_gemm b = *g;
  if (cols) {
    b.n = b.b.cols = b.c.cols = hi - lo;
    b.b.data = past(g->b.data, lo * g->b.cs, es), b.c.data = past(g->c.data, lo * g->c.cs, es);
  } else {
    b.m = b.a.rows = b.c.rows = hi - lo;
    b.a.data = past(g->a.data, lo * g->a.rs, es), b.c.data = past(g->c.data, lo * g->c.rs, es);
  }
  return b;
}

/* Each slot's speed on g, in calls per second. */
static void speeds(const dlg_gemm *g, const dlg_device_choice *c, double *speed)
{
  const int one_device = dlg_cuda_slot_sharers(0) == c->n;
  int s;
  for (s = 0; s < c->n; s++) {
    const double t = one_device ? 1.0 : dlg_cuda_offload_seconds(s, g);
    speed[s] = t > 0 ? 1.0 / (t * dlg_cuda_slot_sharers(s)) : 0.0;
  }
}

/* The parts that failed (their C untouched) on the next BLAS; their
 * reasons and the engines' notes noted, the fallbacks first (the engine's
 * own start with "fallback"): the DLGEMM_VERBOSE line is cut at its
 * length, and tests look for the word. */
static dlgemm_status finish(part *parts, int n, int copies)
{
  dlgemm_status st = DLGEMM_OK;
  int i, pass;
  (void)dlg_take_note(); /* the call's note starts here; the parts' own are in parts[] */
  for (i = 0; i < n; i++)
    if (parts[i].st) {
      if (!st) st = dlg_backend_cpu.run(&parts[i].g);
      dlg_note_more("fallback: cuda:%d (slot %d) failed: %s; its block finished on the next BLAS",
                    dlg_cuda_slots()->ordinal[parts[i].slot], parts[i].slot, parts[i].error);
    }
  if (copies) dlg_note_more("%d panel(s) copied between devices", copies);
  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < n; i++)
      if (parts[i].note[0] && !strncmp(parts[i].note, "fallback", 8) == !pass)
        dlg_note_more("cuda:%d (slot %d): %s", dlg_cuda_slots()->ordinal[parts[i].slot],
                      parts[i].slot, parts[i].note);
  return st;
}

/* The parts at once: the caller's thread takes the first, a thread each
 * the others (or the caller too, after the first, where one cannot be
 * started: such a part shares nothing, or the first would wait for it). */
static void run_parts(part *parts, int n)
{
  pthread_t thread[DLG_MAX_DEVICES];
  int started[DLG_MAX_DEVICES] = {0}, i;
  for (i = 1; i < n; i++) started[i] = !dlg_thread_start(&thread[i], NULL, run_part, &parts[i]);
  for (i = 1; i < n; i++)
    if (!started[i] && parts[i].share) {
      dlg_share_leave(parts[i].share->board, parts[i].share->part);
      parts[i].share = NULL;
    }
  for (i = 0; i < n; i++)
    if (!started[i]) run_part(&parts[i]);
  for (i = 1; i < n; i++)
    if (started[i]) pthread_join(thread[i], NULL);
}

/* Whether part a's device can copy from part b's: one device, or peer
 * access, asked of the driver once per pair, with the memory pool b's
 * panels come from opened to a. */
static int reaches(int a, int b)
{
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  static signed char known[DLG_MAX_DEVICES][DLG_MAX_DEVICES]; /* 1 yes, -1 no, 0 not asked */
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  dlg_cuda_device *da = cu ? dlg_cuda_slot_device(a) : NULL, *db = cu ? dlg_cuda_slot_device(b) : NULL;
  int ok;
  if (!da || !db) return 0;
  if (da == db) return 1;
  pthread_mutex_lock(&lock);
  if (!known[da->ordinal][db->ordinal]) {
    CUdevice x, y;
    CUmemAccessDesc grant;
    int can = 0;
    memset(&grant, 0, sizeof grant);
    grant.location.type = CU_MEM_LOCATION_TYPE_DEVICE, grant.location.id = da->ordinal;
    grant.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    ok = !cu->DeviceGet(&x, da->ordinal) && !cu->DeviceGet(&y, db->ordinal) &&
         !cu->DeviceCanAccessPeer(&can, x, y) && can && !cu->CtxPushCurrent(db->ctx);
    if (ok) {
      ok = !cu->MemPoolSetAccess(db->pool, &grant, 1);
      cu->CtxPopCurrent(NULL);
    }
    known[da->ordinal][db->ordinal] = ok ? 1 : -1;
  }
  ok = known[da->ordinal][db->ordinal] > 0;
  pthread_mutex_unlock(&lock);
  return ok;
}

/* The board for parts[0..n) where they may share (then share_lock held),
 * else NULL. */
static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static dlg_share *share_board(const dlg_gemm *g, const dlg_split *plan, part *parts, int n,
                              dlg_share *board, dlg_offload_share *each)
{
  int a, b;
  /* (a part whose block cannot be shared - batches, alpha 0, pieces -
   * leaves the board at once: the engine decides that) */
  if (!dlg_config_get()->peer || n < 2) return NULL;
  for (a = 0; a < n; a++)
    for (b = 0; b < n; b++)
      if (a != b && !reaches(parts[a].slot, parts[b].slot)) return NULL;
  if (pthread_mutex_trylock(&share_lock)) return NULL;
  /* column blocks all read A whole (its row panels), row blocks B */
  if (dlg_share_init(board, n, dlg_cuda_offload_panels(plan->cols ? g->m : g->n))) {
    pthread_mutex_unlock(&share_lock);
    return NULL;
  }
  for (a = 0; a < n; a++) {
    each[a].board = board, each[a].part = a, each[a].operand = plan->cols ? 0 : 1;
    parts[a].share = &each[a];
  }
  return board;
}

dlgemm_status dlg_cuda_offload(const dlg_gemm *g)
{
  const dlg_device_choice *c = dlg_cuda_slots();
  double speed[DLG_MAX_DEVICES];
  part parts[DLG_MAX_DEVICES];
  dlg_offload_share each[DLG_MAX_DEVICES];
  dlg_share board, *shared;
  dlg_split plan;
  unsigned mask = 0;
  int s, n = 0, failed = 0, copies = 0;
  if (c->n <= 1) {
    dlg_cuda_say_slots(1);
    return dlg_cuda_offload_one(0, g, NULL);
  }
  speeds(g, c, speed);
  dlg_split_plan(g->m, g->n, speed, c->n, &plan);
  for (s = 0; s < c->n; s++)
    if (plan.start[s + 1] > plan.start[s]) {
      memset(&parts[n], 0, sizeof parts[n]);
      parts[n].slot = s;
      parts[n++].g = block(g, plan.cols, plan.start[s], plan.start[s + 1]);
      mask |= 1u << s;
    }
  if (!n) return DLGEMM_OK;
  shared = share_board(g, &plan, parts, n, &board, each);
  run_parts(parts, n);
  if (shared) {
    copies = dlg_share_copies(shared);
    dlg_share_destroy(shared);
    pthread_mutex_unlock(&share_lock);
  }
  for (s = 0; s < n; s++) failed += parts[s].st != DLGEMM_OK;
  if (failed == n) /* nothing written anywhere: the caller falls back */
    return dlg_fail(parts[0].st, "%s", parts[0].error);
  dlg_cuda_say_slots(mask);
  return finish(parts, n, copies);
}
