/*
 * test_devices - the multi-device plans, without a GPU: which devices
 * host-array calls use (plugin/gpu/devices.c; the device count and the
 * environment are the test's), DLGEMM_DEVICES as the configuration parses
 * it, and the cut of one product's C across devices (plugin/gpu/split.c:
 * which side is cut, shares in proportion to the speeds, cuts on granules,
 * every column or row in exactly one part); how many ranks of a job share
 * the node and each device, and what that and the copy pool do to a trip's
 * time (plugin/gpu/trip_cost.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_run.h"
#include "core/config.h"
#include "gpu/devices.h"
#include "gpu/split.h"
#include "gpu/trip_cost.h"
#include "testutil.h"

/* The environment of a case: NAME=VALUE strings. */
static const char *const *fake_env;

static const char *lookup(const char *name)
{
  const size_t len = strlen(name);
  const char *const *e;
  for (e = fake_env; e && *e; e++)
    if (!strncmp(*e, name, len) && (*e)[len] == '=') return *e + len + 1;
  return NULL;
}

static dlg_device_choice choose(const int *listed, int nlisted, int count,
                                const char *const *env)
{
  dlg_device_choice c;
  fake_env = env;
  dlg_devices_choose(listed, nlisted, lookup, count, &c);
  return c;
}

START_TEST(listed_devices_are_taken_in_order)
{
  const int list[] = {1, 0}, twice[] = {0, 0}, missing[] = {0, 2};
  const char *const rank[] = {"OMPI_COMM_WORLD_LOCAL_RANK=1", NULL};
  dlg_device_choice c = choose(list, 2, 2, rank);
  ck_assert_int_eq(c.n, 2);
  ck_assert_int_eq(c.ordinal[0], 1);
  ck_assert_int_eq(c.ordinal[1], 0);
  ck_assert_str_eq(c.why, "DLGEMM_DEVICES=1,0");
  ck_assert_str_eq(c.warning, "");
  /* one GPU listed twice: two slots, the fake second device */
  c = choose(twice, 2, 1, NULL);
  ck_assert_int_eq(c.n, 2);
  ck_assert_int_eq(c.ordinal[0], 0);
  ck_assert_int_eq(c.ordinal[1], 0);
  /* a device that does not exist: the list is ignored, loudly */
  c = choose(missing, 2, 2, NULL);
  ck_assert_int_eq(c.n, 2);
  ck_assert_int_eq(c.ordinal[1], 1);
  ck_assert_msg(strstr(c.warning, "ignoring DLGEMM_DEVICES: it names device 2, and 2 devices "
                                  "are present"), "%s", c.warning);
  ck_assert_str_eq(c.why, "every device (2)");
}
END_TEST

START_TEST(without_a_list_a_rank_takes_its_local_device)
{
  const char *const ompi[] = {"OMPI_COMM_WORLD_LOCAL_RANK=3", NULL};
  /* mpirun inside a Slurm allocation: the daemon's SLURM_LOCALID is 0 for
   * every rank, the launcher's own variable is right */
  const char *const nested[] = {"SLURM_LOCALID=0", "MPI_LOCALRANKID=5", NULL};
  const char *const garbage[] = {"OMPI_COMM_WORLD_LOCAL_RANK=-1", "SLURM_LOCALID=2", NULL};
  static const char *const each[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK",
                                     "MPI_LOCALRANKID", "PALS_LOCAL_RANKID", "PMI_LOCAL_RANK",
                                     "FLUX_TASK_LOCAL_ID", "JSM_NAMESPACE_LOCAL_RANK",
                                     "SLURM_LOCALID"};
  char var[64];
  const char *env[2] = {var, NULL};
  dlg_device_choice c = choose(NULL, 0, 2, ompi);
  size_t i;
  ck_assert_int_eq(c.n, 1);
  ck_assert_int_eq(c.ordinal[0], 1); /* 3 mod 2 */
  ck_assert_msg(strstr(c.why, "OMPI_COMM_WORLD_LOCAL_RANK=3"), "%s", c.why);
  c = choose(NULL, 0, 4, nested);
  ck_assert_int_eq(c.n, 1);
  ck_assert_int_eq(c.ordinal[0], 1); /* 5 mod 4 */
  c = choose(NULL, 0, 4, garbage);
  ck_assert_int_eq(c.ordinal[0], 2);
  ck_assert_msg(strstr(c.warning, "ignoring OMPI_COMM_WORLD_LOCAL_RANK='-1'"), "%s", c.warning);
  for (i = 0; i < sizeof each / sizeof each[0]; i++) {
    snprintf(var, sizeof var, "%s=6", each[i]);
    c = choose(NULL, 0, 4, env);
    ck_assert_msg(c.n == 1 && c.ordinal[0] == 2, "%s", var);
  }
}
END_TEST

START_TEST(otherwise_every_device)
{
  const int list[] = {3};
  dlg_device_choice c = choose(NULL, 0, 3, NULL);
  ck_assert_int_eq(c.n, 3);
  ck_assert_int_eq(c.ordinal[2], 2);
  c = choose(NULL, 0, 40, NULL); /* more than a backend handles */
  ck_assert_int_eq(c.n, DLG_MAX_DEVICES);
  c = choose(list, 1, 0, NULL);
  ck_assert_int_eq(c.n, 0);
  ck_assert_str_eq(c.warning, "");
}
END_TEST

static void reload(void *unused)
{
  (void)unused;
  dlg_config_reload();
}

/* DLGEMM_DEVICES set to value, reloaded: the list (ndevices 0 when it was
 * refused) and what went to stderr. */
static const dlg_config *parse(const char *value, char *err, size_t len)
{
  setenv("DLGEMM_DEVICES", value, 1);
  capture_stderr(reload, NULL, err, len);
  return dlg_config_get();
}

START_TEST(the_list_parses_or_is_refused_whole)
{
  static const char *const refused[] = {"a",   "-1",   "16", "0,,1", "0,1,", "1;2",
                                        "0x1", "+1", "0,1 2", ",0",
                                        "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0"};
  char err[1024];
  const dlg_config *cfg = parse("1,0", err, sizeof err);
  size_t i;
  ck_assert_int_eq(cfg->ndevices, 2);
  ck_assert_int_eq(cfg->devices[0], 1);
  ck_assert_int_eq(cfg->devices[1], 0);
  ck_assert_str_eq(err, "");
  cfg = parse(" 0 , 0 ", err, sizeof err);
  ck_assert_int_eq(cfg->ndevices, 2);
  ck_assert_int_eq(cfg->devices[1], 0);
  cfg = parse("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", err, sizeof err);
  ck_assert_int_eq(cfg->ndevices, 16);
  ck_assert_int_eq(cfg->devices[15], 15);
  for (i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    char want[128];
    cfg = parse(refused[i], err, sizeof err);
    snprintf(want, sizeof want, "ignoring DLGEMM_DEVICES='%s'", refused[i]);
    ck_assert_msg(cfg->ndevices == 0, "'%s' was taken", refused[i]);
    ck_assert_msg(strstr(err, want) && strstr(err, "using the default devices"), "'%s': %s",
                  refused[i], err);
  }
  unsetenv("DLGEMM_DEVICES");
  capture_stderr(reload, NULL, err, sizeof err);
  ck_assert_int_eq(dlg_config_get()->ndevices, 0);
  ck_assert_str_eq(err, "");
}
END_TEST

enum { G = DLG_SPLIT_GRANULE };

/* The cut of an m x n C over the devices of speed[] (an array) must be on
 * its columns (cols) or rows, the parts ending at the columns (rows) given. */
#define CUTS(m, n, speed, cols, ...)                                                         \
  expect_cuts(m, n, speed, (int)(sizeof speed / sizeof speed[0]), cols,                     \
              (const int64_t[]){__VA_ARGS__})

static void expect_cuts(int64_t m, int64_t n, const double *speed, int parts, int cols,
                        const int64_t *ends)
{
  dlg_split s;
  int p;
  dlg_split_plan(m, n, speed, parts, &s);
  ck_assert_msg(s.cols == cols && s.parts == parts && s.start[0] == 0, "m=%lld n=%lld: cut %s",
                (long long)m, (long long)n, s.cols ? "columns" : "rows");
  for (p = 0; p < parts; p++)
    ck_assert_msg(s.start[p + 1] == ends[p], "m=%lld n=%lld: part %d ends at %lld, not %lld",
                  (long long)m, (long long)n, p, (long long)s.start[p + 1], (long long)ends[p]);
}

START_TEST(the_longer_side_is_cut_by_speed)
{
  const double equal[] = {1, 1}, fast_first[] = {3, 1}, three[] = {2, 1, 1};
  CUTS(1000, 4096, equal, 1, 2048, 4096); /* A is the smaller: every device reads it */
  CUTS(4096, 1000, fast_first, 0, 3072, 4096); /* B is the smaller: row blocks */
  CUTS(700, 4100, three, 1, 8 * G, 12 * G, 4100); /* cuts at 2050 and 3075, to granules */
}
END_TEST

START_TEST(small_and_odd_extents)
{
  const double equal[] = {1, 1};
  CUTS(1000, 1000, equal, 1, 2 * G, 1000); /* the cut at 500, to a granule */
  CUTS(100, 37, equal, 0, 0, 100);         /* under a granule: one device takes it */
  CUTS(1, 1, equal, 1, 0, 1);
}
END_TEST

START_TEST(unusable_speeds)
{
  const double last_out[] = {2, 1, 0}, first_out[] = {-1, 1}, none[] = {0, NAN, -3};
  const double inf[] = {INFINITY, 1};
  CUTS(512, 3000, last_out, 1, 2048, 3000, 3000); /* one not measured takes nothing */
  CUTS(512, 3000, first_out, 1, 0, 3000);
  CUTS(512, 3072, none, 1, 1024, 2048, 3072); /* none known: all alike */
  CUTS(512, 3072, inf, 1, 0, 3072);
}
END_TEST

/* Random cases: the parts tile the extent, cut on granules, each within a
 * granule of its speed's share.  Checked without an assertion per part:
 * Check records each one, and 20,000 cases of them took seconds. */
START_TEST(parts_cover_c_in_proportion)
{
  rng r = {test_seed("test_devices")};
  int t;
  for (t = 0; t < 20000; t++) {
    const int parts = 1 + rng_int(&r, DLG_MAX_DEVICES);
    const int64_t m = 1 + rng_int(&r, 70000), n = 1 + rng_int(&r, 70000);
    const int64_t extent = m <= n ? n : m;
    double speed[DLG_MAX_DEVICES], total = 0;
    dlg_split s;
    int p;
    for (p = 0; p < parts; p++) total += speed[p] = 0.1 + rng_unit(&r) + 1.0;
    dlg_split_plan(m, n, speed, parts, &s);
    if (s.cols != (m <= n) || s.start[0] != 0 || s.start[parts] != extent)
      ck_abort_msg("m=%lld n=%lld: cut the wrong side or not all of it", (long long)m,
                   (long long)n);
    for (p = 0; p < parts; p++) {
      const double share = (double)extent * speed[p] / total;
      const int64_t len = s.start[p + 1] - s.start[p], cut = s.start[p + 1];
      if (len < 0 || (cut % G && cut != extent) || fabs((double)len - share) > G)
        ck_abort_msg("m=%lld n=%lld part %d of %d: %lld from %lld for a share of %g",
                     (long long)m, (long long)n, p, parts, (long long)len,
                     (long long)s.start[p], share);
    }
  }
}
END_TEST

/* The launchers' counts: the ranks on the node share the host's memory,
 * those on one device its link. */
START_TEST(ranks_sharing_the_node_and_each_device)
{
  const int first[] = {0};
  const char *const two[] = {"OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=2", NULL};
  const char *const hydra[] = {"MPI_LOCALRANKID=1", "MPI_LOCALNRANKS=5", NULL};
  const char *const uncounted[] = {"OMPI_COMM_WORLD_LOCAL_RANK=1", NULL};
  const char *const wrong[] = {"PMI_LOCAL_RANK=3", "PMI_LOCAL_SIZE=3", NULL};
  dlg_device_choice c = choose(NULL, 0, 2, two);
  ck_assert_int_eq(c.ordinal[0], 1);
  ck_assert_int_eq(c.node_ranks, 2);
  ck_assert_int_eq(c.device_ranks, 1);
  ck_assert_str_eq(c.why, "node-local rank OMPI_COMM_WORLD_LOCAL_RANK=1 of 2 devices; 2 ranks on "
                          "the node, 1 on its device");
  c = choose(NULL, 0, 1, two); /* both on the one device */
  ck_assert_int_eq(c.device_ranks, 2);
  c = choose(first, 1, 2, two); /* every rank told DLGEMM_DEVICES=0 */
  ck_assert_int_eq(c.node_ranks, 2);
  ck_assert_int_eq(c.device_ranks, 2);
  c = choose(NULL, 0, 2, hydra); /* ranks 1 and 3 on device 1, 0 2 4 on device 0 */
  ck_assert_int_eq(c.node_ranks, 5);
  ck_assert_int_eq(c.device_ranks, 2);
  c = choose(NULL, 0, 4, hydra); /* ranks 1 and 5: there is no 5 */
  ck_assert_int_eq(c.device_ranks, 1);
  c = choose(NULL, 0, 2, uncounted);
  ck_assert_int_eq(c.node_ranks, 1);
  ck_assert_int_eq(c.device_ranks, 1);
  ck_assert_str_eq(c.why, "node-local rank OMPI_COMM_WORLD_LOCAL_RANK=1 of 2 devices");
  c = choose(NULL, 0, 2, wrong); /* a count that leaves this rank out is no count */
  ck_assert_int_eq(c.node_ranks, 1);
  c = choose(NULL, 0, 2, NULL);
  ck_assert_int_eq(c.node_ranks, 1);
  ck_assert_int_eq(c.device_ranks, 1);
}
END_TEST

/* The copy pool's gathers and scatters add up where the link's two ways
 * overlap; the kernels hide the copies but for the first and last tiles. */
START_TEST(trips_add_the_pools_copies)
{
  const dlg_trip_rates r = {50e9, 50e9, 50e9, 50e12};
  dlg_trip_rates half;
  /* 1 GB each way, no flops to speak of: 40 ms through the pool, not 20 */
  ck_assert_double_eq_tol(dlg_trip_pipelined(&r, 1e9, 1e9, 1e9, 4), 0.04 + 0.02002 / 4, 1e-9);
  /* compute-bound: 200 ms of kernels, a quarter of the copies exposed */
  ck_assert_double_eq_tol(dlg_trip_pipelined(&r, 1e9, 1e9, 1e13, 4), 0.2 + 0.04 / 4, 1e-9);
  /* a fast pool: the link's ways overlap */
  half = r, half.staging = 200e9;
  ck_assert_double_eq_tol(dlg_trip_pipelined(&half, 1e9, 1e9, 1e9, 1), 0.02 + 0.02002, 1e-9);
  ck_assert_double_eq_tol(dlg_trip_whole(&r, 1e9, 1e9, 1e13), 0.02 + 0.2 + 0.02, 1e-9);
  half = dlg_trip_share(r, 2, 1);
  ck_assert_double_eq_tol(half.staging, 25e9, 1);
  ck_assert_double_eq_tol(half.to_device, 50e9, 1);
  half = dlg_trip_share(r, 2, 2);
  ck_assert_double_eq_tol(half.to_host, 25e9, 1);
  ck_assert_double_eq_tol(half.flops, 50e12, 1);
  half = dlg_trip_share(r, 0, -1); /* nonsense counts share nothing */
  ck_assert_double_eq_tol(half.staging, 50e9, 1);
}
END_TEST

/* PDGEMM's local call on the H200 machine (its measured rates: 53.5 / 54.2
 * GB/s, staging 58.6, 52.6 TFLOP/s): m = 16384, n = 8192, k = 32, beta 1.
 * Two ranks ran it in 55 ms each on their GPUs, OpenBLAS in about 27-35. */
START_TEST(pdgemms_local_update_stays_on_the_cpu)
{
  const dlg_trip_rates r = {53.5e9, 54.2e9, 58.6e9, 52.6e12};
  const dlg_trip_rates two = dlg_trip_share(r, 2, 1);
  const double c = 16384.0 * 8192 * 8, in = c + (16384.0 * 32 + 32 * 8192.0) * 8;
  const double flops = 2.0 * 16384 * 8192 * 32;
  ck_assert_double_gt(dlg_trip_pipelined(&r, in, c, flops, 4), 0.036);
  ck_assert_double_gt(dlg_trip_pipelined(&two, in, c, flops, 4), 0.055);
}
END_TEST

int main(void)
{
  TCase *tc = tcase_create("devices");
  tcase_add_test(tc, listed_devices_are_taken_in_order);
  tcase_add_test(tc, without_a_list_a_rank_takes_its_local_device);
  tcase_add_test(tc, otherwise_every_device);
  tcase_add_test(tc, the_list_parses_or_is_refused_whole);
  tcase_add_test(tc, the_longer_side_is_cut_by_speed);
  tcase_add_test(tc, small_and_odd_extents);
  tcase_add_test(tc, unusable_speeds);
  tcase_add_test(tc, parts_cover_c_in_proportion);
  tcase_add_test(tc, ranks_sharing_the_node_and_each_device);
  tcase_add_test(tc, trips_add_the_pools_copies);
  tcase_add_test(tc, pdgemms_local_update_stays_on_the_cpu);
  return check_run("devices", tc);
}
