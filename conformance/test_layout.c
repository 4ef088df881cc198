/*
 * test_layout - the block-cyclic arithmetic of plugin/dist/layout.h against
 * a count made entry by entry: how many rows a process holds (numroc), the
 * global index of a local one, and where the lower triangle's blocks begin
 * in a local block column (what PxPOTRF moves to the GPU and back).  A
 * wrong row there would leave part of the factor on the host unwritten or
 * overwrite the upper triangle, which ScaLAPACK leaves as it was; the GPU
 * runs (scalapack_dist.sh, pdbench.sh) would see that only on a GPU, so the
 * arithmetic is checked here over every small grid and block size.
 */
#include <stdint.h>
#include "check_run.h"
#include "dist/layout.h"

/* The process row holding global row i, and its local index there. */
static int owner(int64_t i, int64_t nb, int procs) { return (int)(i / nb % procs); }
static int64_t local_of(int64_t i, int64_t nb, int procs)
{
  return i / nb / procs * nb + i % nb;
}

START_TEST(numroc_and_global_of_match_a_count)
{
  int64_t n, nb, l;
  int procs, proc;
  for (n = 0; n <= 70; n++)
    for (nb = 1; nb <= 9; nb++)
      for (procs = 1; procs <= 5; procs++)
        for (proc = 0; proc < procs; proc++) {
          int64_t count = 0, i;
          for (i = 0; i < n; i++)
            if (owner(i, nb, procs) == proc) {
              ck_assert_int_eq(local_of(i, nb, procs), count);
              ck_assert_int_eq(dlg_global_of(count, proc, procs, nb), i);
              count++;
            }
          ck_assert_int_eq(dlg_numroc(n, nb, proc, procs), count);
          for (l = 0; l < count; l++) ck_assert_int_lt(dlg_global_of(l, proc, procs, nb), n);
        }
}
END_TEST

/* For every local column, a local row is at or below from dlg_lower_from
 * exactly where its global block row is at or below the column's global
 * block column: so every entry of the lower triangle moves, and of the
 * upper one only those in diagonal blocks (which PxPOTRF does not change). */
START_TEST(lower_from_splits_each_block_column_at_its_diagonal_block)
{
  int64_t n, nb;
  int p, q, row, col;
  for (n = 1; n <= 40; n += 3)
    for (nb = 1; nb <= 7; nb++)
      for (p = 1; p <= 4; p++)
        for (q = 1; q <= 4; q++)
          for (row = 0; row < p; row++)
            for (col = 0; col < q; col++) {
              const int64_t rows = dlg_numroc(n, nb, row, p), cols = dlg_numroc(n, nb, col, q);
              int64_t l, j;
              for (j = 0; j < cols; j++) {
                const int64_t from = dlg_lower_from(j, row, p, col, q, nb);
                const int64_t jg = dlg_global_of(j, col, q, nb);
                ck_assert_int_eq(from % nb, 0);
                for (l = 0; l < rows; l++) {
                  const int64_t ig = dlg_global_of(l, row, p, nb);
                  ck_assert_int_eq(l >= from, ig / nb >= jg / nb);
                  if (ig >= jg) ck_assert_int_ge(l, from); /* the triangle itself */
                }
              }
            }
}
END_TEST

int main(void)
{
  TCase *tc = tcase_create("layout");
  tcase_add_test(tc, numroc_and_global_of_match_a_count);
  tcase_add_test(tc, lower_from_splits_each_block_column_at_its_diagonal_block);
  return check_run("layout", tc);
}
