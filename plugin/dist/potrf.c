/*
 * potrf.c - PxPOTRF with each rank's local matrix resident in a store
 * (local.h) from the call's start to its end: right-looking, one block
 * column of the grid's block-cyclic layout a step, ScaLAPACK's algorithm
 * with the trailing update on the store.
 *
 * Lower (A = L L^T), block size nb, K blocks; step k:
 *   1. the rank owning A_kk factors it (the store's POTRF) and broadcasts
 *      INFO to all: a minor that is not positive definite ends every rank;
 *   2. it broadcasts L_kk down its process column, whose ranks solve their
 *      rows of the panel below, L_ik = A_ik L_kk^-T;
 *   3. each of those ranks broadcasts its part of the panel to all, so every
 *      rank holds the panel's rows for its local rows and its local
 *      columns (ScaLAPACK sends the second set along the transpose; to all
 *      is one message more a step for grids up to a few ranks a side, and
 *      the same bytes a rank receives);
 *   4. each rank updates its blocks A_ij, i >= j > k: a GEMM per local
 *      block column below the diagonal block, SYRK on the diagonal block,
 *      so nothing above the diagonal is written.
 * Upper (A = U^T U) is the lower case of A^T: the local array seen
 * transposed, the grid's rows and columns swapped (the broadcasts'
 * scopes and roots too).  Only the diagonal block and the panel cross the
 * host each step; the local matrix stays in the store.
 *
 * The decision is collective: every rank must run this or every rank the
 * next ScaLAPACK, or the messages would not pair.  So each rank opens its
 * store (the local array copied in) and the grid votes; at the end it
 * votes again, and a rank's failure on the way (a kernel, a copy) sends
 * every rank back to the next ScaLAPACK with its array as it was.  A
 * matrix that is not positive definite does too: the next ScaLAPACK
 * writes the reference's partial factor and the same INFO.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/errors.h"
#include "dist/blacs.h"
#include "dist/layout.h"
#include "dist/local_cpu.h"
#include "dist/potrf.h"
#ifdef DLGEMM_HAVE_CUDA
#include "dist/local_cuda.h"
#endif

/* The call in the lower-triangle view: the grid as the view sees it. */
typedef struct plan {
  const dlg_blacs *b;
  dlg_grid real;   /* the BLACS grid */
  int upper;       /* the view is the transpose */
  int p, q, r, c;  /* the view's grid: p x q, this rank at (r, c) */
  int64_t n, nb, mloc, nloc;
  dlg_dtype dtype;
  size_t es;
} plan;

/* Local index of the first element of blocks after block k held by proc. */
static int64_t after(int64_t k, int proc, int procs, int64_t nb, int64_t local)
{
  const int64_t held = k >= proc ? (k - proc) / procs + 1 : 0, i = held * nb;
  return i < local ? i : local;
}

/* A broadcast in the view's terms: scope "All", "Row" or "Column" of the
 * view, root (vr, vc) of the view's grid. */
static void bcast(const plan *pl, const char *scope, void *a, int64_t rows, int64_t cols,
                  int64_t ld, int vr, int vc)
{
  const char *real = !pl->upper || scope[0] == 'A' ? scope : scope[0] == 'R' ? "Column" : "Row";
  dlg_blacs_bcast(pl->b, &pl->real, real, pl->dtype, (int)rows, (int)cols, a, (int)ld,
                  pl->upper ? vc : vr, pl->upper ? vr : vc);
}

/* Host matrices keep the local array's orientation, so that no copy
 * between the store and the host transposes: in the upper case (the view
 * is the transpose of the array) a rows x cols block is stored as its
 * cols x rows transpose.  The view of such a block at p, leading
 * dimension ld, and the column-major matrix it is stored as: */
static dlg_lmat oriented(const plan *pl, uintptr_t p, int64_t rows, int64_t cols, int64_t ld)
{
  const dlg_lmat v = {p, rows, cols, pl->upper ? ld : 1, pl->upper ? 1 : ld};
  return v;
}

/* Rows between two host matrices of kb columns, oriented (leading
 * dimensions dld, sld): row i of src to row map(i) of dst (scatter), or
 * row map(i) of src to row i of dst (gather), i < count, in runs of
 * consecutive rows (a block's rows stay together). */
typedef int64_t (*row_map)(const plan *pl, int64_t i, const void *ctx);
static void copy_rows(const plan *pl, char *dst, int64_t dld, const char *src, int64_t sld,
                      int64_t count, int64_t kb, row_map map, const void *ctx, int gather)
{
  const size_t es = pl->es;
  int64_t i = 0, run, j;
  while (i < count) {
    const int64_t m = map(pl, i, ctx), d = gather ? i : m, r = gather ? m : i;
    for (run = 1; i + run < count && map(pl, i + run, ctx) == m + run; run++) {
    }
    if (pl->upper && dld == kb && sld == kb) { /* rows are whole columns: one run, one copy */
      memcpy(dst + (size_t)(d * kb) * es, src + (size_t)(r * kb) * es, (size_t)(run * kb) * es);
    } else if (pl->upper) { /* rows are columns of the stored matrices */
      for (j = 0; j < run; j++)
        memcpy(dst + (size_t)((d + j) * dld) * es, src + (size_t)((r + j) * sld) * es,
               (size_t)kb * es);
    } else {
      for (j = 0; j < kb; j++)
        memcpy(dst + (size_t)(d + j * dld) * es, src + (size_t)(r + j * sld) * es,
               (size_t)run * es);
    }
    i += run;
  }
}

/* Row maps: a process row's local rows from `from` to the panel's rows
 * (global, less the first after the diagonal block), and the panel's rows
 * for this rank's rows or columns. */
typedef struct map_ctx {
  int64_t from, first;
  int proc, procs;
} map_ctx;

static int64_t to_panel(const plan *pl, int64_t i, const void *ctx)
{
  const map_ctx *m = ctx;
  return dlg_global_of(m->from + i, m->proc, m->procs, pl->nb) - m->first;
}

/* Host buffers of a step, sized once. */
typedef struct buffers {
  char *diag;  /* nb x nb */
  char *piece; /* a rank's panel rows, as many as process row 0 holds at most, x nb */
  char *panel; /* the panel by global row, n x nb */
  char *rows;  /* its rows for this rank's rows and columns, mloc x nb and nloc x nb */
  char *cols;
} buffers;

/* The factorization; INFO, or -1 where the store failed on this rank (it
 * still took part in every message, so the others are not left waiting). */
static int factor(dlg_local *l, const plan *pl, dlg_lmat a, uintptr_t scratch, buffers *h)
{
  const int64_t n = pl->n, nb = pl->nb, K = (n + nb - 1) / nb, es = (int64_t)pl->es;
  const int64_t maxm = dlg_numroc(n, nb, 0, pl->p); /* process row 0 holds the most rows */
  const int t = pl->upper;
  /* scratch: the diagonal block (nb x nb), the panel for the local rows
   * (mloc x nb) and for the local columns (nloc x nb), oriented */
  const uintptr_t wrows = scratch + (uintptr_t)(nb * nb * es),
                  wcols = wrows + (uintptr_t)(pl->mloc * nb * es);
  int64_t k;
  for (k = 0; k < K; k++) {
    const int64_t kb = n - k * nb < nb ? n - k * nb : nb, first = (k + 1) * nb, np = n - first;
    const int vr = (int)(k % pl->p), vc = (int)(k % pl->q);
    const int64_t r1 = after(k, pl->r, pl->p, nb, pl->mloc), mrest = pl->mloc - r1;
    const int64_t c1 = after(k, pl->c, pl->q, nb, pl->nloc), nrest = pl->nloc - c1;
    const int64_t kcol = k / pl->q * nb; /* the panel's local column on process column vc */
    /* host and store matrices of this step, oriented (their leading dimensions) */
    const int64_t piece_ld = t ? kb : maxm, panel_ld = t ? kb : np;
    const int64_t rows_ld = t ? kb : mrest, cols_ld = t ? kb : nrest;
    int info = 0, pr;
    int64_t j;
    dlg_lmat diag = oriented(pl, scratch, kb, kb, nb);

    /* 1. the diagonal block */
    if (pl->r == vr && pl->c == vc) {
      diag = dlg_lmat_sub(a, k / pl->p * nb, kcol, kb, kb, pl->es);
      info = l->ops->potrf_lower(l, diag);
      if (l->status) info = 0;
    }
    dlg_blacs_bcast_int(pl->b, &pl->real, "All", &info, t ? vc : vr, t ? vr : vc);
    if (info) return (int)(k * nb) + info;
    if (k == K - 1) break;

    /* 2. the panel's rows on the ranks of process column vc */
    if (pl->c == vc) {
      if (pl->r == vr) l->ops->to_host(l, dlg_lmat_stored(diag), h->diag, nb);
      bcast(pl, "Column", h->diag, kb, kb, nb, vr, vc);
      if (pl->r != vr) {
        diag = oriented(pl, scratch, kb, kb, nb);
        l->ops->from_host(l, h->diag, nb, dlg_lmat_stored(diag));
      }
      if (mrest > 0)
        l->ops->trsm_right_lower_t(l, diag, dlg_lmat_sub(a, r1, kcol, mrest, kb, pl->es));
    }

    /* 3. every rank gets the panel: each process row's part from its rank
     * in column vc, into the panel's global rows */
    for (pr = 0; pr < pl->p; pr++) {
      const int64_t held = dlg_numroc(n, nb, pr, pl->p), from = after(k, pr, pl->p, nb, held);
      const int64_t count = held - from;
      const map_ctx m = {from, first, pr, pl->p};
      if (count <= 0) continue;
      if (pl->r == pr && pl->c == vc)
        l->ops->to_host(l, dlg_lmat_stored(dlg_lmat_sub(a, from, kcol, count, kb, pl->es)),
                        h->piece, piece_ld);
      bcast(pl, "All", h->piece, t ? kb : count, t ? count : kb, piece_ld, pr, vc);
      copy_rows(pl, h->panel, panel_ld, h->piece, piece_ld, count, kb, to_panel, &m, 0);
    }

    /* 4. the trailing update of this rank's blocks on and below the diagonal */
    if (mrest <= 0 || nrest <= 0) continue;
    {
      /* the panel's rows of this rank's rows and of its columns, in its order */
      const map_ctx mr = {r1, first, pl->r, pl->p}, mc = {c1, first, pl->c, pl->q};
      const dlg_lmat wl = oriented(pl, wrows, mrest, kb, rows_ld),
                     wc = oriented(pl, wcols, nrest, kb, cols_ld);
      copy_rows(pl, h->rows, rows_ld, h->panel, panel_ld, mrest, kb, to_panel, &mr, 1);
      copy_rows(pl, h->cols, cols_ld, h->panel, panel_ld, nrest, kb, to_panel, &mc, 1);
      l->ops->from_host(l, h->rows, rows_ld, dlg_lmat_stored(wl));
      l->ops->from_host(l, h->cols, cols_ld, dlg_lmat_stored(wc));
      for (j = c1; j < pl->nloc; j += nb) {
        const int64_t blk = dlg_global_of(j, pl->c, pl->q, nb) / nb,
                      w = pl->nloc - j < nb ? pl->nloc - j : nb;
        const int64_t below = after(blk, pl->r, pl->p, nb, pl->mloc);
        const dlg_lmat cj = dlg_lmat_sub(wc, j - c1, 0, w, kb, pl->es);
        if (blk % pl->p == pl->r) { /* the diagonal block, its lower triangle */
          const int64_t d = blk / pl->p * nb;
          l->ops->syrk_lower(l, -1.0, dlg_lmat_sub(wl, d - r1, 0, w, kb, pl->es), 1.0,
                             dlg_lmat_sub(a, d, j, w, w, pl->es));
        }
        if (pl->mloc > below)
          l->ops->gemm_nt(l, -1.0, dlg_lmat_sub(wl, below - r1, 0, pl->mloc - below, kb, pl->es),
                          cj, 1.0, dlg_lmat_sub(a, below, j, pl->mloc - below, w, pl->es));
      }
    }
  }
  return l->status ? -1 : 0;
}

int dlg_dist_potrf_resident(const dlg_blacs *b, const dlg_grid *real, const dlg_dist_call *c,
                            int usable, int host, int *info, char *store, size_t store_len,
                            char *why, size_t why_len)
{
  plan pl;
  dlg_local l = {0};
  dlg_lmat a;
  uintptr_t scratch = 0;
  buffers h = {0};
  char *buffer = NULL;
  int64_t real_m, real_n, maxm;
  int ok, result = 0, votes;

  memset(&pl, 0, sizeof pl);
  pl.b = b, pl.real = *real;
  pl.upper = c->uplo == 'U' || c->uplo == 'u';
  pl.p = pl.upper ? pl.real.q : pl.real.p, pl.q = pl.upper ? pl.real.p : pl.real.q;
  pl.r = pl.upper ? pl.real.col : pl.real.row, pl.c = pl.upper ? pl.real.row : pl.real.col;
  pl.n = c->n, pl.nb = c->desc[NB_], pl.dtype = c->dtype, pl.es = dlg_elem_size(c->dtype);
  pl.mloc = dlg_numroc(pl.n, pl.nb, pl.r, pl.p), pl.nloc = dlg_numroc(pl.n, pl.nb, pl.c, pl.q);
  real_m = pl.upper ? pl.nloc : pl.mloc, real_n = pl.upper ? pl.mloc : pl.nloc;
  maxm = dlg_numroc(pl.n, pl.nb, 0, pl.p);

  /* every rank opens its store, then the grid decides together */
  l.dtype = c->dtype;
  ok = usable;
#ifdef DLGEMM_HAVE_CUDA
  l.ops = host ? &dlg_local_cpu : &dlg_local_cuda;
#else
  l.ops = &dlg_local_cpu;
  if (!host) ok = 0, snprintf(why, why_len, "built without CUDA");
#endif
  ok = ok && l.ops->open(&l, c->a, real_m, real_n, c->desc[LLD_],
                         pl.nb * pl.nb + (pl.mloc + pl.nloc) * pl.nb, &a, &scratch) == DLGEMM_OK;
  if (ok) { /* the messages' host buffers, in one piece */
    const int64_t elems[5] = {pl.nb * pl.nb, maxm * pl.nb, pl.n * pl.nb, pl.mloc * pl.nb + 1,
                              pl.nloc * pl.nb + 1};
    char **into[5] = {&h.diag, &h.piece, &h.panel, &h.rows, &h.cols};
    size_t total = 0;
    char *p;
    int i;
    for (i = 0; i < 5; i++) total += (size_t)elems[i] * pl.es;
    if (!(p = buffer = malloc(total)))
      ok = 0, snprintf(why, why_len, "no host memory for the messages (%zu bytes)", total);
    for (i = 0; p && i < 5; p += (size_t)elems[i] * pl.es, i++) *into[i] = p;
  }
  if (!ok && !why[0]) snprintf(why, why_len, "%s", usable ? dlgemm_last_error() : "its LLD");
  if (ok) snprintf(store, store_len, "%s", l.ops->name(&l));
  votes = dlg_blacs_sum_all(pl.b, &pl.real, ok);
  if (votes == pl.real.p * pl.real.q) {
    if (pl.upper) a = dlg_lmat_t(a);
    result = factor(&l, &pl, a, scratch, &h);
    /* the second vote: a rank that failed sends every rank to the next ScaLAPACK */
    ok = result >= 0 && !l.status;
    votes = dlg_blacs_sum_all(pl.b, &pl.real, ok);
    if (!ok)
      snprintf(why, why_len, "this rank's store failed: %s", dlgemm_last_error());
    else if (votes != pl.real.p * pl.real.q)
      snprintf(why, why_len, "another rank's store failed");
    else if (result > 0)
      snprintf(why, why_len, "INFO=%d, not positive definite: the next ScaLAPACK writes "
               "the reference's partial factor", result);
  } else if (ok) {
    snprintf(why, why_len, "another rank could not take it");
  }
  ok = votes == pl.real.p * pl.real.q && result == 0;
  /* the factor back into the caller's array (a failed copy leaves it
   * half written: no fallback can undo that, so INFO says it) */
  if (l.state && l.ops->close(&l, ok) && ok) {
    fprintf(stderr, "dlgemm: %s: copying the factor back failed (%s); it is incomplete\n",
            c->origin, dlgemm_last_error());
    result = -1;
  }
  free(buffer);
  if (!ok) return 0;
  *info = result;
  return 1;
}
