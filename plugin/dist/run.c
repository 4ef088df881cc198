/*
 * run.c - where a ScaLAPACK call goes (DLGEMM_SCALAPACK; its sizes at least
 * DLGEMM_SCALAPACK_MIN): to cuSOLVERMp or cuBLASMp (mp_factor.h,
 * mp_gemm.h) under `gpu`, where they load and take the call; PxPOTRF also
 * to dlgemm's own resident algorithm (potrf.c: `resident`, `host`, and what
 * cuSOLVERMp leaves under `gpu`); else back to the next ScaLAPACK.  Each
 * engine decides with the whole grid (its votes are BLACS collectives), so
 * every rank of the grid takes the same way, and every rank must get here
 * with the same DLGEMM_SCALAPACK.
 */
#include <stdio.h>
#include <string.h>
#include "core/calllog.h"
#include "core/config.h"
#include "core/errors.h"
#include "dist/blacs.h"
#include "dist/layout.h"
#include "dist/potrf.h"
#include "dist/run.h"
#ifdef DLGEMM_HAVE_CUDA
#include "dist/mp_factor.h"
#include "dist/mp_gemm.h"
#endif

/* The descriptors and arguments dlgemm takes; the rest, argument errors
 * included, are the next ScaLAPACK's, which reports them as it does (a
 * workspace query too). */
static int square_blocks(const int *d, int nb, int64_t rows, int64_t cols)
{
  return d[DTYPE_] == 1 && d[MB_] == nb && d[NB_] == nb && d[RSRC_] == 0 && d[CSRC_] == 0 &&
         rows <= d[M_] && cols <= d[N_];
}

static int is_op(char t) { return t && strchr("NnTtCc", t); }

#define DESC_DECLINED "a descriptor other than square blocks from process (0, 0), one block size"

/* NULL where dlgemm takes the call; else why not, in a few words. */
static const char *declined(const dlg_dist_call *c, double least)
{
  const int *d = c->desc, nb = d[NB_];
  const int ta = c->transa == 'N' || c->transa == 'n', tb = c->transb == 'N' || c->transb == 'n';
  if (c->m <= 0 || c->n <= 0 || (c->kind == DLG_DIST_GEMM && c->k <= 0))
    return "an empty or illegal size";
  if (c->m < least || c->n < least || (c->kind == DLG_DIST_GEMM && c->k < least))
    return "below DLGEMM_SCALAPACK_MIN";
  /* PxGEMM's operands may be sub-matrices anywhere (mp_gemm.c: cuBLASMp
   * takes their offsets); the factorizations' start at (1, 1) */
  if (c->kind == DLG_DIST_GEMM
          ? c->ia < 1 || c->ja < 1 || c->ib < 1 || c->jb < 1 || c->ic < 1 || c->jc < 1
          : c->ia != 1 || c->ja != 1)
    return c->kind == DLG_DIST_GEMM ? "an illegal sub-matrix" : "a sub-matrix not at (1, 1)";
  switch (c->kind) {
  case DLG_DIST_POTRF:
    if (!c->uplo || !strchr("LlUu", c->uplo) || c->m != c->n) return "an illegal UPLO";
    return square_blocks(d, nb, c->m, c->n) ? NULL : DESC_DECLINED;
  case DLG_DIST_GETRF: return square_blocks(d, nb, c->m, c->n) ? NULL : DESC_DECLINED;
  case DLG_DIST_GEQRF: return square_blocks(d, nb, c->m, c->n) ? NULL : DESC_DECLINED;
  case DLG_DIST_GEMM: /* one grid, one block size; alpha 0 is PBLAS's quick scaling */
    if (!is_op(c->transa) || !is_op(c->transb)) return "an illegal TRANSA or TRANSB";
    if (c->dtype == DLG_F64 ? *(const double *)c->alpha == 0 : *(const float *)c->alpha == 0)
      return "alpha = 0";
    if (c->desc_b[CTXT_] != d[CTXT_] || c->desc_c[CTXT_] != d[CTXT_])
      return "operands on different grids";
    return square_blocks(d, nb, c->ia - 1LL + (ta ? c->k : c->m),
                         c->ja - 1LL + (ta ? c->m : c->k)) &&
                   square_blocks(c->desc_b, nb, c->ib - 1LL + (tb ? c->n : c->k),
                                 c->jb - 1LL + (tb ? c->k : c->n)) &&
                   square_blocks(c->desc_c, nb, c->ic - 1LL + c->m, c->jc - 1LL + c->n)
               ? NULL
               : DESC_DECLINED;
  }
  return "not a routine dlgemm takes";
}

/* This rank's part of the checks ScaLAPACK makes itself: LLD, and PxGEQRF's
 * LWORK >= NB (Mp0 + Nq0 + NB), which it also returns in WORK(1). */
static int64_t geqrf_lwork(const dlg_dist_call *c, int64_t rows, int64_t cols)
{
  const int64_t nb = c->desc[NB_];
  return nb * (rows + cols + nb);
}

/* LLD (dlg_lld_ok) and PxGEQRF's LWORK. */
static int usable(const dlg_dist_call *c, const dlg_grid *g, int64_t rows, int64_t cols)
{
  return dlg_lld_ok(c->desc, g->row, g->p) &&
         (c->kind != DLG_DIST_GEQRF || c->lwork >= geqrf_lwork(c, rows, cols));
}

int dlg_dist_run(const dlg_dist_call *c, int *info)
{
  const dlg_config *cfg = dlg_config_get();
  const int potrf = c->kind == DLG_DIST_POTRF, upper = potrf && (c->uplo == 'U' || c->uplo == 'u');
  char why[256] = "", mp_why[256] = "", store[96] = "", what[48];
  const char *engine = NULL;
  const dlg_blacs *b;
  dlg_grid g;
  int64_t rows, cols;
  int ok, da[DLEN_], db[DLEN_], dc[DLEN_];
  double t0 = dlg_now();
  const char *no;
  dlg_dist_call n = *c; /* its descriptors as ScaLAPACK's 9 entries */

  /* a workspace query is answered by the next ScaLAPACK, as a call of no size */
  if (cfg->dist == DLG_DIST_OFF || (c->kind == DLG_DIST_GEQRF && c->lwork == -1)) return 0;
  n.desc = dlg_desc_type1(c->desc, da);
  n.desc_b = dlg_desc_type1(c->desc_b, db), n.desc_c = dlg_desc_type1(c->desc_c, dc);
  c = &n;
  if ((no = declined(c, cfg->dist_min))) {
    if (cfg->verbose) fprintf(stderr, "dlgemm: %s -> next ScaLAPACK (%s)\n", c->origin, no);
    return 0;
  }
  if (potrf) snprintf(what, sizeof what, "%c n=%d", c->uplo, c->n);
  else if (c->kind == DLG_DIST_GEMM)
    snprintf(what, sizeof what, "%c%c m=%d n=%d k=%d", c->transa, c->transb, c->m, c->n, c->k);
  else snprintf(what, sizeof what, "m=%d n=%d", c->m, c->n);
  if (!(b = dlg_blacs_get(why, sizeof why))) {
    if (cfg->verbose) fprintf(stderr, "dlgemm: %s -> next ScaLAPACK (%s)\n", c->origin, why);
    return 0;
  }
  g.ctxt = c->desc[CTXT_];
  b->gridinfo(g.ctxt, &g.p, &g.q, &g.row, &g.col);
  if (g.row < 0 || g.col < 0) return 0; /* not in the grid: nothing to do here */
  rows = dlg_numroc(c->m, c->desc[NB_], g.row, g.p);
  cols = dlg_numroc(c->n, c->desc[NB_], g.col, g.q);
  ok = c->kind == DLG_DIST_GEMM || usable(c, &g, rows, cols); /* GEMM: its engine checks its three */

#ifdef DLGEMM_HAVE_CUDA
  /* cuSOLVERMp first (its PxPOTRF is the lower case's) */
  if (cfg->dist == DLG_DIST_GPU && c->kind == DLG_DIST_GEMM) {
    if (dlg_dist_mp_gemm(b, &g, c, 1, store, sizeof store, mp_why, sizeof mp_why))
      engine = "cublasmp";
  } else if (cfg->dist == DLG_DIST_GPU && !upper &&
             dlg_dist_mp_run(b, &g, c, ok, rows, cols, info, store, sizeof store, mp_why,
                             sizeof mp_why)) {
    engine = "cusolvermp";
  }
#endif
  if (!engine && potrf &&
      dlg_dist_potrf_resident(b, &g, c, ok, cfg->dist == DLG_DIST_HOST, info, store,
                              sizeof store, why, sizeof why))
    engine = "resident";
  if (engine && c->kind == DLG_DIST_GEQRF) { /* WORK(1): the least LWORK, as ScaLAPACK's */
    if (c->dtype == DLG_F64) *(double *)c->work = (double)geqrf_lwork(c, rows, cols);
    else *(float *)c->work = (float)geqrf_lwork(c, rows, cols);
  }
  if (!engine && !potrf && !why[0]) { /* cuSOLVERMp's reason is the only one */
    snprintf(why, sizeof why, "%s", mp_why[0] ? mp_why : "no resident algorithm for it");
    mp_why[0] = 0;
  }
  if (cfg->verbose && engine && engine[0] == 'r')
    fprintf(stderr, "dlgemm: %s %s nb=%d grid %dx%d (%d,%d) -> %s, resident (%.1f ms)%s%s%s\n",
            c->origin, what, c->desc[NB_], g.p, g.q, g.row, g.col, store,
            (dlg_now() - t0) * 1e3, mp_why[0] ? " [" : "", mp_why, mp_why[0] ? "]" : "");
  else if (cfg->verbose && engine)
    fprintf(stderr, "dlgemm: %s %s nb=%d grid %dx%d (%d,%d) -> %s on %s (%.1f ms)\n", c->origin,
            what, c->desc[NB_], g.p, g.q, g.row, g.col, engine, store, (dlg_now() - t0) * 1e3);
  else if (cfg->verbose)
    fprintf(stderr, "dlgemm: %s -> next ScaLAPACK (%s nb=%d: %s)%s%s%s\n", c->origin, what,
            c->desc[NB_], why, mp_why[0] ? " [" : "", mp_why, mp_why[0] ? "]" : "");
  return engine != NULL;
}
