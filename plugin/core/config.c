/*
 * config.c - parse DLGEMM_* environment variables.
 *
 * Read lazily on first use rather than in a constructor, so that a program
 * that sets them with setenv() before its first GEMM is obeyed.  A value that
 * does not parse is reported once on stderr and the default stands: a typo in
 * an environment variable must not take down a numerical program.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "core/config.h"

static dlg_config config;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t reload_lock = PTHREAD_MUTEX_INITIALIZER;

static void complain(const char *name, const char *value, const char *expected)
{
  fprintf(stderr, "dlgemm: ignoring %s='%s' (expected %s)\n", name, value, expected);
}

static int parse_bool(const char *name, int fallback)
{
  const char *v = getenv(name);
  if (!v || !*v) return fallback;
  if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "on"))
    return 1;
  if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcasecmp(v, "off"))
    return 0;
  complain(name, v, "0 or 1");
  return fallback;
}

/* The index in words[] (n of them) of the word the variable holds, any
 * case; unset or empty gives 0, the default, which words[0] names. */
static int parse_choice(const char *name, const char *const *words, int n, const char *expected)
{
  const char *v = getenv(name);
  int i;
  if (!v || !*v) return 0;
  for (i = 0; i < n; i++)
    if (!strcasecmp(v, words[i])) return i;
  complain(name, v, expected);
  return 0;
}
#define PARSE_CHOICE(name, expected, ...) \
  parse_choice(name, (const char *const[]){__VA_ARGS__}, \
               (int)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *)), expected)

static double parse_nonnegative(const char *name, double fallback)
{
  const char *v = getenv(name);
  char *end;
  double x;
  if (!v || !*v) return fallback;
  errno = 0;
  x = strtod(v, &end);
  if (errno || *end || !(x >= 0)) {
    complain(name, v, "a number >= 0");
    return fallback;
  }
  return x;
}

/* "<BM>x<BN>" or auto; whether such a tile exists is the CUDA backend's
 * business (a pin it has no kernel for leaves the choice to its model). */
static void parse_tile(int *bm, int *bn)
{
  const char *v = getenv("DLGEMM_SGEMM_TILE");
  char tail;
  *bm = *bn = 0;
  if (!v || !*v || !strcasecmp(v, "auto")) return;
  if (sscanf(v, "%dx%d%c", bm, bn, &tail) != 2 || *bm <= 0 || *bn <= 0) {
    complain("DLGEMM_SGEMM_TILE", v, "<BM>x<BN>, e.g. 128x256, or auto");
    *bm = *bn = 0;
  }
}

static long fault_count[DLG_FAULT_RANDOM];
static uint64_t draws; /* random:<n>'s xorshift state, seeded by the process */
static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int fault_held;

void dlg_fault_hold(int on) { fault_held = on; }

int dlg_fault_injected(int what)
{
  const dlg_config *cfg = dlg_config_get();
  int hit;
  if (fault_held || (cfg->fault != DLG_FAULT_RANDOM && (int)cfg->fault != what)) return 0;
  pthread_mutex_lock(&fault_lock);
  if (cfg->fault == DLG_FAULT_RANDOM) { /* the soak's: xorshift seeded by the process */
    if (!draws) draws = 0x9e3779b97f4a7c15ull ^ ((uint64_t)getpid() << 20);
    draws ^= draws << 13, draws ^= draws >> 7, draws ^= draws << 17;
    hit = draws % (uint64_t)cfg->fault_at == 0;
  } else {
    hit = ++fault_count[what] == cfg->fault_at;
  }
  pthread_mutex_unlock(&fault_lock);
  return hit;
}

/* oom|launch|copy|workspace:<n>, n >= 1: the n-th of its kind (workspace:
 * a device-tensor call's); random:<n>: one of any kind in n, at random,
 * for as long as the process runs (conformance/soak.c) */
static void parse_fault(void)
{
  static const char *const kinds[] = {"", "oom", "launch", "copy", "workspace", "random"};
  const char *v = getenv("DLGEMM_INJECT_FAULT");
  char word[16], tail;
  long at;
  int i;
  config.fault = DLG_FAULT_NONE, config.fault_at = 0;
  memset(fault_count, 0, sizeof fault_count); /* a reload starts counting again */
  if (!v || !*v) return;
  if (sscanf(v, "%15[a-z]:%ld%c", word, &at, &tail) == 2 && at >= 1)
    for (i = 1; i <= DLG_FAULT_RANDOM; i++)
      if (!strcmp(word, kinds[i])) {
        config.fault = i, config.fault_at = at;
        return;
      }
  complain("DLGEMM_INJECT_FAULT", v, "oom:<n>, launch:<n>, copy:<n>, workspace:<n> or random:<n>");
}

/* DLGEMM_DEVICES: ordinals 0 to DLG_MAX_DEVICES - 1, comma-separated,
 * spaces allowed around them; whether they exist is the backend's question
 * (the driver is not loaded here).  Anything else leaves the list empty:
 * the default choice stands. */
static void parse_devices(void)
{
  const char *v = getenv("DLGEMM_DEVICES"), *p = v;
  char *end;
  long d;
  config.ndevices = 0;
  if (!v || !*v) return;
  for (;;) {
    while (*p == ' ') p++;
    if (*p < '0' || *p > '9' || config.ndevices == DLG_MAX_DEVICES) break;
    errno = 0;
    d = strtol(p, &end, 10);
    if (errno || d >= DLG_MAX_DEVICES) break;
    config.devices[config.ndevices++] = (int)d;
    p = end;
    while (*p == ' ') p++;
    if (!*p) return;
    if (*p++ != ',') break;
  }
  config.ndevices = 0;
  complain("DLGEMM_DEVICES", v, "CUDA device ordinals from 0 to 15 separated by commas, e.g. 0,1; "
           "using the default devices");
}

static void load(void)
{
  const char *blas = getenv("DLGEMM_CPU_BLAS"), *blas64 = getenv("DLGEMM_CPU_BLAS64");
  double walk_rows, narrow_splits, wgmma_splits, pblas_block;
  config.verbose = parse_bool("DLGEMM_VERBOSE", 0);
  config.force = (dlg_force)PARSE_CHOICE("DLGEMM_FORCE", "auto, cpu or gpu", "auto", "cpu", "gpu");
  config.min_mnk = parse_nonnegative("DLGEMM_MIN_MNK", DLG_DEFAULT_MIN_MNK);
  config.cpu_blas = (blas && *blas) ? blas : NULL;
  config.cpu_blas64 = (blas64 && *blas64) ? blas64 : NULL;
  parse_tile(&config.tile_bm, &config.tile_bn);
  /* sgpr: the GCN kernel's port, for measurements */
  config.sgemm_sgpr = PARSE_CHOICE("DLGEMM_SGEMM_KERNEL", "simt or sgpr", "simt", "sgpr");
  config.streamk = (const int[]){-1, 1, 0}[PARSE_CHOICE("DLGEMM_SGEMM_STREAMK", "auto, on or off",
                                                        "auto", "on", "off")];
  config.dgemm_tail = (const int[]){-1, 1, 0}[PARSE_CHOICE("DLGEMM_DGEMM_TAIL", "auto, on or off",
                                                           "auto", "on", "off")];
  config.dgemm_tma = !PARSE_CHOICE("DLGEMM_DGEMM_TMA", "auto or off", "auto", "off");
  config.dgemm_tile = PARSE_CHOICE("DLGEMM_DGEMM_TILE", "auto, wide, thin or flat", "auto", "wide",
                                   "thin", "flat") - 1;
  config.dgemm_splits = (int)parse_nonnegative("DLGEMM_DGEMM_SPLITS", 0);
  /* the tensor-core family, for tests and measurements; wgmma still needs
   * sm_90a and TMA-legal operands */
  config.hgemm_kernel = PARSE_CHOICE("DLGEMM_HGEMM_KERNEL", "auto, mma or wgmma", "auto", "mma",
                                     "wgmma");
  /* the wgmma tile, by its index in hgemm_args.h's DLG_WGMMA_BN / _BM */
  config.wgmma_tile = PARSE_CHOICE("DLGEMM_WGMMA_WIDTH",
                                   "auto, 256, 128, 192, 192x192, 64 or 64r", "auto", "256",
                                   "128", "192", "192x192", "64", "64r");
  /* the mma.sync tile, by its index in hgemm_args.h's DLG_HMMA_BM */
  config.hmma_tile = PARSE_CHOICE("DLGEMM_HMMA_TILE", "auto, 128, 64 or 32", "auto", "128", "64",
                                  "32");
  walk_rows = parse_nonnegative("DLGEMM_WGMMA_WALK_ROWS", 16);
  config.wgmma_walk_rows = walk_rows >= 1 && walk_rows <= 1024 ? (int)walk_rows : 16;
  config.wgmma_pairs = (const int[]){1, 2, 0}[PARSE_CHOICE("DLGEMM_WGMMA_PAIRS", "auto, on or off",
                                                            "auto", "on", "off")];
  /* a pinned split-K of the wgmma kernels (hgemm.c), for tests and measurements */
  wgmma_splits = parse_nonnegative("DLGEMM_WGMMA_SPLITS", 0);
  config.wgmma_splits = wgmma_splits <= 64 ? (int)wgmma_splits : 64;
  /* how sgemm_ / cblas_sgemm may compute (DLPack callers choose per call) */
  config.fp32_mode = (dlgemm_precision)PARSE_CHOICE("DLGEMM_FP32_MODE", "strict, tf32 or 3xtf32",
                                                    "strict", "tf32", "3xtf32");
  /* the narrow kernels (plugin/cuda/device/narrow.c): an escape hatch, and
   * a pinned split for tests and measurements */
  config.narrow = parse_bool("DLGEMM_NARROW", 1);
  /* float32 17 to 32 wide on the narrow kernels' 32-column bucket
   * (narrow.c): auto where measured to win, on / off for measurements */
  config.narrow32 = PARSE_CHOICE("DLGEMM_NARROW32", "auto, on or off", "auto", "on", "off");
  /* complex products on the narrow kernels (narrow.c): off until measured
   * on a GPU, on for tests and measurements */
  config.narrow_complex = PARSE_CHOICE("DLGEMM_NARROW_COMPLEX", "off or on", "off", "on");
  /* a complex product's embedding pinned (plugin/cuda/level3/cgemm.c), so
   * that its model's choice can be measured against each of the others */
  config.cgemm_way = PARSE_CHOICE("DLGEMM_CGEMM_WAY",
                                  "auto, expand, split, expand_t, split_t, native, embed, smallk or simt",
                                  "auto", "expand", "split", "expand_t", "split_t", "native", "embed",
                                  "smallk", "simt");
  /* the complex DMMA kernels' tile (zdmma.c), for measurements */
  config.zgemm_tile = PARSE_CHOICE("DLGEMM_ZGEMM_TILE", "auto, 64x64 or 32x32", "auto", "64x64",
                                   "32x32");
  /* the tiny kernels (plugin/cuda/device/tiny.c): where measured to win,
   * every product they can take (tests), or none */
  config.tiny = (const int[]){1, 2, 0, 1, 0}[PARSE_CHOICE("DLGEMM_TINY", "auto, on or off", "auto",
                                                         "on", "off", "1", "0")];
  /* their piece of C a thread, pinned, for measurements: 2 x 2 takes only
   * products up to 32 x 32 (the others stay 4 x 4) */
  config.tiny_r = (const int[]){0, 2, 4}[PARSE_CHOICE("DLGEMM_TINY_R", "auto, 2 or 4", "auto", "2",
                                                       "4")];
  narrow_splits = parse_nonnegative("DLGEMM_NARROW_SPLITS", 0);
  config.narrow_splits = narrow_splits <= 65535 ? (int)narrow_splits : 65535;
  /* copies of misaligned operands (plugin/cuda/device/pad.c): auto, off, or
   * always (any product of at least 128 x 128 with a misaligned operand:
   * for tests of the copy) */
  config.pad = PARSE_CHOICE("DLGEMM_PAD", "auto, off or always", "auto", "off", "always");
  config.min_mnk_set = getenv("DLGEMM_MIN_MNK") && *getenv("DLGEMM_MIN_MNK");
  config.copy_threads = (int)parse_nonnegative("DLGEMM_COPY_THREADS", 0);
  config.pinned_mb = parse_nonnegative("DLGEMM_PINNED_MB", 256);
  /* how the copy threads write the staging chunks the GPU reads next: an
   * experiment (copy_pool.c), for the hosts where several GPUs' staging is
   * bound by the host's memory; it lost on the H200 machines */
  config.stage_cached = PARSE_CHOICE("DLGEMM_STAGE_STORES", "stream or cached", "stream", "cached");
  config.device_mb = parse_nonnegative("DLGEMM_DEVICE_MB", 0);
  config.recalibrate = parse_bool("DLGEMM_CALIBRATE", 0);
  /* peer copies of a split call's shared panels (cuda/spread.c): on two
   * H200s over NVLink, 1.12-1.42x the host copies (bench/NOTES.md) */
  config.peer = !PARSE_CHOICE("DLGEMM_PEER", "on or off", "on", "off");
  config.lapack_min_n = parse_nonnegative("DLGEMM_LAPACK_MIN_N", DLG_DEFAULT_LAPACK_MIN_N);
  config.level3_block = parse_nonnegative("DLGEMM_LEVEL3_BLOCK", DLG_DEFAULT_LEVEL3_BLOCK);
  if (config.level3_block < 1) config.level3_block = 1;
  pblas_block = parse_nonnegative("DLGEMM_PBLAS_BLOCK", 0);
  config.pblas_block = pblas_block <= 65536 ? (int)pblas_block : 65536;
  /* a program's cuBLAS products (shims/cublas, api/rival.c): off (default),
   * auto (each class measured against cuBLAS), on (every one dlgemm takes:
   * tests) */
  config.rival = (dlg_rival_mode)PARSE_CHOICE("DLGEMM_CUBLAS", "off, auto or on", "off", "auto",
                                              "on");
  /* ScaLAPACK's factorizations on the ranks' GPUs (plugin/dist): off
   * (default, until a measured rule decides), gpu (cuSOLVERMp where it
   * loads, else dlgemm's resident algorithm), host (that algorithm on the
   * ranks' CPUs: tests), resident (that algorithm on the GPUs) */
  config.dist = (dlg_dist_mode)PARSE_CHOICE("DLGEMM_SCALAPACK", "off, gpu, host or resident",
                                            "off", "gpu", "host", "resident");
  /* the least m, n (and k) a distributed call must have to be taken: below
   * it the copies and the NCCL setup cost more than the next ScaLAPACK's
   * run (a guess until measured; the testers set 1) */
  config.dist_min = parse_nonnegative("DLGEMM_SCALAPACK_MIN", 2048);
  parse_fault();
  parse_devices();
}

const dlg_config *dlg_config_get(void)
{
  pthread_once(&once, load);
  return &config;
}

void dlg_config_reload(void)
{
  pthread_once(&once, load);
  pthread_mutex_lock(&reload_lock);
  load();
  pthread_mutex_unlock(&reload_lock);
}
