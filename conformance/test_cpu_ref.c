/*
 * test_cpu_ref - the built-in reference loops (the CPU path of last resort)
 * give bit for bit what netlib's SGEMM and DGEMM give, on random calls.
 */
#include <dlfcn.h>
#include <string.h>
#include "check_run.h"
#include "cpu/blas.h"
#include "cpu/ref.h"
#include "testutil.h"

START_TEST(reference_loops_equal_netlib)
{
  void *h = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
  dlg_sgemm_fn s = h ? (dlg_sgemm_fn)dlsym(h, "sgemm_") : NULL;
  dlg_dgemm_fn d = h ? (dlg_dgemm_fn)dlsym(h, "dgemm_") : NULL;
  static const double scal[] = {0, 1, -1, 0.3};
  static float fa[4096], fb[4096], fc[4096], fr[4096];
  static double da[4096], db[4096], dc[4096], dr[4096];
  rng r = {test_seed("reference_loops_equal_netlib")};
  int t, i;
  ck_assert_msg(s && d, "libblas.so.3 (Debian libblas3) is needed");
  for (t = 0; t < 600; t++) {
    const char tr[] = "NTc";
    char ta = tr[rng_int(&r, 3)], tb = tr[rng_int(&r, 3)];
    int m = rng_int(&r, 20), n = rng_int(&r, 20), k = rng_int(&r, 20);
    int lda = 21 + rng_int(&r, 3), ldb = 21 + rng_int(&r, 3), ldc = 20 + rng_int(&r, 3);
    float al = (float)scal[rng_int(&r, 4)], be = (float)scal[rng_int(&r, 4)];
    double dal = scal[rng_int(&r, 4)], dbe = scal[rng_int(&r, 4)];
    for (i = 0; i < 4096; i++) {
      fa[i] = (float)rng_unit(&r), fb[i] = (float)rng_unit(&r), fc[i] = fr[i] = (float)rng_unit(&r);
      da[i] = rng_unit(&r), db[i] = rng_unit(&r), dc[i] = dr[i] = rng_unit(&r);
    }
    dlg_ref_sgemm(&ta, &tb, &m, &n, &k, &al, fa, &lda, fb, &ldb, &be, fc, &ldc, 1, 1);
    s(&ta, &tb, &m, &n, &k, &al, fa, &lda, fb, &ldb, &be, fr, &ldc, 1, 1);
    ck_assert_msg(!memcmp(fc, fr, sizeof fc), "sgemm %c%c m=%d n=%d k=%d differs", ta, tb, m, n, k);
    dlg_ref_dgemm(&ta, &tb, &m, &n, &k, &dal, da, &lda, db, &ldb, &dbe, dc, &ldc, 1, 1);
    d(&ta, &tb, &m, &n, &k, &dal, da, &lda, db, &ldb, &dbe, dr, &ldc, 1, 1);
    ck_assert_msg(!memcmp(dc, dr, sizeof dc), "dgemm %c%c m=%d n=%d k=%d differs", ta, tb, m, n, k);
  }
}
END_TEST

int main(void)
{
  TCase *tc = tcase_create("cpu_ref");
  tcase_add_test(tc, reference_loops_equal_netlib);
  return check_run("cpu_ref", tc);
}
