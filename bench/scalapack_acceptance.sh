#!/bin/bash
# scalapack_acceptance.sh - issue 52's list on a GPU machine, step by step
# (a device call runs at most 10 minutes: name the steps that fit), each
# step's log in OUT and its lines echoed:
#   tests<R>     ScaLAPACK's testers on R ranks, the engines required
#                (EXPECT_MP=1 conformance/scalapack_dist.sh ... gpu R: Cholesky,
#                LU, QR, PBLAS level 3); R = 2 also runs conformance/pdbench.sh
#   mp<N>[x<R>]  pdbench's PDGETRF, PDPOTRF, PDGEQRF, PDGEMM, PDGESV at n = N,
#                NB 256 (NB=... to change), on R ranks (default 2), by the
#                engines (bench/scalapack_bench.sh run dlgemm_mp)
#   openblas<N>[x<R>]  the same program on the ranks' OpenBLAS
# Then every step's seconds side by side, with the ratio of 2 ranks to 4
# where both ran at one n.
#
# usage: bench/scalapack_acceptance.sh BUILD OUT STEP...
# Needs tools/device-mp-env.sh sourced (MPIRUN, TESTERS, MP_LIBS).
set -u
build=$(cd "$1" && pwd) out=$2
shift 2
lib=$build/libdlgemm.so here=$(cd "$(dirname "$0")" && pwd)
: "${MPIRUN:?source tools/device-mp-env.sh first}" "${TESTERS:?}" "${MP_LIBS:?}"
mkdir -p "$out"
status=0
for step in "$@"; do
  log=$out/$step.log
  t0=$(date +%s)
  case $step in
    tests*)
      r=${step#tests}
      LD_LIBRARY_PATH=$MP_LIBS:${LD_LIBRARY_PATH:-} EXPECT_MP=1 \
        "$here/../conformance/scalapack_dist.sh" "$lib" "$TESTERS" gpu "$r" >"$log" 2>&1 || status=1
      if [ "$r" = 2 ]; then
        EXPECT_MP=1 "$here/../conformance/pdbench.sh" "$build/bench/pdbench" "$lib" "$MPIRUN" \
          >"$out/pdbench_test.log" 2>&1 || status=1
        grep -E "^(mp|fault)|FAIL|pdbench:" "$out/pdbench_test.log" >>"$log"
      fi ;;
    mp* | openblas*)
      run=dlgemm_mp
      case $step in openblas*) run=openblas ;; esac
      spec=${step#mp} spec=${spec#openblas} n=${spec%x*} r=2
      [ "$spec" != "$n" ] && r=${spec#*x}
      RANKS=$r RUNS=$run ROUTINES=${ROUTINES:-pdgetrf,pdpotrf,pdgeqrf,pdgemm,pdgesv} \
        OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Cooperlake} "$here/scalapack_bench.sh" "$build" \
        "$out/$step" "$n" "${NB:-256}" >"$log" 2>&1 || status=1
      rm -rf "$out/$step/cache" "$out/$step/verbose" ;;
    *) echo "unknown step $step" >"$log"; status=1 ;;
  esac
  echo "== $step ($(($(date +%s) - t0)) s)"
  grep -vE "pmix|dlopen error|Perhaps a missing" "$log" |
    grep -E "passed|summary lines|FAIL|SKIP|seconds=|^(mp|fault)|unknown" | sed 's/^/  /'
done
# seconds by step, and 4 ranks against 2 at each n
python3 - "$out" "$@" <<'PY'
import re, sys
out, steps = sys.argv[1], sys.argv[2:]
t = {}
for s in steps:
    try:
        for line in open(f"{out}/{s}.log"):
            m = re.match(r"(\w+) n=(\d+) nb=(\d+) grid=(\d+)x(\d+) seconds=(\S+)", line)
            if m:
                kind = "openblas" if s.startswith("openblas") else "dlgemm"
                t[(kind, m[1], int(m[2]), int(m[3]), int(m[4]) * int(m[5]))] = float(m[6])
    except FileNotFoundError:
        pass
for (kind, r, n, nb, ranks), sec in sorted(t.items()):
    extra = ""
    if ranks == 4 and (kind, r, n, nb, 2) in t:
        extra = f"  4 ranks / 2 ranks: {t[(kind, r, n, nb, 2)] / sec:.2f}x"
    if kind == "dlgemm" and ("openblas", r, n, nb, ranks) in t:
        extra += f"  OpenBLAS / dlgemm: {t[('openblas', r, n, nb, ranks)] / sec:.1f}x"
    print(f"{kind:9} {r:8} n={n:6} nb={nb:4} ranks={ranks}  {sec:9.3f} s{extra}")
PY
exit $status
