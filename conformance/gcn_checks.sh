#!/bin/bash
# gcn_checks.sh - the static checks of the GCN kernels (tools/gcn/gcn_check.py)
# on the code objects that were just built, one per architecture, and proof
# that each check bites: every probe kernel of gcn_probe.s must fail its check.
# usage: gcn_checks.sh PYTHON CHECKER PROBE_CODE_OBJECT OBJDUMP READOBJ ARCH=CODE_OBJECT...
set -u
py=$1 check=$2 probe=$3
tools=(--objdump "$4" --readobj "$5")
shift 5
status=0
for spec in "$@"; do
  echo "== the SGPR-broadcast kernels, ${spec%%=*}"
  "$py" "$check" "${tools[@]}" --mcpu "${spec%%=*}" --loop-fma 512 "${spec#*=}" || status=1
done
echo "== planted faults: each must fail, naming the figure"
for spec in "dlg_probe_lds:LDS instructions" "dlg_probe_lds:s_barrier present" \
            "dlg_probe_vgpr:128 VGPRs, over the budget of 84" \
            "dlg_probe_lgkm:lgkmcnt(1) while scalar loads are outstanding" \
            "dlg_probe_lgkm:touches s12 before s_waitcnt lgkmcnt(0)" \
            "dlg_probe_vfma:take no SGPR operand"; do
  kernel=${spec%%:*} want=${spec#*:}
  out=$("$py" "$check" "${tools[@]}" --kernel "$kernel" "$probe")
  rc=$?
  if [ $rc -ne 0 ] && grep -qF -- "$want" <<<"$out"; then
    echo "PASS: $kernel fails as it should: $want"
  else
    echo "FAIL: $kernel was not caught (exit $rc, wanted '$want'):"
    echo "$out"
    status=1
  fi
done
exit $status
