/*
 * bench_shapes - dlgemm against cuBLAS over the shapes frameworks and LAPACK
 * spend their time in (issue 22's classes and more): FP64 squares and
 * rank-k updates, skinny and vector-like FP32, odd sizes and layouts, TF32
 * and 16-bit rank-k updates, decode shapes, vector-like and 8- or 16-wide
 * ("narrow") FP64 and 16-bit shapes, beta != 0, partial waves,
 * unaligned leading dimensions, batched attention, transformer layers,
 * complex64 and complex128 squares.
 *
 * Each case: device-resident column-major operands with the case's
 * transposes and leading dimensions, alpha 1 and the case's beta, on one
 * stream; dlgemm_matmul against cuBLAS with the same types and compute, as
 * gemm_case.h runs a product (shared with the grid of sweep.c), timed
 * alternately (bench_common.h: events, three warm-ups, medians, input
 * sets rotated below 200 MB).  After the timing each library's C of set 0
 * is compared with the other's (max |difference| / max |C|), so a fast wrong
 * answer shows.
 *
 * Prints one line per case (TFLOP/s, a complex multiply-add counted as 8
 * flops; ratio = cuBLAS time / dlgemm time:
 * above 1 dlgemm is faster), the geometric mean of each class and of all.
 *
 * usage: bench_shapes [reps [class | "TYPE OPS M N K [BATCH [BETA]]"]]
 *        (TYPE fp64, fp32, tf32, bf16, f16, c64 or c128; OPS e.g. TN)
 */
#include "gemm_case.h"

static const shape cases[] = {
    {"fp64", F64, 'N', 'N', 4096, 4096, 4096, 1, 0},
    {"fp64", F64, 'N', 'N', 8192, 8192, 8192, 1, 0},
    {"fp64", F64, 'T', 'N', 3000, 3000, 3000, 1, 0},
    {"fp64 rank-k", F64, 'N', 'T', 8192, 8192, 64, 1, 1},
    {"fp64 rank-k", F64, 'N', 'N', 8192, 8192, 256, 1, -1},
    {"fp64 vector", F64, 'N', 'N', 4096, 1, 4096, 1, 0},
    {"fp64 narrow", F64, 'N', 'N', 8192, 8, 8192, 1, 0},
    {"fp32 skinny", F32, 'N', 'N', 64, 8192, 8192, 1, 0},
    {"fp32 skinny", F32, 'N', 'N', 8192, 64, 8192, 1, 0},
    {"fp32 vector", F32, 'N', 'N', 1, 4096, 4096, 1, 0},
    {"fp32 vector", F32, 'N', 'N', 4096, 1, 4096, 1, 0},
    {"fp32 odd", F32, 'N', 'N', 4097, 4097, 4097, 1, 0},
    {"fp32 odd", F32, 'N', 'N', 3000, 3000, 3000, 1, 0},
    {"fp32 odd", F32, 'T', 'N', 4096, 4096, 4096, 1, 0},
    {"fp32 square", F32, 'N', 'N', 8192, 8192, 8192, 1, 0},
    {"tf32 rank-k", TF32, 'N', 'T', 8192, 8192, 64, 1, 1},
    {"tf32 square", TF32, 'N', 'N', 8192, 8192, 8192, 1, 0},
    {"bf16 decode", BF16, 'T', 'N', 4096, 16, 4096, 1, 0},
    {"bf16 decode", BF16, 'T', 'N', 4096, 128, 4096, 1, 0},
    {"bf16 vector", BF16, 'T', 'N', 4096, 1, 4096, 1, 0},
    {"bf16 narrow", BF16, 'T', 'N', 11008, 8, 4096, 1, 0},
    {"f16 narrow", F16, 'N', 'N', 4096, 16, 4096, 1, 0},
    {"bf16 beta", BF16, 'N', 'N', 4096, 4096, 4096, 1, 1},
    {"bf16 waves", BF16, 'N', 'N', 3000, 3000, 3000, 1, 0},
    {"bf16 rank-k", BF16, 'N', 'T', 8192, 8192, 64, 1, 1},
    {"f16 unaligned", F16, 'N', 'N', 4097, 4097, 4097, 1, 0},
    {"bf16 batched", BF16, 'N', 'N', 2048, 2048, 128, 32, 0},
    {"bf16 batched", BF16, 'N', 'N', 512, 512, 64, 256, 0},
    {"bf16 layer", BF16, 'T', 'N', 2304, 8192, 768, 1, 0},
    {"bf16 layer", BF16, 'T', 'N', 768, 8192, 3072, 1, 0},
    {"bf16 layer", BF16, 'T', 'N', 11008, 2048, 4096, 1, 0},
    {"bf16 square", BF16, 'N', 'N', 8192, 8192, 8192, 1, 0},
    {"f16 square", F16, 'N', 'N', 8192, 8192, 8192, 1, 0},
    {"complex", C64, 'N', 'N', 4096, 4096, 4096, 1, 0},
    {"complex", C64, 'N', 'N', 8192, 8192, 8192, 1, 0},
    {"complex", C128, 'N', 'N', 4096, 4096, 4096, 1, 0},
    {"complex", C128, 'N', 'N', 8192, 8192, 8192, 1, 0},
};

static gemm_bench gb;

typedef struct job {
  int which;
  const shape *s;
  CUdeviceptr *a, *b, c;
} job;

static void run_set(int set, void *ctx)
{
  const job *j = ctx;
  gemm_run(&gb, j->which, j->s, j->a[set], j->b[set], j->c);
}

int main(int argc, char **argv)
{
  const int reps = argc > 1 ? atoi(argv[1]) : 10;
  const char *only = argc > 2 ? argv[2] : NULL;
  const shape *list = cases;
  size_t ncases = sizeof cases / sizeof cases[0];
  shape one = {"shape", F64, 'N', 'N', 0, 0, 0, 1, 0, 0};
  char tname[8], ops[3];
  /* a shape of one's own instead of a class: "TYPE OPS M N K [BATCH [BETA]]" */
  if (only && sscanf(only, "%7s %2s %d %d %d %d %lf", tname, ops, &one.m, &one.n, &one.k,
                     &one.batch, &one.beta) >= 5) {
    size_t t = 0;
    while (t < KINDS && strcmp(kinds[t].name, tname)) t++;
    if (t == KINDS || strlen(ops) != 2 || one.m < 1 || one.n < 1 ||
        one.k < 1 || one.batch < 1) {
      fprintf(stderr, "bench_shapes: not a shape: \"%s\" (e.g. \"fp64 TN 3000 3000 3000\")\n", only);
      return 1;
    }
    one.t = (kind)t, one.ta = ops[0], one.tb = ops[1];
    list = &one, ncases = 1, only = NULL;
  }
  double log_sum = 0, cls_sum = 0;
  int counted = 0, cls_n = 0;
  const char *cls = NULL;
  gemm_bench_open(&gb);
  printf("%-14s %-5s %2s %6s %6s %6s %5s %5s %9s %9s %6s %9s\n", "class", "type", "op", "m", "n",
         "k", "batch", "beta", "dlgemm", "cuBLAS", "ratio", "C differs");
  for (size_t i = 0; i <= ncases; i++) {
    const shape *s = i < ncases ? &list[i] : NULL;
    if (s && only && !strstr(s->cls, only)) continue;
    if (cls && (!s || strcmp(s->cls, cls))) { /* a class ends */
      printf("%-14s geometric mean of %d: %.3f\n", cls, cls_n, exp(cls_sum / cls_n));
      cls_sum = 0, cls_n = 0;
    }
    if (!s) break;
    cls = s->cls;
    {
      const size_t es = (size_t)kinds[s->t].es;
      const size_t na = elems_a(s), nb = elems_b(s), nc = elems_c(s);
      int sets = (int)(200e6 / ((double)es * (double)(na + nb)) + 1);
      CUdeviceptr a[8], b[8], c;
      void *ha = malloc(es * na), *hb = malloc(es * nb), *hc = malloc(es * nc), *r0, *r1;
      uint64_t state = 0x9e3779b97f4a7c15ull + i;
      const double flops = flops_of(s);
      const size_t parts = is_complex(s->t) ? 2 : 1; /* values compared per element of C */
      float ms[2];
      job j = {0, s, a, b, 0};
      if (sets > 8) sets = 8;
      for (int t = 0; t < sets; t++) {
        gemm_fill(s, ha, na, &state);
        gemm_fill(s, hb, nb, &state);
        CU(gb.cu.MemAlloc(&a[t], es * na));
        CU(gb.cu.MemAlloc(&b[t], es * nb));
        CU(gb.cu.MemcpyHtoD(a[t], ha, es * na));
        CU(gb.cu.MemcpyHtoD(b[t], hb, es * nb));
      }
      gemm_fill(s, hc, nc, &state);
      CU(gb.cu.MemAlloc(&c, es * nc));
      CU(gb.cu.MemcpyHtoD(c, hc, es * nc));
      CU(gb.cu.StreamSynchronize(NULL));
      j.c = c;
      bench_median_pair_ms(&gb.cu, gb.stream, gb.ev0, gb.ev1, reps, sets, run_set, &j, &j.which, ms);
      r0 = gemm_result(&gb, s, 0, a[0], b[0], c, hc, es * nc);
      r1 = gemm_result(&gb, s, 1, a[0], b[0], c, hc, es * nc);
      printf("%-14s %-5s %c%c %6d %6d %6d %5d %5g %7.1f T %7.1f T %6.3f %9.2e\n", s->cls,
             kinds[s->t].name, s->ta, s->tb, s->m, s->n, s->k, s->batch, s->beta,
             flops / ms[0] * 1e-9, flops / ms[1] * 1e-9, ms[1] / ms[0], gemm_differs(s, r0, r1, parts * nc));
      fflush(stdout);
      log_sum += log(ms[1] / ms[0]), counted++;
      cls_sum += log(ms[1] / ms[0]), cls_n++;
      for (int t = 0; t < sets; t++) gb.cu.MemFree(a[t]), gb.cu.MemFree(b[t]);
      gb.cu.MemFree(c);
      free(ha), free(hb), free(hc), free(r0), free(r1);
    }
  }
  printf("geometric mean over %d cases: %.3f (ratio = cuBLAS time / dlgemm time; medians of %d "
         "event-timed runs, alternating)\n", counted, exp(log_sum / (counted ? counted : 1)), reps);
  return 0;
}
