/*
 * split.c - the cut of C across devices (split.h).
 *
 * Every device needs the panels of A for its rows of C and of B for its
 * columns.  Cutting C's longer side sends the smaller operand to every
 * device and each part of the larger to one: with m <= n, column blocks
 * copy A (m x k) P times and B (k x n) once, against B P times for row
 * blocks: P devices cost P - 1 more copies of the smaller operand, and C
 * still crosses once each way.
 *
 * Each cut is the cumulative share rounded to the nearest granule, so a
 * part is within a granule of its speed's share and the parts always
 * cover C exactly.
 */
#include <math.h>
#include "gpu/split.h"

static double share_of(double speed) { return speed > 0 && isfinite(speed) ? speed : 0.0; }

void dlg_split_plan(int64_t m, int64_t n, const double *speed, int parts, dlg_split *out)
{
  const int64_t extent = m <= n ? n : m;
  double total = 0, sum = 0;
  int p, last = -1, equal;
  if (parts > DLG_MAX_DEVICES) parts = DLG_MAX_DEVICES;
  if (parts < 1) parts = 1;
  for (p = 0; p < parts; p++)
    if (share_of(speed[p]) > 0) total += speed[p], last = p;
  equal = !(total > 0) || !isfinite(total);
  if (equal) last = parts - 1;
  out->cols = m <= n, out->parts = parts, out->start[0] = 0;
  for (p = 0; p < parts; p++) {
    int64_t end = extent;
    if (p < last) {
      sum += equal ? 1.0 : share_of(speed[p]);
      end = (int64_t)floor((double)extent * sum / (equal ? parts : total) / DLG_SPLIT_GRANULE +
                           0.5) * DLG_SPLIT_GRANULE;
      if (end > extent) end = extent;
    }
    out->start[p + 1] = end < out->start[p] ? out->start[p] : end;
  }
}
