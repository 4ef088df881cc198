/*
 * sweep - dlgemm against cuBLAS over a grid of shapes, not a list (issue 51).
 *
 * The grid: every type (fp64, fp32 strict, tf32, 3xtf32 against strict
 * SGEMM, bf16, f16, c64, c128) x every layout (NN, NT, TN, TT) is a class;
 * each class holds four families of cells:
 *   narrow    one of m, n, k is d in {1, 2, 3, 4, 8, ..., 384}, the other two
 *             4096 (8192 for the 16-bit types), beta 0 and 1;
 *   batched   s^3 products, s in {4, ..., 96}, batch * s^3 = 2^28;
 *   attention heads x seq x head_dim, head_dim 64 and 128, seq 128 to 4096,
 *             both products of attention (scores: seq x seq x head_dim; values:
 *             seq x head_dim x seq), batch * seq^2 = 2^26;
 *   odd       n in {255, 1000, ..., 6000} squares, beta 0 with tight leading
 *             dimensions and beta 1 with 3 rows more (not multiples of 8).
 * Each cell is timed as bench_shapes times a case (gemm_case.h: events,
 * three warm-ups, the median of `reps` runs of each library, alternating),
 * with operands uploaded from one random pool (no host work per cell but
 * the copy), then both libraries' C compared: a cell whose C differs by
 * more than its type's tolerance is a failure, and makes the exit status 1.
 *
 * Prints a line per cell (ratio = cuBLAS time / dlgemm time: above 1
 * dlgemm is faster), then each class's geometric mean and minimum, each
 * family's, and the whole sweep's; `bench/plot sweep LOG` draws a heat map
 * per type from the lines.
 *
 * usage: sweep [--list] [--reps N] [--sample K] [--only TYPE] [--family F]
 *   --list     the grid's cells, counted by class and family (no GPU needed);
 *              with --check, exit 1 unless every class has every family
 *   --sample K every K-th cell of each class and family (offset rotating with
 *              the class), so that a sweep fits its time and still covers
 *              every class, layout and family
 *   --rerun LOG only the cells that an earlier sweep's LOG shows below
 *              --below X (default 0.85), every one of them: a second run of
 *              the low cells (issue 51 asks for none in two runs), or a
 *              change measured where it matters, in a fraction of a sweep's
 *              time; with --list, how many cells that is (no GPU needed)
 */
#include "gemm_case.h"

enum { NARROW, BATCHED, ATTENTION, ODD, FAMILIES };
static const char *const family_names[FAMILIES] = {"narrow", "batched", "attention", "odd"};
static const char layouts[4][3] = {"NN", "NT", "TN", "TT"};

typedef struct cell {
  shape s;
  int family;
  char what[24]; /* the narrow dimension, or the attention product */
} cell;

/* A cell as its printed line names it: type, layout, family, label, m, n,
 * k, batch and beta (the labels repeat across an attention family's sizes). */
static void cell_key(const char *type, const char *op, const char *fam, const char *what, int m,
                     int n, int k, int batch, double beta, char *key, size_t len)
{
  snprintf(key, len, "%s %s %s %s %d %d %d %d %g", type, op, fam, what, m, n, k, batch, beta);
}

/* --rerun: the keys of LOG's cells whose ratio is below `below`, read from
 * the lines time_cell prints (its fixed columns: the label is columns
 * 21-34); how many, or -1 where LOG cannot be read. */
enum { RERUN_MAX = 8192 };
static char (*rerun_keys)[96];
static int read_rerun(const char *log, double below)
{
  FILE *f = fopen(log, "r");
  char line[512], type[16], op[8], fam[16], what[24], *end;
  int n = 0, m, nn, k, batch;
  double beta, dl, cu, ratio;
  if (!f || !(rerun_keys = malloc(RERUN_MAX * sizeof *rerun_keys))) {
    if (f) fclose(f);
    return -1;
  }
  while (fgets(line, sizeof line, f) && n < RERUN_MAX) {
    if (strlen(line) < 36 || sscanf(line, "%15s %7s %15s", type, op, fam) != 3) continue;
    memcpy(what, line + 20, 14), what[14] = 0;
    for (end = what + strlen(what); end > what && end[-1] == ' '; end--) *(end - 1) = 0;
    if (sscanf(line + 35, "%d %d %d %d %lf %lf %lf %lf", &m, &nn, &k, &batch, &beta, &dl, &cu,
               &ratio) != 8 ||
        ratio >= below)
      continue;
    cell_key(type, op, fam, what, m, nn, k, batch, beta, rerun_keys[n++], sizeof rerun_keys[0]);
  }
  fclose(f);
  return n;
}

static int rerun_wants(const cell *c, int t, int l, int keys)
{
  char key[96];
  cell_key(kinds[t].name, layouts[l], family_names[c->family], c->what, (int)c->s.m, (int)c->s.n,
           (int)c->s.k, (int)c->s.batch, c->s.beta, key, sizeof key);
  for (int i = 0; i < keys; i++)
    if (!strcmp(key, rerun_keys[i])) return 1;
  return 0;
}

/* The grid's cells of one class (type t, layout l), in order; returns how many. */
static int class_cells(kind t, int l, cell *out)
{
  static const int widths[] = {1, 2, 3, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384};
  static const int tiny[] = {4, 8, 16, 24, 32, 48, 64, 96};
  static const int seqs[] = {128, 256, 512, 1024, 2048, 4096};
  static const int odd[] = {255, 1000, 1023, 1025, 2047, 3001, 4097, 5000, 6000};
  const int big = kinds[t].es == 2 ? 8192 : 4096;
  int n = 0;
  cell c;
  memset(&c, 0, sizeof c);
  c.s.cls = NULL, c.s.t = t, c.s.ta = layouts[l][0], c.s.tb = layouts[l][1], c.s.batch = 1;
  for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
    for (int at = 0; at < 3; at++)
      for (int beta = 0; beta < 2; beta++) {
        c.family = NARROW;
        c.s.m = at == 0 ? widths[w] : big, c.s.n = at == 1 ? widths[w] : big;
        c.s.k = at == 2 ? widths[w] : big, c.s.beta = beta, c.s.batch = 1, c.s.pad = 0;
        snprintf(c.what, sizeof c.what, "%c=%d", "mnk"[at], widths[w]);
        if (out) out[n] = c;
        n++;
      }
  for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; i++) {
    const int s = tiny[i];
    c.family = BATCHED;
    c.s.m = c.s.n = c.s.k = s, c.s.beta = 0, c.s.pad = 0;
    c.s.batch = (int)((1LL << 28) / ((long long)s * s * s));
    snprintf(c.what, sizeof c.what, "%d^3", s);
    if (out) out[n] = c;
    n++;
  }
  for (int hd = 64; hd <= 128; hd *= 2)
    for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++)
      for (int values = 0; values < 2; values++) {
        const int seq = seqs[i];
        c.family = ATTENTION;
        c.s.m = seq, c.s.n = values ? hd : seq, c.s.k = values ? seq : hd;
        c.s.batch = (int)((1LL << 26) / ((long long)seq * seq));
        c.s.beta = 0, c.s.pad = 0;
        snprintf(c.what, sizeof c.what, "%s d=%d", values ? "values" : "scores", hd);
        if (out) out[n] = c;
        n++;
      }
  for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
    for (int beta = 0; beta < 2; beta++) {
      c.family = ODD;
      c.s.m = c.s.n = c.s.k = odd[i], c.s.batch = 1, c.s.beta = beta, c.s.pad = beta ? 3 : 0;
      snprintf(c.what, sizeof c.what, "n=%d%s", odd[i], beta ? " ld+3" : "");
      if (out) out[n] = c;
      n++;
    }
  return n;
}

/* Whether the cell's C may differ from cuBLAS's by rel (max |difference| /
 * max |C|): the inputs' and result's rounding, plus accumulation over k. */
static int within_tolerance(const shape *s, double rel)
{
  const double acc = part_of(s->t) == F64 ? 0x1p-52 : 0x1p-23;
  return rel <= 4 * kinds[s->t].unit + 2 * acc * s->k;
}

/* A random pool of 32 MB a part type, uploaded over and over: no host work per cell. */
static void *pool[KINDS];
enum { POOL_BYTES = 32 << 20 };

static void upload(const gemm_bench *gb, const shape *s, CUdeviceptr dst, size_t bytes,
                   size_t offset)
{
  const char *src = pool[s->t];
  for (size_t done = 0; done < bytes;) {
    size_t at = (offset + done) % (POOL_BYTES / 2), part = bytes - done;
    if (part > POOL_BYTES - at) part = POOL_BYTES - at;
    part &= ~(size_t)15;
    if (!part) part = bytes - done < 16 ? bytes - done : 16;
    CU(gb->cu.MemcpyHtoD(dst + done, src + at, part));
    done += part;
  }
}

typedef struct job {
  const gemm_bench *gb;
  int which;
  const shape *s;
  CUdeviceptr a[2], b[2], c;
} job;

static void run_set(int set, void *ctx)
{
  const job *j = ctx;
  gemm_run(j->gb, j->which, j->s, j->a[set], j->b[set], j->c);
}

typedef struct tally {
  double log_sum, min;
  int n;
} tally;

static void add(tally *t, double ratio)
{
  if (!t->n || ratio < t->min) t->min = ratio;
  t->log_sum += log(ratio), t->n++;
}

static void print_tally(const char *label, const tally *t)
{
  if (t->n) printf("%-26s geometric mean %.3f, minimum %.3f over %d cells\n", label,
                   exp(t->log_sum / t->n), t->min, t->n);
}

/* Time one cell; its ratio, and 1 in *wrong if the two Cs disagree. */
static double time_cell(const gemm_bench *gb, const cell *cl, int reps, int *wrong)
{
  const shape *s = &cl->s;
  const size_t es = (size_t)kinds[s->t].es, na = elems_a(s), nb = elems_b(s), nc = elems_c(s);
  const size_t cmp = es * nc < (64u << 20) ? es * nc : (64u << 20); /* C's first 64 MB */
  const int sets = es * (na + nb) < (100u << 20) ? 2 : 1;
  job j = {gb, 0, s, {0, 0}, {0, 0}, 0};
  void *c0 = malloc(cmp), *r0, *r1;
  float ms[2];
  double rel;
  for (int t = 0; t < sets; t++) {
    CU(gb->cu.MemAlloc(&j.a[t], es * na));
    CU(gb->cu.MemAlloc(&j.b[t], es * nb));
    upload(gb, s, j.a[t], es * na, (size_t)t * 4096);
    upload(gb, s, j.b[t], es * nb, (size_t)t * 4096 + 1024);
  }
  if (sets == 1) j.a[1] = j.a[0], j.b[1] = j.b[0];
  CU(gb->cu.MemAlloc(&j.c, es * nc));
  upload(gb, s, j.c, es * nc, 512);
  memcpy(c0, pool[s->t], cmp < POOL_BYTES ? cmp : POOL_BYTES);
  if (cmp > POOL_BYTES) memset((char *)c0 + POOL_BYTES, 0, cmp - POOL_BYTES);
  CU(gb->cu.StreamSynchronize(NULL));
  bench_median_pair_ms(&gb->cu, gb->stream, gb->ev0, gb->ev1, reps, 2, run_set, &j, &j.which, ms);
  /* C's starting values for the check: the pool's first bytes (beta reads them) */
  r0 = gemm_result(gb, s, 0, j.a[0], j.b[0], j.c, c0, cmp);
  r1 = gemm_result(gb, s, 1, j.a[0], j.b[0], j.c, c0, cmp);
  rel = gemm_differs(s, r0, r1, cmp / es * (is_complex(s->t) ? 2 : 1)); /* cmp <= C's bytes */
  *wrong = !within_tolerance(s, rel);
  printf("%-6s %2s %-9s %-14s %6d %6d %6d %7d %2g %8.2f %8.2f %7.3f %9.2e%s\n", kinds[s->t].name,
         layouts[(s->ta == 'T') * 2 + (s->tb == 'T')], family_names[cl->family], cl->what, s->m,
         s->n, s->k, s->batch, s->beta, flops_of(s) / ms[0] * 1e-9, flops_of(s) / ms[1] * 1e-9,
         ms[1] / ms[0], rel, *wrong ? "  WRONG" : "");
  fflush(stdout);
  for (int t = 0; t < sets; t++) gb->cu.MemFree(j.a[t]), gb->cu.MemFree(j.b[t]);
  gb->cu.MemFree(j.c);
  free(c0), free(r0), free(r1);
  return ms[1] / ms[0];
}

int main(int argc, char **argv)
{
  int list = 0, check = 0, reps = 5, sample = 1, family = -1, only = -1, wrong_cells = 0, low = 0;
  int keys = -1; /* --rerun: LOG's low cells, the only ones timed */
  const char *rerun = NULL;
  double below = 0.85;
  static cell cells[256];
  tally all = {0, 0, 0}, fam[FAMILIES], kind_tally[KINDS];
  gemm_bench gb;
  memset(fam, 0, sizeof fam), memset(kind_tally, 0, sizeof kind_tally);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--list")) list = 1;
    else if (!strcmp(argv[i], "--check")) check = 1;
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--sample") && i + 1 < argc) sample = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rerun") && i + 1 < argc) rerun = argv[++i];
    else if (!strcmp(argv[i], "--below") && i + 1 < argc) below = atof(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      for (only = 0; only < KINDS && strcmp(kinds[only].name, argv[i + 1]); only++) {}
      i++;
    } else if (!strcmp(argv[i], "--family") && i + 1 < argc) {
      for (family = 0; family < FAMILIES && strcmp(family_names[family], argv[i + 1]); family++) {}
      i++;
    } else {
      fprintf(stderr, "usage: sweep [--list [--check]] [--reps N] [--sample K] [--only TYPE] "
              "[--family narrow|batched|attention|odd] [--rerun LOG [--below X]]\n");
      return 2;
    }
  }
  if (reps < 1 || sample < 1 || only == KINDS || family == FAMILIES || !(below > 0)) {
    fprintf(stderr, "sweep: a bad --reps, --sample, --only, --family or --below\n");
    return 2;
  }
  if (rerun && (keys = read_rerun(rerun, below)) < 0) {
    fprintf(stderr, "sweep: cannot read %s\n", rerun);
    return 2;
  }
  if (rerun) sample = 1; /* every low cell */
  if (list) {
    int total = 0, missing = 0;
    for (int t = 0; t < KINDS; t++)
      for (int l = 0; l < 4; l++) {
        int n = class_cells((kind)t, l, cells);
        printf("%-6s %2s:", kinds[t].name, layouts[l]);
        for (int f = 0; f < FAMILIES; f++) {
          int kept = 0, seen = 0;
          for (int i = 0; i < n; i++)
            if (cells[i].family == f && (seen++ + t * 4 + l) % sample == 0 &&
                (!rerun || rerun_wants(&cells[i], t, l, keys)))
              kept++;
          printf(" %s %d", family_names[f], kept);
          missing += kept == 0;
          total += kept;
        }
        printf("\n");
      }
    printf("%d cells in %d classes (8 types x 4 layouts), --sample %d\n", total, KINDS * 4, sample);
    return check && missing ? 1 : 0;
  }
  gemm_bench_open(&gb);
  for (int t = 0; t < KINDS; t++) {
    shape s;
    uint64_t state = 0x9e3779b97f4a7c15ull + (uint64_t)t;
    memset(&s, 0, sizeof s);
    s.t = (kind)t;
    pool[t] = malloc(POOL_BYTES);
    gemm_fill(&s, pool[t], POOL_BYTES / (size_t)kinds[t].es, &state);
  }
  printf("%-6s %2s %-9s %-14s %6s %6s %6s %7s %2s %8s %8s %7s %9s\n", "type", "op", "family",
         "cell", "m", "n", "k", "batch", "b", "dlgemm", "cuBLAS", "ratio", "C differs");
  for (int t = 0; t < KINDS; t++) {
    if (only >= 0 && t != only) continue;
    for (int l = 0; l < 4; l++) {
      tally cls = {0, 0, 0};
      char label[32];
      int n = class_cells((kind)t, l, cells), seen[FAMILIES] = {0};
      for (int i = 0; i < n; i++) {
        int wrong;
        double ratio;
        if ((family >= 0 && cells[i].family != family) ||
            (seen[cells[i].family]++ + t * 4 + l) % sample ||
            (rerun && !rerun_wants(&cells[i], t, l, keys)))
          continue;
        ratio = time_cell(&gb, &cells[i], reps, &wrong);
        wrong_cells += wrong, low += ratio < 0.85;
        add(&cls, ratio), add(&all, ratio), add(&fam[cells[i].family], ratio);
        add(&kind_tally[t], ratio);
      }
      snprintf(label, sizeof label, "class %s %s", kinds[t].name, layouts[l]);
      print_tally(label, &cls);
    }
  }
  for (int t = 0; t < KINDS; t++) {
    char label[32];
    snprintf(label, sizeof label, "type %s", kinds[t].name);
    print_tally(label, &kind_tally[t]);
  }
  for (int f = 0; f < FAMILIES; f++) {
    char label[32];
    snprintf(label, sizeof label, "family %s", family_names[f]);
    print_tally(label, &fam[f]);
  }
  print_tally("sweep", &all);
  printf("%d cells below 0.85; %d cells whose C differs from cuBLAS's beyond tolerance "
         "(ratio = cuBLAS time / dlgemm time; medians of %d runs, alternating)\n", low,
         wrong_cells, reps);
  return wrong_cells ? 1 : 0;
}
