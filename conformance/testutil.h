/*
 * testutil.h - what the conformance tests share: a seeded random generator,
 * an FP64 reference product over strided views, and the error bound a
 * correctly rounded-per-operation GEMM must meet.
 */
#ifndef DLG_TESTUTIL_H
#define DLG_TESTUTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct rng { uint64_t s; } rng;

static inline uint64_t rng_next(rng *r)
{
  r->s ^= r->s << 13;
  r->s ^= r->s >> 7;
  r->s ^= r->s << 17;
  return r->s;
}
static inline int rng_int(rng *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }
/* Uniform in [-1, 1): no zeros-only data that hides indexing errors. */
static inline double rng_unit(rng *r)
{
  return (double)(rng_next(r) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* A seed that differs per run, printed so a failure can be replayed with
 * DLGEMM_TEST_SEED. */
static inline uint64_t test_seed(const char *who)
{
  const char *env = getenv("DLGEMM_TEST_SEED");
  uint64_t s = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) * 2654435761u + 1;
  if (!s) s = 1;
  fprintf(stderr, "%s: seed %llu (replay with DLGEMM_TEST_SEED)\n", who, (unsigned long long)s);
  return s;
}

/* This process's resident memory in kB (-1 if /proc says nothing), for the
 * tests that hold it flat over long runs. */
static inline long rss_kb(void)
{
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
  if (f) fclose(f);
  return kb;
}

/* Run fn(arg) with everything it writes to stderr (fd 2, so the library's
 * DLGEMM_VERBOSE lines too) captured into buf instead. */
static inline void capture_stderr(void (*fn)(void *), void *arg, char *buf, size_t len)
{
  FILE *tmp = tmpfile();
  int saved = dup(2);
  size_t got;
  fflush(stderr);
  dup2(fileno(tmp), 2);
  fn(arg);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(tmp);
  got = fread(buf, 1, len - 1, tmp);
  buf[got] = '\0';
  fclose(tmp);
}

/* C = A B for column-major m x k, k x n, m x n float operands whose values
 * are small integers: every product and sum is exact in float, so whoever
 * computed C must match this loop bit for bit.  1 when it does. */
static inline int exact_product_ok(const float *c, const float *a, const float *b, int m, int n,
                                   int k)
{
  int i, j, l;
  for (j = 0; j < n; j++)
    for (i = 0; i < m; i++) {
      double s = 0;
      for (l = 0; l < k; l++) s += (double)a[i + l * m] * b[l + j * k];
      if (c[i + j * m] != (float)s) return 0;
    }
  return 1;
}

/* Element (i, j) of a strided matrix as double. */
static inline double elem(const void *p, int is64, int64_t rs, int64_t cs, int64_t i, int64_t j)
{
  return is64 ? ((const double *)p)[i * rs + j * cs] : (double)((const float *)p)[i * rs + j * cs];
}

/* Check C against alpha*A*B + beta*C0 computed in long double (so that the
 * reference's own rounding is negligible even for float64); the bound is the
 * classic one for a dot product of length k in precision eps (with k+2
 * roundings for alpha and beta), against the magnitudes that were summed.
 * beta == 0 ignores C0 entirely (NaN there must not show).  Returns the
 * number of elements outside the bound and prints the first few. */
static inline long check_product(int is64, int64_t m, int64_t n, int64_t k, double alpha,
                                 const void *a, int64_t ars, int64_t acs, const void *b,
                                 int64_t brs, int64_t bcs, double beta, const void *c0,
                                 const void *c, int64_t crs, int64_t ccs, double slack)
{
  const double eps = is64 ? 1.1102230246251565e-16 : 5.9604644775390625e-08;
  long bad = 0;
  int64_t i, j, l;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      long double ref = 0, mag = 0, bound;
      double got = elem(c, is64, crs, ccs, i, j);
      for (l = 0; l < k; l++) {
        long double x =
            (long double)elem(a, is64, ars, acs, i, l) * elem(b, is64, brs, bcs, l, j);
        ref += x;
        mag += fabsl(x);
      }
      ref *= alpha;
      mag *= fabs(alpha);
      if (beta != 0) {
        long double c0v = elem(c0, is64, crs, ccs, i, j);
        ref += beta * c0v;
        mag += fabsl(beta * c0v);
      }
      bound = slack * (long double)(k + 2) * eps * mag + 1e-300L;
      if (!(fabsl(got - ref) <= bound)) {
        if (bad < 5)
          fprintf(stderr, "  C(%lld,%lld) = %.17g, expected %.17Lg (bound %.3Lg)\n",
                  (long long)i, (long long)j, got, ref, bound);
        bad++;
      }
    }
  return bad;
}

#endif
