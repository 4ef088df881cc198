/* lu_plans.c - session 43 (host only; built as session42/plan_table.c is, with -DSRC naming a copy of dgemm.c): the FP64 products of recursive.c's LU (getrf_block
 * and its trsm) for n x n, each product's plan by HEAD's plan_for (SRC) and by
 * session 38's rule (shape_for + splits_for, restated), both timed by HEAD's
 * plan_time; products that gemm.c gives the tiny or narrow kernels marked. */
#include SRC
#include <stdio.h>
static dlg_cuda_device dev;
static double t_new, t_old;
static int differ;
static int old_splits(const dlg_dgemm_args *a, int sh)
{
  const long long wave = (long long)dev.sms * 2, tiles = tiles_in(a, sh), k = a->k;
  long long s;
  if (k < 1024 || 2 * tiles > wave) return 1;
  s = wave / tiles;
  if (s > k / 256) s = k / 256;
  return s < 2 ? 1 : (int)s;
}
static double old_est(const dlg_dgemm_args *a, int sh)
{
  const int s = old_splits(a, sh);
  const long long blocks = tiles_in(a, sh) * s;
  const double share = blocks > dev.sms ? (double)blocks / dev.sms : 1, kc = (double)a->k / s;
  return share * shapes[sh].bm * shapes[sh].bn * (sh == THIN_M || sh == THIN_N ? thin_cost(kc) : 1) * kc;
}
static dmma_plan old_plan(const dlg_dgemm_args *a)
{
  const int thin = filled(a, THIN_M) >= filled(a, THIN_N) ? THIN_M : THIN_N;
  int best = WIDE;
  dmma_plan p;
  if (old_est(a, FLAT) < 0.9 * old_est(a, WIDE)) best = FLAT;
  if (old_est(a, thin) < 0.9 * old_est(a, best)) best = thin;
  p.shape = best, p.splits = old_splits(a, best);
  return p;
}
static void product(long long m, long long n, long long k)
{
  dlg_dgemm_args a;
  dmma_plan p, o;
  double tn, to;
  const long long lo = m < n ? m : n, hi = m < n ? n : m;
  /* gemm.c's order: the tiny kernels (float64 to 24 a side), the narrow
   * ones (float64: 1-4 columns; 5-16 go on to DMMA's thin tiles) */
  const char *fam = (m <= 24 && n <= 24 && k <= 24)             ? "tiny"
                    : (lo <= 4 && hi >= 256 && k >= 256) ? "narrow"
                                                         : "dmma";
  if (!m || !n || !k) return;
  memset(&a, 0, sizeof a);
  a.m = (int)m, a.n = (int)n, a.k = (int)k;
  if (fam[0] != 'd') { printf("%6lld %6lld %6lld  %s\n", m, n, k, fam); return; }
  p = plan_for(&dev, &a, 1), o = old_plan(&a);
  tn = plan_time(&dev, &a, 1, p), to = plan_time(&dev, &a, 1, o);
  t_new += tn, t_old += to;
  if (p.shape != o.shape || p.splits != o.splits) differ++;
  printf("%6lld %6lld %6lld  new %d/%2d %8.1f us  old %d/%2d %8.1f us%s\n", m, n, k, p.shape, p.splits,
         1e6 * tn, o.shape, o.splits, 1e6 * to, p.shape != o.shape || p.splits != o.splits ? "  *" : "");
}
static void trsm(long long n, long long nb)
{
  long long n1, n2;
  if (!n || !nb || n <= 32) return;
  n1 = dlg_step_split(n), n2 = n - n1;
  trsm(n1, nb);
  product(n2, nb, n1);
  trsm(n2, nb);
}
static void getrf(long long m, long long j0, long long n)
{
  const long long mm = m - j0, kk = mm < n ? mm : n;
  long long n1, n2;
  if (mm == 1 || n == 1) return;
  n1 = dlg_step_split(kk), n2 = n - n1;
  getrf(m, j0, n1);
  trsm(n1, n2);
  product(mm - n1, n2, n1);
  getrf(m, j0 + n1, n2);
}
int main(int argc, char **argv)
{
  int i;
  dev.sms = 132;
  for (i = 0; i < 4; i++) dev.dgemm_occ[i] = 2;
  for (i = 1; i < argc; i++) {
    const long long n = atoll(argv[i]);
    t_new = t_old = 0, differ = 0;
    getrf(n, 0, n);
    printf("n=%lld: DMMA products estimated new %.2f ms, old %.2f ms; %d plans differ\n", n, 1e3 * t_new, 1e3 * t_old, differ);
  }
  return 0;
}
