/* consumer - links an installed libdlgemm and multiplies 2x2 matrices. */
#include <stdio.h>
#include <dlgemm.h>

int main(void)
{
  double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
  int64_t shape[2] = {2, 2};
  DLTensor ta = {a, {kDLCPU, 0}, 2, {kDLFloat, 64, 1}, shape, NULL, 0};
  DLTensor tb = {b, {kDLCPU, 0}, 2, {kDLFloat, 64, 1}, shape, NULL, 0};
  DLTensor tc = {c, {kDLCPU, 0}, 2, {kDLFloat, 64, 1}, shape, NULL, 0};
  dlgemm_status st = dlgemm_matmul(&ta, &tb, &tc, 1.0, 0.0, NULL);
  printf("dlgemm %s: [%g %g; %g %g]\n", dlgemm_version(), c[0], c[1], c[2], c[3]);
  return st != DLGEMM_OK || c[0] != 19 || c[1] != 22 || c[2] != 43 || c[3] != 50;
}
