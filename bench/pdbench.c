/*
 * pdbench - an unmodified ScaLAPACK program: PDGEMM, PDGETRF, PDPOTRF,
 * PDGEQRF and the solvers over them, PDGESV and PDPOSV, on a P x Q process
 * grid, timed, each answer checked.  Linked with
 * ScaLAPACK (Open MPI build) only; its ranks' dgemm_ (and its PDPOTRF,
 * PDGETRF, PDGEQRF) are the next library's, or dlgemm's when
 * LD_PRELOAD'ed, so the same binary measures both (bench/scalapack_bench.sh
 * runs it over 2 ranks on OpenBLAS, on one GPU and on a GPU per rank).
 * ScaLAPACK's own testers fix their memory at build time (xdlu stops far
 * below n = 32768), hence this program.
 *
 *   usage: mpirun -np P*Q pdbench ROUTINES N [NB] [REPS] [P]
 *     ROUTINES  comma list of pdgemm pdgetrf pdpotrf pdgeqrf pdgesv pdposv
 *     N         order of the square matrices
 *     NB        block size of the block-cyclic layout (default 512)
 *     REPS      timed calls (default 3), after one untimed call at
 *               n = min(N, 2048): libraries load, pinned buffers and
 *               device pools are made (a warm-up at N would double an
 *               OpenBLAS run at n = 32768, some minutes)
 *     P         process rows (default the largest divisor of the rank count
 *               at most its square root: 1 x 2 for 2 ranks)
 *
 * Each line, from rank 0: routine n nb grid seconds (median) TFLOP/s, and a
 * scaled residual that must be below 16 (ScaLAPACK's testers' threshold),
 * x random, computed in 64-bit indexing by this program (residual()):
 *   pdgemm  C = A B:  |C x - A (B x)|_inf / (|A|_inf |B|_inf |x|_inf n eps)
 *   pdgetrf A = P L U: |A x - P L (U x)|_inf / (|A|_inf |x|_inf n eps)
 *   pdpotrf A = L L^T: |A x - L (L^T x)|_inf / (the same), A symmetric with
 *                     n added to its diagonal (positive definite)
 *   pdgeqrf A = Q R:  |A^T (A x) - R^T (R x)|_inf / (|A|_inf^2 |x|_inf n eps)
 *                     (R alone: ScaLAPACK's QR tester checks Q and TAU)
 *   pdgesv, pdposv  A x = b (one right-hand side; pdposv's A as pdpotrf's):
 *                     |A x - b|_inf / (|A|_inf |x|_inf n eps); ScaLAPACK
 *                     calls its own PDGETRF / PDPOTRF inside, through the
 *                     dynamic linker, so a preloaded one takes them too
 * Entries are a hash of their global position, the same whatever the grid.
 * Filling and checking run on PDBENCH_THREADS threads a rank (default: the
 * node's cores over its ranks, at most 32), outside the timed calls.
 * Exits 1 when a residual or an info fails.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* BLACS's C interface and ScaLAPACK's Fortran one (hidden CHARACTER
 * lengths last); PBLAS routines are C and take none. */
void Cblacs_pinfo(int *me, int *procs);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int rows, int cols);
void Cblacs_gridinfo(int ctxt, int *rows, int *cols, int *row, int *col);
void Cblacs_barrier(int ctxt, const char *scope);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int more);
void Cdgamx2d(int ctxt, const char *scope, const char *top, int m, int n, double *a, int lda,
              int *ra, int *ca, int ldia, int rdest, int cdest);
void Cdgsum2d(int ctxt, const char *scope, const char *top, int m, int n, double *a, int lda,
              int rdest, int cdest);
void Cigsum2d(int ctxt, const char *scope, const char *top, int m, int n, int *a, int lda,
              int rdest, int cdest);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ctxt, const int *lld, int *info);
void pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *ia, const int *ja,
             const int *desca, const double *b, const int *ib, const int *jb, const int *descb,
             const double *beta, double *c, const int *ic, const int *jc, const int *descc);
void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, int *ipiv, int *info);
void pdgeqrf_(const int *m, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, double *tau, double *work, const int *lwork, int *info);
void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, int *info, size_t);
void pdgesv_(const int *n, const int *nrhs, double *a, const int *ia, const int *ja,
             const int *desca, int *ipiv, double *b, const int *ib, const int *jb,
             const int *descb, int *info);
void pdposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *ia,
             const int *ja, const int *desca, double *b, const int *ib, const int *jb,
             const int *descb, int *info, size_t);
static const int ONE = 1, ZERO = 0;
static const double D1 = 1.0, D0 = 0.0;

/* This rank's part of an n x cols block-cyclic matrix. */
typedef struct dist {
  int desc[9], rows, cols; /* local extents; desc[8] is the leading dimension */
  double *v;
} dist;

typedef struct grid { int ctxt, p, q, row, col, n, nb; } grid;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --- the host's part: [0, n) split among threads ----------------------------
 * At n = 65536 one core took most of a benchmark step to fill a rank's 17
 * GB, copy it and form the residual's products (a 2-rank step did not finish
 * inside a 10-minute device call, session 30).  Each thread takes a range
 * of columns or of local rows, so no two write the same entry, and every
 * sum is added in the order one thread would: the results do not change. */
typedef struct span {
  void (*fn)(void *, int64_t, int64_t);
  void *ctx;
  int64_t lo, hi;
} span;

static void *span_run(void *p)
{
  span *s = p;
  s->fn(s->ctx, s->lo, s->hi);
  return NULL;
}

static int threads(void)
{
  const char *e = getenv("PDBENCH_THREADS"), *r = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const long cores = sysconf(_SC_NPROCESSORS_ONLN), ranks = r && atoi(r) > 0 ? atoi(r) : 1;
  long t = e && atoi(e) > 0 ? atol(e) : cores / ranks;
  return t < 1 ? 1 : t > 32 ? 32 : (int)t;
}

static void in_parallel(int64_t n, void (*fn)(void *, int64_t, int64_t), void *ctx)
{
  span s[32];
  pthread_t t[32];
  int k = threads(), i, made[32] = {0};
  if (k > n) k = n > 0 ? (int)n : 1;
  for (i = 0; i < k; i++) {
    s[i] = (span){fn, ctx, n * i / k, n * (i + 1) / k};
    made[i] = i > 0 && pthread_create(&t[i], NULL, span_run, &s[i]) == 0;
  }
  span_run(&s[0]);
  for (i = 1; i < k; i++) /* a thread not made: its range here */
    made[i] ? pthread_join(t[i], NULL) : (void)span_run(&s[i]);
}

static int make(const grid *g, int cols, dist *d)
{
  int info;
  d->rows = numroc_(&g->n, &g->nb, &g->row, &ZERO, &g->p);
  d->cols = numroc_(&cols, &g->nb, &g->col, &ZERO, &g->q);
  const int lld = d->rows > 1 ? d->rows : 1;
  descinit_(d->desc, &g->n, &cols, &g->nb, &g->nb, &ZERO, &ZERO, &g->ctxt, &lld, &info);
  d->v = malloc(((size_t)lld * (size_t)(d->cols > 1 ? d->cols : 1)) * sizeof *d->v);
  return info == 0 && d->v != NULL;
}

/* Entry (i, j) of matrix `which`: in [-0.5, 0.5), a hash of its position. */
static double entry(uint64_t which, int64_t i, int64_t j)
{
  uint64_t z = which * 0x9e3779b97f4a7c15ull + (uint64_t)i * 0xbf58476d1ce4e5b9ull + (uint64_t)j;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (double)((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

typedef struct fill_job {
  const grid *g;
  dist *d;
  uint64_t which;
  int spd;
} fill_job;

static void fill_cols(void *p, int64_t lo, int64_t hi)
{
  const fill_job *f = p;
  const grid *g = f->g;
  dist *d = f->d;
  const uint64_t which = f->which;
  const int spd = f->spd;
  const size_t ld = (size_t)d->desc[8];
  int64_t li, lj;
  for (lj = lo; lj < hi; lj++) {
    const int64_t j = ((int64_t)(lj / g->nb) * g->q + g->col) * g->nb + lj % g->nb;
    for (li = 0; li < d->rows; li++) {
      const int64_t i = ((int64_t)(li / g->nb) * g->p + g->row) * g->nb + li % g->nb;
      d->v[li + lj * (int64_t)ld] =
          !spd ? entry(which, i, j)
               : entry(which, i < j ? i : j, i < j ? j : i) + (i == j ? g->n : 0);
    }
  }
}

/* spd: entry (i, j) is entry (min, max), n added on the diagonal */
static void fill(const grid *g, dist *d, uint64_t which, int spd)
{
  fill_job f = {g, d, which, spd};
  in_parallel(d->cols, fill_cols, &f);
}

typedef struct copy_job { const dist *from; dist *to; } copy_job;

static void copy_cols(void *p, int64_t lo, int64_t hi)
{
  const copy_job *c = p;
  const size_t ld = (size_t)c->from->desc[8];
  memcpy(c->to->v + (size_t)lo * ld, c->from->v + (size_t)lo * ld,
         (size_t)(hi - lo) * ld * sizeof *c->to->v);
}

static void copy(const dist *from, dist *to)
{
  copy_job c = {from, to};
  in_parallel(from->cols, copy_cols, &c);
}

/* The residuals are computed here, not by PBLAS: its C indexing is int, and
 * at n = 65536 on two ranks (a local array of 2^31 elements) PDGEMV and
 * PDPOTRS gave an infinite residual after every engine, OpenBLAS's own
 * factor included.  Vectors are global and on every rank (n doubles); a
 * product is each rank's local part, summed over the grid. */

/* The global index of local index l of proc. */
static int64_t global_of(int64_t l, int proc, int procs, int nb)
{
  return (l / nb * procs + proc) * nb + l % nb;
}

/* How many of proc's local indices (of `local`) have global index < at. */
static int64_t before(int64_t at, int proc, int procs, int nb, int64_t local)
{
  const int64_t blk = at / nb, mine = blk > proc ? (blk - proc + procs - 1) / procs : 0;
  int64_t l = mine * nb + (blk % procs == proc ? at % nb : 0);
  return l < local ? l : local;
}

enum part { ALL, LOWER, STRICT_LOWER, UPPER };

typedef struct matvec_job {
  const grid *g;
  const dist *d;
  enum part part;
  int trans;
  const double *x;
  double *y;
} matvec_job;

/* Local columns [c0, c1) and local rows [r0, r1) of the product: a thread
 * takes all the rows of some columns (trans: each column one sum) or all
 * the columns of some rows (y's entries by row). */
static void matvec_part(const matvec_job *m, int64_t c0, int64_t c1, int64_t r0, int64_t r1)
{
  const grid *g = m->g;
  const dist *d = m->d;
  const size_t ld = (size_t)d->desc[8];
  int64_t lj, li;
  for (lj = c0; lj < c1; lj++) {
    const int64_t j = global_of(lj, g->col, g->q, g->nb);
    const double *a = d->v + (size_t)lj * ld;
    int64_t lo = m->part == LOWER          ? before(j, g->row, g->p, g->nb, d->rows)
                 : m->part == STRICT_LOWER ? before(j + 1, g->row, g->p, g->nb, d->rows)
                                           : 0;
    int64_t hi = m->part == UPPER ? before(j + 1, g->row, g->p, g->nb, d->rows) : d->rows;
    double sum = 0;
    lo = lo > r0 ? lo : r0, hi = hi < r1 ? hi : r1;
    for (li = lo; li < hi; li++) {
      const int64_t i = global_of(li, g->row, g->p, g->nb);
      if (m->trans) sum += a[li] * m->x[i];
      else m->y[i] += a[li] * m->x[j];
    }
    if (m->trans) m->y[j] += sum;
  }
}

static void matvec_cols(void *p, int64_t lo, int64_t hi)
{
  const matvec_job *m = p;
  matvec_part(m, lo, hi, 0, m->d->rows);
}

static void matvec_rows(void *p, int64_t lo, int64_t hi)
{
  const matvec_job *m = p;
  matvec_part(m, 0, m->d->cols, lo, hi);
}

/* y = part(A) x (trans: part(A)^T x), every vector global. */
static void matvec(const grid *g, const dist *d, enum part part, int trans, const double *x,
                   double *y)
{
  matvec_job m = {g, d, part, trans, x, y};
  memset(y, 0, (size_t)g->n * sizeof *y);
  if (trans) in_parallel(d->cols, matvec_cols, &m);
  else in_parallel(d->rows, matvec_rows, &m);
  Cdgsum2d(g->ctxt, "All", " ", g->n, 1, y, g->n, -1, -1);
}

static double vnorm(const double *v, int n)
{
  double m = 0;
  int i;
  for (i = 0; i < n; i++) m = fabs(v[i]) > m ? fabs(v[i]) : m;
  return m;
}

typedef struct norm_job {
  const grid *g;
  const dist *d;
  double *rows;
} norm_job;

static void norm_rows(void *p, int64_t lo, int64_t hi)
{
  const norm_job *m = p;
  const size_t ld = (size_t)m->d->desc[8];
  int64_t lj, li;
  for (lj = 0; lj < m->d->cols; lj++)
    for (li = lo; li < hi; li++)
      m->rows[global_of(li, m->g->row, m->g->p, m->g->nb)] += fabs(m->d->v[li + (size_t)lj * ld]);
}

/* |A|_inf: the largest row sum of absolute values */
static double norm_inf(const grid *g, const dist *d)
{
  double *rows = calloc((size_t)g->n, sizeof *rows), r;
  norm_job m = {g, d, rows};
  in_parallel(d->rows, norm_rows, &m);
  Cdgsum2d(g->ctxt, "All", " ", g->n, 1, rows, g->n, -1, -1);
  r = vnorm(rows, g->n);
  free(rows);
  return r;
}

/* The slowest rank's time of one call, between barriers (its inputs set
 * up before the first). */
typedef struct call {
  const grid *g;
  dist *a, *b, *c, *a0, *b0; /* the solvers: b the right-hand side, b0 its copy */
  int *ipiv, info;
  double *tau, *work; /* PDGEQRF's */
  int lwork;
} call;
static double timed(call *k, void (*run)(call *))
{
  double t0, t;
  int r = -1, c = -1;
  if (k->a0->v) copy(k->a0, k->a); /* LU: a fresh matrix each call */
  if (k->b0->v) copy(k->b0, k->b);
  Cblacs_barrier(k->g->ctxt, "A");
  t0 = now();
  run(k);
  t = now() - t0;
  Cdgamx2d(k->g->ctxt, "A", " ", 1, 1, &t, 1, &r, &c, -1, -1, -1);
  return t;
}

static void run_gemm(call *k)
{
  pdgemm_("N", "N", &k->g->n, &k->g->n, &k->g->n, &D1, k->a->v, &ONE, &ONE, k->a->desc, k->b->v,
          &ONE, &ONE, k->b->desc, &D0, k->c->v, &ONE, &ONE, k->c->desc);
}

static void run_getrf(call *k)
{
  pdgetrf_(&k->g->n, &k->g->n, k->a->v, &ONE, &ONE, k->a->desc, k->ipiv, &k->info);
}

static void run_geqrf(call *k)
{
  pdgeqrf_(&k->g->n, &k->g->n, k->a->v, &ONE, &ONE, k->a->desc, k->tau, k->work, &k->lwork,
           &k->info);
}

static void run_potrf(call *k)
{
  pdpotrf_("L", &k->g->n, k->a->v, &ONE, &ONE, k->a->desc, &k->info, 1);
}

static void run_gesv(call *k)
{
  pdgesv_(&k->g->n, &ONE, k->a->v, &ONE, &ONE, k->a->desc, k->ipiv, k->b->v, &ONE, &ONE,
          k->b->desc, &k->info);
}

static void run_posv(call *k)
{
  pdposv_("L", &k->g->n, &ONE, k->a->v, &ONE, &ONE, k->a->desc, k->b->v, &ONE, &ONE,
          k->b->desc, &k->info, 1);
}

static int cmp(const void *x, const void *y)
{
  const double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* The scaled residual of the last call, k's matrices as it left them:
 * |C x - A (B x)|, |A x - L (L^T x)| or |A x - P L (U x)|, each over
 * |A|_inf (|B|_inf) |x|_inf n eps. */
static double residual(const char *what, call *k)
{
  const grid *g = k->g;
  const size_t n = (size_t)g->n;
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *t = malloc(n * sizeof *t);
  double *w = malloc(n * sizeof *w), r = INFINITY, scale;
  int *piv = NULL;
  size_t i;
  if (!x || !y || !t || !w) goto out;
  for (i = 0; i < n; i++) x[i] = entry(7, (int64_t)i, 0);
  if (!strcmp(what, "pdgesv") || !strcmp(what, "pdposv")) { /* x: the solution, in b */
    if (k->info) goto out;
    memset(x, 0, n * sizeof *x);
    if (g->col == 0)
      for (i = 0; i < (size_t)k->b->rows; i++)
        x[global_of((int64_t)i, g->row, g->p, g->nb)] = k->b->v[i];
    Cdgsum2d(g->ctxt, "All", " ", g->n, 1, x, g->n, -1, -1);
    matvec(g, k->a0, ALL, 0, x, y);
    matvec(g, k->b0, ALL, 0, &D1, w); /* b itself: its one column times 1 */
    scale = norm_inf(g, k->a0);
  } else if (!strcmp(what, "pdgemm")) {
    matvec(g, k->b, ALL, 0, x, t);
    matvec(g, k->a, ALL, 0, t, w); /* A (B x) */
    matvec(g, k->c, ALL, 0, x, y);
    scale = norm_inf(g, k->a) * norm_inf(g, k->b);
  } else {
    matvec(g, k->a0, ALL, 0, x, y);
    scale = norm_inf(g, k->a0);
    if (k->info) goto out;
    if (!strcmp(what, "pdpotrf")) {
      matvec(g, k->a, LOWER, 1, x, t);
      matvec(g, k->a, LOWER, 0, t, w);
    } else if (!strcmp(what, "pdgeqrf")) { /* A^T (A x) against R^T (R x) */
      matvec(g, k->a0, ALL, 1, y, t);
      memcpy(y, t, n * sizeof *y);
      matvec(g, k->a, UPPER, 0, x, t);
      matvec(g, k->a, UPPER, 1, t, w);
      scale *= scale;
    } else { /* w = L (U x), L unit lower, then A = P L U's row swaps, last first */
      matvec(g, k->a, UPPER, 0, x, t);
      matvec(g, k->a, STRICT_LOWER, 0, t, w);
      for (i = 0; i < n; i++) w[i] += t[i];
      if (!(piv = calloc(n, sizeof *piv))) goto out;
      if (g->col == 0) /* each process row's pivots, once */
        for (i = 0; i < (size_t)k->a->rows; i++)
          piv[global_of((int64_t)i, g->row, g->p, g->nb)] = k->ipiv[i];
      Cigsum2d(g->ctxt, "All", " ", g->n, 1, piv, g->n, -1, -1);
      for (i = n; i-- > 0;) {
        const size_t j = (size_t)piv[i] - 1;
        double v;
        if (j >= n) goto out;
        v = w[i], w[i] = w[j], w[j] = v;
      }
    }
  }
  for (i = 0; i < n; i++) y[i] -= w[i];
  r = vnorm(y, g->n) / (scale * vnorm(x, g->n) * g->n * DBL_EPSILON);
out:
  free(x), free(y), free(t), free(w), free(piv);
  return r;
}

/* The routines this program times, by the names ROUTINES lists. */
typedef struct routine {
  const char *name;
  double flops; /* over n^3 */
  void (*run)(call *);
  int spd, solve;
} routine;
static const routine routines[] = {
    {"pdgemm", 2.0, run_gemm, 0, 0},          {"pdgetrf", 2.0 / 3, run_getrf, 0, 0},
    {"pdpotrf", 1.0 / 3, run_potrf, 1, 0},    {"pdgeqrf", 4.0 / 3, run_geqrf, 0, 0},
    {"pdgesv", 2.0 / 3, run_gesv, 0, 1},      {"pdposv", 1.0 / 3, run_posv, 1, 1},
};

static const routine *routine_named(const char *what)
{
  size_t i;
  for (i = 0; i < sizeof routines / sizeof routines[0]; i++)
    if (!strcmp(what, routines[i].name)) return &routines[i];
  return NULL;
}

/* One routine at g's size: reps timed calls (none: one, unreported, the
 * warm-up), then the residual and, from rank 0, the line.  1 on failure. */
static int bench(const grid *g, const char *what, int reps, int me)
{
  const routine *u = routine_named(what);
  const int gemm = !strcmp(what, "pdgemm"), qr = !strcmp(what, "pdgeqrf");
  const double n = g->n;
  dist a = {0}, b = {0}, c = {0}, a0 = {0}, b0 = {0};
  call k = {g, &a, &b, &c, &a0, &b0, NULL, 0, NULL, NULL, -1};
  double t[51], res;
  int r, ok, fails = 0;
  if (!u) return 1;
  ok = make(g, g->n, &a) && (gemm ? make(g, g->n, &b) && make(g, g->n, &c) : make(g, g->n, &a0)) &&
       (!u->solve || (make(g, 1, &b) && make(g, 1, &b0)));
  k.ipiv = malloc(((size_t)a.rows + g->nb) * sizeof *k.ipiv);
  k.tau = malloc(((size_t)a.cols + g->nb) * sizeof *k.tau);
  if (ok && qr) { /* PDGEQRF's workspace, as it asks */
    double want = 0;
    k.work = &want;
    run_geqrf(&k);
    k.lwork = (int)want;
    k.work = malloc(((size_t)k.lwork + 1) * sizeof *k.work);
    ok = k.work != NULL;
  }
  if (!ok || !k.ipiv || !k.tau) { /* every rank's sizes are alike: all fail or none */
    if (!me) printf("%s n=%d skipped out_of_memory\n", what, g->n);
    fails++;
  } else {
    fill(g, gemm ? &a : &a0, 1, u->spd);
    if (gemm) fill(g, &b, 2, 0);
    if (u->solve) fill(g, &b0, 3, 0);
    for (r = 0; r < (reps ? reps : 1); r++) t[r] = timed(&k, u->run);
    qsort(t, (size_t)r, sizeof t[0], cmp);
    res = residual(what, &k);
    ok = res < 16;
    fails += !ok;
    if (!me && reps)
      printf("%s n=%d nb=%d grid=%dx%d seconds=%.4f tflops=%.4f reps=%d residual=%.3g %s\n", what,
             g->n, g->nb, g->p, g->q, t[r / 2], u->flops * n * n * n / t[r / 2] * 1e-12, r, res,
             ok ? "ok" : "FAILED");
    fflush(stdout);
  }
  free(a.v), free(b.v), free(c.v), free(a0.v), free(b0.v), free(k.ipiv), free(k.tau),
      free(k.work);
  return fails;
}

int main(int argc, char **argv)
{
  grid g;
  int me, procs, reps, fails = 0;
  char *list, *what, *rest = NULL;
  Cblacs_pinfo(&me, &procs);
  if (argc < 3) {
    if (!me) fprintf(stderr, "usage: pdbench pdgemm,pdgetrf,pdpotrf,pdgeqrf,pdgesv,pdposv N [NB] [REPS] [P]\n");
    Cblacs_exit(0);
    return 2;
  }
  g.n = atoi(argv[2]), g.nb = argc > 3 ? atoi(argv[3]) : 512, reps = argc > 4 ? atoi(argv[4]) : 3;
  for (g.p = (int)sqrt((double)procs); procs % g.p; g.p--) continue;
  if (argc > 5) g.p = atoi(argv[5]);
  g.q = procs / g.p;
  if (g.n < 1 || g.nb < 1 || reps < 1 || reps > 50 || g.p < 1 || g.p * g.q != procs) {
    if (!me) fprintf(stderr, "pdbench: bad N, NB, REPS or P for %d ranks\n", procs);
    Cblacs_exit(0);
    return 2;
  }
  Cblacs_get(0, 0, &g.ctxt);
  Cblacs_gridinit(&g.ctxt, "Row-major", g.p, g.q);
  Cblacs_gridinfo(g.ctxt, &g.p, &g.q, &g.row, &g.col);
  list = strdup(argv[1]);
  /* strtok_r: a library under the routines may call strtok itself (after
   * cuBLASMp's PDGEMM the list ended there, on the H200s, session 29) */
  for (what = strtok_r(list, ",", &rest); what; what = strtok_r(NULL, ",", &rest)) {
    grid w = g;
    if (!routine_named(what)) {
      if (!me) printf("%s unknown\n", what);
      fails++;
      continue;
    }
    w.n = g.n < 2048 ? g.n : 2048;
    bench(&w, what, 0, me);
    fails += bench(&g, what, reps, me);
  }
  free(list);
  Cblacs_gridexit(g.ctxt);
  Cblacs_exit(0);
  return fails ? 1 : 0;
}
