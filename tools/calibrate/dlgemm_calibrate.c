/*
 * dlgemm-calibrate - measure again, on this machine, the constants behind
 * dlgemm's routing of host-array calls (link and staging bandwidth, kernel
 * rates, per-call overhead, the next BLAS's rate), store them in the cache
 * ($XDG_CACHE_HOME/dlgemm/) and print them.
 *
 * It asks through the public path: one sgemm_ with DLGEMM_CALIBRATE=1 and
 * DLGEMM_VERBOSE=1, which makes the router measure before it decides.
 */
#include <stdio.h>
#include <stdlib.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

int main(void)
{
  static float a[256 * 256], b[256 * 256], c[256 * 256];
  const int n = 256;
  const float one = 1, zero = 0;
  /* The model is consulted only when nothing overrides it. */
  unsetenv("DLGEMM_FORCE");
  unsetenv("DLGEMM_MIN_MNK");
  setenv("DLGEMM_CALIBRATE", "1", 1);
  setenv("DLGEMM_VERBOSE", "1", 1);
  sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
  return 0;
}
