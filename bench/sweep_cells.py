#!/usr/bin/env python3
"""sweep_cells.py - chosen cells of bench/sweep's grid, as the lines
`sweep --rerun LOG --below 1` reads (ratio 0: every line is rerun), so that
a pin can be timed against auto on exactly the cells it is meant for.

usage: bench/sweep_cells.py TYPES LAYOUTS FAMILY SIZES [k]
  TYPES    comma-separated: fp64,fp32,tf32,3xtf32,bf16,f16,c64,c128
  LAYOUTS  comma-separated: NN,NT,TN,TT
  FAMILY   narrow (d as m and as n, beta 0 and 1; with "k", as k too) or
           batched (s^3, batch * s^3 = 2^28)
  SIZES    comma-separated d or s
e.g. bench/sweep_cells.py bf16,f16 NN,NT,TN,TT narrow 96,128 > /tmp/c.log &&
     DLGEMM_WGMMA_WIDTH=64 build/bench/sweep --rerun /tmp/c.log --below 1

The columns are sweep.c's: type, layout and family in the first 20
characters, the label in 20-34, then m n k batch beta (and three zeros).
"""
import sys


def main(argv):
    if len(argv) < 5:
        sys.stderr.write(__doc__)
        return 2
    types, lays, fam = argv[1].split(","), argv[2].split(","), argv[3]
    sizes = [int(w) for w in argv[4].split(",")]
    with_k = argv[5:6] == ["k"]
    for t in types:
        big = 8192 if t in ("bf16", "f16") else 4096
        for lay in lays:
            for w in sizes:
                if fam == "batched":
                    print("%-7s%-3s%-10s%-15s%d %d %d %d 0 0 0 0" %
                          (t, lay, fam, "%d^3" % w, w, w, w, (1 << 28) // w ** 3))
                    continue
                for at in range(3 if with_k else 2):
                    for beta in (0, 1):
                        m, n, k = (w if at == 0 else big), (w if at == 1 else big), (w if at == 2 else big)
                        print("%-7s%-3s%-10s%-15s%d %d %d 1 %d 0 0 0" %
                              (t, lay, fam, "mnk"[at] + "=%d" % w, m, n, k, beta))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
