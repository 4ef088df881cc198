/*
 * test_spread - host-array calls cut across several engines
 * (plugin/cuda/spread.c) through sgemm_ and dgemm_, against
 * netlib's.  ctest runs it forced onto the GPU with DLGEMM_DEVICES=0,0: one
 * GPU listed twice is two slots, each with its own engine, a second device
 * where there is none.
 *
 *   shapes  odd sizes, cut or under one granule, every transpose, alpha 1,
 *           -1 and 0.5, beta 0 (over NaN), 1 and -0.5, FP32 and FP64; the
 *           DLGEMM_VERBOSE line of a call cut in two must name both slots
 *           (and unless DLGEMM_PEER=off, panels copied from the other part);
 *   fault   one call while DLGEMM_INJECT_FAULT breaks one of its parts:
 *           the answer must still be netlib's and the fallback (or, for a
 *           refused allocation, the halved blocks) logged.
 *
 * The entries are small integers: every product and sum is exact in both
 * precisions whatever the order, so C must equal netlib's exactly.  Rows of
 * C past m must survive.  Skips (77) without a GPU: it asks the driver, not
 * the library, so that no engine call comes before the one a fault is
 * injected into.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gpu/split.h"
#include "gpu_probe.h"
#include "host_gemm.h"
#include "blas_symbols.h"

static dlg_sgemm_fn ref_sgemm;
static dlg_dgemm_fn ref_dgemm;

static double small_integer(rng *r) { return rng_int(r, 9) - 4; }

/* dlgemm's sgemm_ / dgemm_ on C, netlib's on the copy of C as it was. */
static void call(void *arg)
{
  problem *p = arg;
  problem_call(p, p->c, sgemm_, dgemm_);
  problem_call(p, p->c0, ref_sgemm, ref_dgemm);
}

/* The number of elements of C that differ from netlib's (a zero's sign
 * aside: the order of the sums decides it), padding included. */
static long differences(const problem *p, const char *what)
{
  long bad = 0;
  int i, j;
  for (j = 0; j < p->n; j++)
    for (i = 0; i < p->ldc; i++) {
      const double got = elem(p->c, p->is64, 1, p->ldc, i, j);
      const double want = elem(p->c0, p->is64, 1, p->ldc, i, j);
      if (got != want) {
        if (bad < 3) fprintf(stderr, "  C(%d,%d) = %g, netlib %g\n", i, j, got, want);
        bad++;
      }
    }
  fprintf(stderr, "%s %s %c%c m=%d n=%d k=%d alpha=%g beta=%g: %s\n", what,
          p->is64 ? "dgemm_" : "sgemm_", p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->beta,
          bad ? "DIFFERS FROM NETLIB" : "exact");
  return bad;
}

static void release(problem *p) { free(p->a), free(p->b), free(p->c), free(p->c0); }

/* The call's DLGEMM_VERBOSE line, when there is one, must name its slots:
 * under DLGEMM_DEVICES=0,0 both, where C is wide enough to be cut in two;
 * and, unless DLGEMM_PEER=off (and with no fault), a part's panels from the
 * other. */
static int named(const char *log, const problem *p, int faulty)
{
  const char *devices = getenv("DLGEMM_DEVICES"), *peer = getenv("DLGEMM_PEER");
  const int cut = (p->m > p->n ? p->m : p->n) >= 2 * DLG_SPLIT_GRANULE &&
                  devices && !strcmp(devices, "0,0");
  const char *want = cut ? "-> cuda:0+0 " : "-> cuda:", *shared = "copied between devices";
  if (!getenv("DLGEMM_VERBOSE")) return 1;
  if (!(cut && !faulty && !(peer && !strcmp(peer, "off")))) shared = want;
  if (strstr(log, want) && strstr(log, shared)) return 1;
  fprintf(stderr, "the call's line does not say '%s' and '%s':\n%s", want, shared, log);
  return 0;
}

static int shapes(rng *r)
{
  static const int dims[][3] = {{1100, 1300, 97}, {1501, 517, 33}, {300, 2049, 260},
                                {257, 255, 1},    {2600, 700, 150}, {1, 1000, 5},
                                {1000, 1, 7},     {100, 37, 300},   {640, 4100, 64}};
  static const double alphas[] = {1, -1, 0.5}, betas[] = {0, 1, -0.5};
  char log[8192];
  long bad = 0;
  int i;
  for (i = 0; i < (int)(sizeof dims / sizeof dims[0]) * 4; i++) {
    problem p;
    const int t = i % 4; /* the transposes; the type alternates from shape to shape */
    problem_make(&p, r, (t + i / 4) % 2, dims[i / 4][0], dims[i / 4][1], dims[i / 4][2],
                 "NT"[t % 2], "NT"[t / 2], alphas[i % 3], betas[i / 3 % 3], small_integer, NULL);
    capture_stderr(call, &p, log, sizeof log);
    fputs(log, stderr);
    bad += differences(&p, "split") != 0 || !named(log, &p, 0);
    release(&p);
  }
  return bad != 0;
}

static int fault(rng *r)
{
  const char *spec = getenv("DLGEMM_INJECT_FAULT");
  const int oom = spec && !strncmp(spec, "oom:", 4);
  problem p;
  char log[8192];
  long bad;
  /* beta != 0: C must not be half-read */
  problem_make(&p, r, 1, 2600, 2100, 150, 'N', 'T', 1.0, -1.0, small_integer, NULL);
  capture_stderr(call, &p, log, sizeof log);
  fputs(log, stderr);
  bad = differences(&p, "fault") + !named(log, &p, 1);
  /* a refused allocation before the part wrote C is tried again in halved
   * blocks (engine.c) rather than handed to the CPU */
  if (!strstr(log, "fallback") && !(oom && strstr(log, "blocks of C halved"))) {
    fprintf(stderr, "neither a fallback nor halved blocks were reported (DLGEMM_VERBOSE=1 and "
            "DLGEMM_INJECT_FAULT must be set)\n");
    bad++;
  }
  release(&p);
  return bad != 0;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "shapes";
  void *ref = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
  rng r = {test_seed("test_spread")};
  int rc;
  if (!driver_has_gpu()) {
    printf("SKIP: test_spread %s needs an NVIDIA GPU\n", mode);
    return 77;
  }
  if (!ref || !(*(void **)&ref_sgemm = dlsym(ref, "sgemm_")) ||
      !(*(void **)&ref_dgemm = dlsym(ref, "dgemm_"))) {
    fprintf(stderr, "libblas.so.3 (Debian libblas3) is needed: %s\n", dlerror());
    return 1;
  }
  rc = !strcmp(mode, "fault") ? fault(&r) : shapes(&r);
  printf("test_spread %s (DLGEMM_DEVICES=%s): %s\n", mode,
         getenv("DLGEMM_DEVICES") ? getenv("DLGEMM_DEVICES") : "unset", rc ? "FAILED" : "passed");
  return rc;
}
