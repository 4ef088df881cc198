/*
 * test_route - the router's decisions, and the configuration it reads.
 *
 * A fake GPU backend whose probe and support answers the test controls
 * stands beside the real CPU backend, so every rule in route.c is exercised
 * on a machine with no GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check_run.h"
#include "core/config.h"
#include "cpu/backend.h"
#include "route/route.h"
#include "testutil.h"

static int gpu_present, gpu_takes_f64;

static int fake_probe(char *why, size_t n)
{
  if (gpu_present) return 0;
  snprintf(why, n, "no fake device");
  return DLGEMM_ERR_NO_BACKEND;
}
static int fake_supports(const dlg_gemm *g) { return g->dtype == DLG_F32 || gpu_takes_f64; }
static dlgemm_status fake_run(const dlg_gemm *g)
{
  (void)g;
  return DLGEMM_OK;
}
static const dlg_backend fake_gpu = {"fake-gpu", DLGEMM_BACKEND_CUDA, fake_probe, fake_supports,
                                     fake_run, NULL};
static const dlg_backend *const with_gpu[] = {&fake_gpu, &dlg_backend_cpu};

/* A GPU with a cost model that finds offloading worth it from 512^3 up. */
static int fake_prefer(const dlg_gemm *g, char *why, size_t n)
{
  snprintf(why, n, "fake model");
  return g->m >= 512;
}
static const dlg_backend modelled_gpu = {"modelled-gpu", DLGEMM_BACKEND_CUDA, fake_probe,
                                         fake_supports, fake_run, fake_prefer};
static const dlg_backend *const with_model[] = {&modelled_gpu, &dlg_backend_cpu};
static const dlg_backend *const cpu_only[] = {&dlg_backend_cpu};

static dlg_gemm problem(int64_t size, dlg_place place, dlg_dtype dtype)
{
  dlg_gemm g;
  memset(&g, 0, sizeof g);
  g.m = g.n = g.k = size;
  g.batch = 1;
  g.place = place;
  g.dtype = g.dtype_in = dtype;
  return g;
}

static const dlg_backend *pick(const dlg_gemm *g, dlgemm_backend req, dlg_force force,
                               const dlg_backend *const *table, size_t n, char *why)
{
  dlg_config cfg = {0, force, DLG_DEFAULT_MIN_MNK, NULL};
  return route_pick_from(g, req, &cfg, table, n, why, 160);
}
#define PICK(g, req, force) pick(&(g), req, force, with_gpu, 2, why)

START_TEST(host_calls_by_size_and_force)
{
  char why[160];
  dlg_gemm small = problem(64, DLG_HOST, DLG_F32), big = problem(1024, DLG_HOST, DLG_F32);
  gpu_present = 1;
  ck_assert_ptr_eq(PICK(small, DLGEMM_BACKEND_AUTO, DLG_FORCE_AUTO), &dlg_backend_cpu);
  ck_assert(strstr(why, "below DLGEMM_MIN_MNK"));
  ck_assert_ptr_eq(PICK(big, DLGEMM_BACKEND_AUTO, DLG_FORCE_AUTO), &fake_gpu);
  ck_assert_ptr_eq(PICK(big, DLGEMM_BACKEND_AUTO, DLG_FORCE_CPU), &dlg_backend_cpu);
  ck_assert(strstr(why, "DLGEMM_FORCE=cpu"));
  ck_assert_ptr_eq(PICK(small, DLGEMM_BACKEND_AUTO, DLG_FORCE_GPU), &fake_gpu);
  gpu_present = 0;
  ck_assert_ptr_eq(PICK(big, DLGEMM_BACKEND_AUTO, DLG_FORCE_GPU), &dlg_backend_cpu);
  ck_assert(strstr(why, "no usable GPU"));
  ck_assert_ptr_eq(pick(&big, DLGEMM_BACKEND_AUTO, DLG_FORCE_AUTO, cpu_only, 1, why),
                   &dlg_backend_cpu);
}
END_TEST

START_TEST(unsupported_dtype_stays_on_cpu)
{
  char why[160];
  dlg_gemm big64 = problem(2048, DLG_HOST, DLG_F64);
  gpu_present = 1;
  gpu_takes_f64 = 0;
  ck_assert_ptr_eq(PICK(big64, DLGEMM_BACKEND_AUTO, DLG_FORCE_GPU), &dlg_backend_cpu);
  gpu_takes_f64 = 1;
  ck_assert_ptr_eq(PICK(big64, DLGEMM_BACKEND_AUTO, DLG_FORCE_AUTO), &fake_gpu);
}
END_TEST

START_TEST(device_tensors_need_their_device)
{
  char why[160];
  dlg_gemm dev = problem(8, DLG_CUDA, DLG_F32);
  gpu_present = 1;
  ck_assert_ptr_eq(PICK(dev, DLGEMM_BACKEND_AUTO, DLG_FORCE_CPU), &fake_gpu);
  gpu_present = 0;
  ck_assert_ptr_null(PICK(dev, DLGEMM_BACKEND_AUTO, DLG_FORCE_AUTO));
  ck_assert(strstr(dlgemm_last_error(), "not available: no fake device"));
  ck_assert_ptr_null(pick(&dev, DLGEMM_BACKEND_AUTO, DLG_FORCE_AUTO, cpu_only, 1, why));
  ck_assert(strstr(dlgemm_last_error(), "not built"));
  gpu_present = 1;
  ck_assert_ptr_null(PICK(dev, DLGEMM_BACKEND_CPU, DLG_FORCE_AUTO));
  ck_assert(strstr(dlgemm_last_error(), "cpu backend was requested"));
}
END_TEST

START_TEST(requested_backend_is_never_swapped)
{
  char why[160];
  dlg_gemm host = problem(16, DLG_HOST, DLG_F32);
  gpu_present = 1;
  ck_assert_ptr_eq(PICK(host, DLGEMM_BACKEND_CUDA, DLG_FORCE_CPU), &fake_gpu);
  ck_assert_ptr_eq(PICK(host, DLGEMM_BACKEND_CPU, DLG_FORCE_GPU), &dlg_backend_cpu);
  gpu_present = 0;
  ck_assert_ptr_null(PICK(host, DLGEMM_BACKEND_CUDA, DLG_FORCE_AUTO));
  ck_assert_ptr_null(PICK(host, DLGEMM_BACKEND_HIP, DLG_FORCE_AUTO));
  ck_assert(strstr(dlgemm_last_error(), "hip backend is not built"));
}
END_TEST

/* Factorizations: a GPU with a factor entry that pays from n = 384 up, and
 * a count of its probes (a small factorization must not start the GPU). */
static int probes;
static int counting_probe(char *why, size_t n)
{
  probes++;
  return fake_probe(why, n);
}
static dlgemm_status fake_factor(struct dlg_factor *f)
{
  (void)f;
  return DLGEMM_OK;
}
static int fake_factor_pays(const struct dlg_factor *f, char *why, size_t n)
{
  snprintf(why, n, "fake size test");
  return f->n >= 384;
}
static const dlg_backend factor_gpu = {"factor-gpu", DLGEMM_BACKEND_CUDA, counting_probe,
                                       fake_supports, fake_run, NULL, fake_factor,
                                       fake_factor_pays};
static const dlg_backend *const with_factor[] = {&fake_gpu, &factor_gpu, &dlg_backend_cpu};

static const dlg_backend *pick_factor(int n, dlg_force force, char *why)
{
  dlg_factor f = {.kind = DLG_GETRF, .dtype = DLG_F64, .m = n, .n = n, .lda = n, .origin = "dgetrf_"};
  dlg_config cfg = {0, force, DLG_DEFAULT_MIN_MNK, NULL};
  return route_pick_factor_from(&f, &cfg, with_factor, 3, why, 160);
}

START_TEST(factorizations_by_size_and_force)
{
  char why[160];
  gpu_present = 1, probes = 0;
  ck_assert_ptr_null(pick_factor(100, DLG_FORCE_AUTO, why)); /* the next LAPACK */
  ck_assert(strstr(why, "fake size test"));
  ck_assert_int_eq(probes, 0); /* decided without starting the GPU */
  ck_assert_ptr_eq(pick_factor(4096, DLG_FORCE_AUTO, why), &factor_gpu); /* fake_gpu has none */
  ck_assert_ptr_null(pick_factor(4096, DLG_FORCE_CPU, why));
  ck_assert(strstr(why, "DLGEMM_FORCE=cpu"));
  ck_assert_ptr_eq(pick_factor(2, DLG_FORCE_GPU, why), &factor_gpu);
  ck_assert(strstr(why, "DLGEMM_FORCE=gpu"));
  gpu_present = 0;
  ck_assert_ptr_null(pick_factor(4096, DLG_FORCE_GPU, why));
  ck_assert(strstr(why, "no usable GPU"));
  ck_assert_ptr_null(route_pick_factor_from(&(dlg_factor){DLG_POTRF, DLG_F32, 999, 999},
                                            &(dlg_config){0, DLG_FORCE_GPU}, cpu_only, 1, why, 160));
}
END_TEST

static void reload(void *unused)
{
  (void)unused;
  dlg_config_reload();
}

/* Run dlg_config_reload() with stderr captured into buf. */
static void reload_capturing(char *buf, size_t len) { capture_stderr(reload, NULL, buf, len); }

/* A backend's cost model routes host calls, unless DLGEMM_MIN_MNK was set
 * or DLGEMM_FORCE decides. */
START_TEST(cost_model_routes_unless_overridden)
{
  char why[160];
  dlg_gemm small = problem(256, DLG_HOST, DLG_F32), big = problem(600, DLG_HOST, DLG_F32);
  dlg_config cfg = {0, DLG_FORCE_AUTO, DLG_DEFAULT_MIN_MNK, NULL};
  gpu_present = 1;
  ck_assert_ptr_eq(route_pick_from(&big, DLGEMM_BACKEND_AUTO, &cfg, with_model, 2, why, 160),
                   &modelled_gpu);
  ck_assert_str_eq(why, "fake model");
  ck_assert_ptr_eq(route_pick_from(&small, DLGEMM_BACKEND_AUTO, &cfg, with_model, 2, why, 160),
                   &dlg_backend_cpu);
  cfg.min_mnk_set = 1, cfg.min_mnk = 1e6; /* 256^3 > 1e6: the threshold, not the model */
  ck_assert_ptr_eq(route_pick_from(&small, DLGEMM_BACKEND_AUTO, &cfg, with_model, 2, why, 160),
                   &modelled_gpu);
  ck_assert(strstr(why, "DLGEMM_MIN_MNK"));
  cfg.min_mnk_set = 0, cfg.force = DLG_FORCE_GPU;
  ck_assert_ptr_eq(route_pick_from(&small, DLGEMM_BACKEND_AUTO, &cfg, with_model, 2, why, 160),
                   &modelled_gpu);
  cfg.force = DLG_FORCE_CPU;
  ck_assert_ptr_eq(route_pick_from(&big, DLGEMM_BACKEND_AUTO, &cfg, with_model, 2, why, 160),
                   &dlg_backend_cpu);
}
END_TEST

START_TEST(engine_settings_parse)
{
  char err[2048];
  const dlg_config *cfg;
  setenv("DLGEMM_INJECT_FAULT", "launch:7", 1);
  setenv("DLGEMM_PINNED_MB", "64", 1);
  setenv("DLGEMM_COPY_THREADS", "3", 1);
  reload_capturing(err, sizeof err);
  cfg = dlg_config_get();
  ck_assert_int_eq(cfg->fault, DLG_FAULT_LAUNCH);
  ck_assert_int_eq(cfg->fault_at, 7);
  ck_assert(cfg->pinned_mb == 64);
  ck_assert_int_eq(cfg->copy_threads, 3);
  ck_assert_str_eq(err, "");
  setenv("DLGEMM_INJECT_FAULT", "meteor:1", 1);
  reload_capturing(err, sizeof err);
  ck_assert_int_eq(cfg->fault, DLG_FAULT_NONE);
  ck_assert_msg(strstr(err, "ignoring DLGEMM_INJECT_FAULT='meteor:1'"), "stderr: %s", err);
  unsetenv("DLGEMM_INJECT_FAULT");
  unsetenv("DLGEMM_PINNED_MB");
  unsetenv("DLGEMM_COPY_THREADS");
  reload_capturing(err, sizeof err);
}
END_TEST

START_TEST(bad_environment_is_reported_and_ignored)
{
  char err[2048];
  const dlg_config *cfg;
  setenv("DLGEMM_FORCE", "sometimes", 1);
  setenv("DLGEMM_MIN_MNK", "lots", 1);
  setenv("DLGEMM_VERBOSE", "maybe", 1);
  setenv("DLGEMM_SGEMM_TILE", "128x", 1);
  setenv("DLGEMM_FP32_MODE", "sloppy", 1);
  setenv("DLGEMM_SGEMM_STREAMK", "sideways", 1);
  setenv("DLGEMM_WGMMA_WIDTH", "96", 1);
  setenv("DLGEMM_HMMA_TILE", "16", 1);
  reload_capturing(err, sizeof err);
  cfg = dlg_config_get();
  ck_assert_int_eq(cfg->force, DLG_FORCE_AUTO);
  ck_assert(cfg->min_mnk == DLG_DEFAULT_MIN_MNK);
  ck_assert_int_eq(cfg->verbose, 0);
  ck_assert_msg(strstr(err, "ignoring DLGEMM_FORCE='sometimes'"), "stderr: %s", err);
  ck_assert(strstr(err, "ignoring DLGEMM_MIN_MNK='lots'"));
  ck_assert(strstr(err, "ignoring DLGEMM_VERBOSE='maybe'"));
  ck_assert(strstr(err, "ignoring DLGEMM_SGEMM_TILE='128x'"));
  ck_assert_int_eq(cfg->tile_bm, 0);
  ck_assert_msg(strstr(err, "ignoring DLGEMM_FP32_MODE='sloppy' (expected strict, tf32 or 3xtf32)"),
                "stderr: %s", err);
  ck_assert(strstr(err, "ignoring DLGEMM_SGEMM_STREAMK='sideways'"));
  ck_assert_int_eq(cfg->fp32_mode, DLGEMM_PRECISION_STRICT);
  ck_assert_int_eq(cfg->streamk, -1);
  ck_assert(strstr(err, "ignoring DLGEMM_WGMMA_WIDTH='96' (expected auto, 256, 128, 192, "
                        "192x192, 64 or 64r)"));
  ck_assert_int_eq(cfg->wgmma_tile, 0);
  ck_assert(strstr(err, "ignoring DLGEMM_HMMA_TILE='16' (expected auto, 128, 64 or 32)"));
  ck_assert_int_eq(cfg->hmma_tile, 0);
  setenv("DLGEMM_FORCE", "GPU", 1);
  setenv("DLGEMM_FP32_MODE", "3xTF32", 1);
  setenv("DLGEMM_SGEMM_STREAMK", "off", 1);
  setenv("DLGEMM_MIN_MNK", "1e6", 1);
  setenv("DLGEMM_VERBOSE", "1", 1);
  setenv("DLGEMM_CPU_BLAS", "/opt/blas.so", 1);
  setenv("DLGEMM_SGEMM_TILE", "256x128", 1);
  setenv("DLGEMM_WGMMA_WIDTH", "192", 1);
  reload_capturing(err, sizeof err);
  ck_assert_int_eq(cfg->wgmma_tile, 3); /* 128 x 192: index 2 */
  setenv("DLGEMM_WGMMA_WIDTH", "64", 1);
  reload_capturing(err, sizeof err);
  ck_assert_int_eq(cfg->wgmma_tile, 5); /* 128 x 64: index 4 */
  setenv("DLGEMM_WGMMA_WIDTH", "64r", 1); /* the same tile, the narrow side as its rows */
  reload_capturing(err, sizeof err);
  ck_assert_int_eq(cfg->wgmma_tile, 6);
  setenv("DLGEMM_WGMMA_WIDTH", "192x192", 1);
  setenv("DLGEMM_HMMA_TILE", "32", 1);
  reload_capturing(err, sizeof err);
  ck_assert_int_eq(cfg->wgmma_tile, 4);
  ck_assert_int_eq(cfg->hmma_tile, 3); /* 32 x 32: index 2 */
  ck_assert_int_eq(cfg->tile_bm, 256);
  ck_assert_int_eq(cfg->tile_bn, 128);
  ck_assert_int_eq(cfg->force, DLG_FORCE_GPU);
  ck_assert(cfg->min_mnk == 1e6);
  ck_assert_int_eq(cfg->verbose, 1);
  ck_assert_str_eq(cfg->cpu_blas, "/opt/blas.so");
  ck_assert_int_eq(cfg->fp32_mode, DLGEMM_PRECISION_3XTF32);
  ck_assert_int_eq(cfg->streamk, 0);
  ck_assert_str_eq(err, "");
}
END_TEST

int main(void)
{
  TCase *tc = tcase_create("route");
  tcase_add_test(tc, host_calls_by_size_and_force);
  tcase_add_test(tc, factorizations_by_size_and_force);
  tcase_add_test(tc, cost_model_routes_unless_overridden);
  tcase_add_test(tc, engine_settings_parse);
  tcase_add_test(tc, unsupported_dtype_stays_on_cpu);
  tcase_add_test(tc, device_tensors_need_their_device);
  tcase_add_test(tc, requested_backend_is_never_swapped);
  tcase_add_test(tc, bad_environment_is_reported_and_ignored);
  return check_run("route", tc);
}
