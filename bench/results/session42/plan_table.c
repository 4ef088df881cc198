/* plan_table.c - session 42: dgemm.c's plan_for on the host, for the shapes of
 * QR's panel and trailing products and the sweep's fitted cells (H100: 132 SMs,
 * two blocks an SM of every tile).  Built against a copy of dgemm.c (SRC) and
 * the build's other objects:
 *   gcc -DDLGEMM_HAVE_CUDA -D_GNU_SOURCE -I/usr/local/cuda/include -I. -Iabi -Iplugin \
 *     -DSRC='"/tmp/ext.c"' plan_table.c <build's objects but dgemm.c.o> -ldl -lpthread -lm \
 *     -Wl,--unresolved-symbols=ignore-all
 * plan_table.txt: HEAD's chunk list (1-8) on the left, 1-64 on the right. */
#include SRC
#include <stdio.h>
int main(void)
{
  dlg_cuda_device dev;
  static const long long sh[][3] = {
    {32,32,16384},{16,16,16384},{32,32,8192},{16,16,8192},{32,32,2048},{8,8,16384},
    {64,16320,16384},{64,8128,8192},{64,2048,16384},{64,1024,16384},{64,512,16384},{64,256,16384},{64,128,16384},
    {64,16320,64},{16384,16320,64},{8192,8128,64},{16384,32,32},{32,32,4096},{64,64,16384},{64,64,4096},
    {32,4096,4096},{48,4096,4096},{96,4096,4096},{192,4096,4096},{256,4096,4096},{384,4096,4096},{24,4096,4096},{4096,4096,4096},{1000,1000,1000}};
  size_t i;
  memset(&dev, 0, sizeof dev);
  dev.sms = 132;
  for (i = 0; i < 4; i++) dev.dgemm_occ[i] = 2;
  for (i = 0; i < sizeof sh / sizeof *sh; i++) {
    dlg_dgemm_args a;
    dmma_plan p;
    memset(&a, 0, sizeof a);
    a.m = (int)sh[i][0], a.n = (int)sh[i][1], a.k = (int)sh[i][2];
    p = plan_for(&dev, &a, 1);
    printf("%6d %6d %6d  shape %d splits %2d  %.1f us\n", a.m, a.n, a.k, p.shape, p.splits, 1e6 * plan_time(&dev, &a, 1, p));
  }
  return 0;
}
