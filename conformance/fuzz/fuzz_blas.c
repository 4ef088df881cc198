/*
 * fuzz_blas - libFuzzer target for the BLAS shims: sgemm_ and dgemm_ of
 * libdlgemm.so against netlib's (libblas.so.3, opened alone), on the same
 * arguments: the same reports to xerbla_ (routine and parameter number)
 * and C bit for bit the same (where dlgemm forwards, it must be netlib's
 * answer exactly).  Arrays are allocated at exactly the size the
 * arguments make legal, so AddressSanitizer sees a read one element past
 * them; alpha, beta and the arrays are NULL on calls where the reference
 * reads none of them (illegal arguments, M or N of 0).
 */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blas_symbols.h"

typedef void (*gemm_fn)(const char *, const char *, const int *, const int *, const int *,
                        const void *, const void *, const int *, const void *, const int *,
                        const void *, void *, const int *, size_t, size_t);

static struct { int n; char who[8]; int info; } seen;

/* Both libraries report here (the program's XERBLA wins over the BLAS's own). */
void xerbla_(const char *srname, const int *info, size_t len)
{
  if (!seen.n++) {
    snprintf(seen.who, sizeof seen.who, "%.*s", (int)(len < 6 ? len : 6), srname);
    seen.info = *info;
  }
}

static int legal(char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc)
{
  /* the reference's checks, from its source's documentation */
  int nota = ta == 'N' || ta == 'n', notb = tb == 'N' || tb == 'n';
  int ta_ok = nota || strchr("TtCc", ta), tb_ok = notb || strchr("TtCc", tb);
  int nrowa = nota ? m : k, nrowb = notb ? k : n;
  return ta && tb && ta_ok && tb_ok && m >= 0 && n >= 0 && k >= 0 &&
         lda >= (nrowa > 1 ? nrowa : 1) && ldb >= (nrowb > 1 ? nrowb : 1) &&
         ldc >= (m > 1 ? m : 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static gemm_fn ref[2];
  static const char trans[8] = "NTCntcX";
  static const double scalars[8] = {1, 0, -0.75, 2, NAN, INFINITY, -0.0, 3};
  size_t pos = 0;
#define NEXT() (pos < size ? data[pos++] : 0)
  const int dbl = NEXT() & 1;
  const size_t es = dbl ? 8 : 4;
  const char ta = trans[NEXT() % 8], tb = trans[NEXT() % 8];
  const int m = NEXT() % 12 - 2, n = NEXT() % 12 - 2, k = NEXT() % 12 - 2;
  const int lda = NEXT() % 14 - 1, ldb = NEXT() % 14 - 1, ldc = NEXT() % 14 - 1;
  const double al = scalars[NEXT() % 8], be = scalars[NEXT() % 8];
  const float alf = (float)al, bef = (float)be;
  const int ok = legal(ta, tb, m, n, k, lda, ldb, ldc), reads = ok && m > 0 && n > 0;
  const int nota = ta == 'N' || ta == 'n', notb = tb == 'N' || tb == 'n';
  size_t na = 0, nb = 0, nc = 0;
  char *a = NULL, *b = NULL, *c[2] = {NULL, NULL};
  const void *alpha = dbl ? (const void *)&al : (const void *)&alf;
  const void *beta = dbl ? (const void *)&be : (const void *)&bef;
  int seen_n[2], seen_info[2], r;
  char seen_who[2][8];
  if (!ref[0]) {
    void *h = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h) abort();
    ref[0] = (gemm_fn)dlsym(h, "sgemm_"), ref[1] = (gemm_fn)dlsym(h, "dgemm_");
  }
  if (reads) { /* exactly the elements a legal call may touch */
    na = (size_t)lda * (size_t)(nota ? k : m);
    nb = (size_t)ldb * (size_t)(notb ? n : k);
    nc = (size_t)ldc * (size_t)n;
    a = malloc(na * es + 1), b = malloc(nb * es + 1);
    c[0] = malloc(nc * es + 1), c[1] = malloc(nc * es + 1);
    for (size_t i = 0; i < na * es; i++) a[i] = (char)(NEXT() % 5 == 4 ? 0xff : 0x3f);
    for (size_t i = 0; i < nb * es; i++) b[i] = (char)(NEXT() % 5 == 4 ? 0xff : 0x3e);
    for (size_t i = 0; i < nc * es; i++) c[0][i] = (char)(NEXT() % 3 == 2 ? 0xff : 0x3d);
    memcpy(c[1], c[0], nc * es);
  } else {
    alpha = beta = NULL; /* the reference reads neither */
  }
  for (r = 0; r < 2; r++) {
    memset(&seen, 0, sizeof seen);
    if (r == 0 && dbl) dgemm_(&ta, &tb, &m, &n, &k, alpha, (void *)a, &lda, (void *)b, &ldb, beta, (void *)c[0], &ldc, 1, 1);
    if (r == 0 && !dbl) sgemm_(&ta, &tb, &m, &n, &k, alpha, (void *)a, &lda, (void *)b, &ldb, beta, (void *)c[0], &ldc, 1, 1);
    if (r == 1) ref[dbl](&ta, &tb, &m, &n, &k, alpha, a, &lda, b, &ldb, beta, c[1], &ldc, 1, 1);
    seen_n[r] = seen.n, seen_info[r] = seen.info;
    memcpy(seen_who[r], seen.who, sizeof seen.who);
  }
  if (seen_n[0] != seen_n[1] || seen_info[0] != seen_info[1] || strcmp(seen_who[0], seen_who[1]))
    __builtin_trap(); /* a different report from the reference's */
  if (seen_n[0] != !ok) __builtin_trap(); /* the oracle's own reading of the rules */
  if (reads && memcmp(c[0], c[1], nc * es)) __builtin_trap(); /* not netlib's answer */
  free(a), free(b), free(c[0]), free(c[1]);
  return 0;
}
