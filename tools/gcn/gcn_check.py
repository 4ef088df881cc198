#!/usr/bin/env python3
"""gcn_check.py - static checks of AMD GCN code objects, from their disassembly.

usage: gcn_check.py [options] CODE_OBJECT
  --objdump PATH / --readobj PATH   llvm-objdump / llvm-readobj for amdgcn
  --mcpu NAME                       target to disassemble for (gfx906)
  --kernel NAME                     check only this kernel (default: all)
  --max-vgpr N                      VGPR budget per lane (84: 3 waves per SIMD)
  --max-sgpr N                      SGPR budget (102 on gfx9)
  --loop-fma N                      v_fma_f32 expected per main-loop iteration

The SGPR-broadcast SGEMM (kernels/gcn/sgemm_sgpr.S) stands on four
properties, and each has a check here:
  * no LDS and no barriers: no ds_* instruction, no s_barrier, a group segment
    of 0 bytes;
  * registers: the metadata's VGPR and SGPR counts within budget, no spills,
    no scratch, and no register used in the code beyond what the metadata
    declares (hand-written metadata must not lie);
  * the main loop (the innermost back branch with the most FMAs) issues
    v_fma_f32 whose A operand is an SGPR - every one of them;
  * scalar loads return out of order, so an SGPR written by s_load_* may be
    touched only after "s_waitcnt lgkmcnt(0)", and lgkmcnt(N > 0) never
    counts on them.  Checked in program order over the kernel, and over the
    main loop twice in a row (a load issued at the end of one iteration and
    used at the start of the next).
Exit status 0 when every check of every kernel holds; 1 otherwise, with one
line per failure naming the kernel and the figure.
"""
import argparse
import re
import subprocess
import sys

INSN = re.compile(r"^\s+([a-z_][a-z0-9_]*)\s*(.*?)\s*//\s*([0-9A-F]+):")
FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:")
TARGET = re.compile(r"<([^>+]+)\+0x([0-9a-f]+)>")
SRANGE = re.compile(r"\bs\[(\d+):(\d+)\]")
SONE = re.compile(r"\bs(\d+)\b")
VRANGE = re.compile(r"\bv\[(\d+):(\d+)\]")
VONE = re.compile(r"\bv(\d+)\b")


class Insn:
    def __init__(self, addr, op, args):
        self.addr, self.op, self.args = addr, op, args
        self.target = None


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def disassemble(objdump, mcpu, path):
    """{kernel: [Insn]} with branch targets resolved to addresses."""
    funcs, cur, start = {}, None, {}
    for line in run([objdump, "-d", "--mcpu=" + mcpu, path]).splitlines():
        m = FUNC.match(line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            start[m.group(1)] = int(line.split()[0], 16)
            continue
        m = INSN.match(line)
        if m and cur is not None:
            args = m.group(2).split("//")[0].strip()
            ins = Insn(int(m.group(3), 16), m.group(1), args)
            t = TARGET.search(line)
            if t and t.group(1) in start and m.group(1).startswith(("s_cbranch", "s_branch")):
                ins.target = start[t.group(1)] + int(t.group(2), 16)
            cur.append(ins)
    return funcs


def metadata(readobj, path):
    """{kernel: {field: value}} from the code object's AMDGPU metadata note
    (llvm-readobj prints it as YAML: one "  - " entry per kernel, its fields
    at the next indentation, nested lists such as .args deeper)."""
    entries, cur = [], None
    fields = ("name", "vgpr_count", "sgpr_count", "vgpr_spill_count", "sgpr_spill_count",
              "group_segment_fixed_size", "private_segment_fixed_size")
    for line in run([readobj, "--notes", path]).splitlines():
        if line.startswith("  - ."):
            cur = {}
            entries.append(cur)
        m = re.match(r"^(?:  - |    )\.([a-z_]+):\s+(\S+)", line)
        if cur is not None and m and m.group(1) in fields:
            cur[m.group(1)] = m.group(2) if m.group(1) == "name" else int(m.group(2))
    return {e["name"]: e for e in entries if "name" in e}


def sgprs(text):
    regs = set()
    for a, b in SRANGE.findall(text):
        regs.update(range(int(a), int(b) + 1))
    regs.update(int(x) for x in SONE.findall(SRANGE.sub("", text)))
    return regs


def max_vgpr(insns):
    top = -1
    for i in insns:
        for a, b in VRANGE.findall(i.args):
            top = max(top, int(b))
        for x in VONE.findall(VRANGE.sub("", i.args)):
            top = max(top, int(x))
    return top


def main_loop(insns):
    """The innermost loop (a back branch's body containing no other back
    branch) with the most v_fma_f32: a list of Insn, or None."""
    index = {i.addr: n for n, i in enumerate(insns)}
    loops = [(index[i.target], n) for n, i in enumerate(insns)
             if i.target is not None and i.target <= i.addr and i.target in index]
    inner = [(s, e) for s, e in loops
             if not any(s <= s2 and e2 <= e and (s2, e2) != (s, e) for s2, e2 in loops)]
    best = max(inner, key=lambda r: sum(insns[k].op.startswith("v_fma_f32")
                                        for k in range(r[0], r[1] + 1)), default=None)
    return insns[best[0]:best[1] + 1] if best else None


def lgkm_violations(insns):
    """Uses of SGPRs still being written by scalar loads, and lgkmcnt(N > 0)
    waits while scalar loads are outstanding."""
    pending, bad = set(), []
    for i in insns:
        if i.op == "s_waitcnt":
            m = re.search(r"lgkmcnt\((\d+)\)", i.args)
            if m and int(m.group(1)) == 0:
                pending.clear()
            elif m and pending:
                bad.append("0x%x: s_waitcnt lgkmcnt(%s) while scalar loads are outstanding "
                           "(they return out of order)" % (i.addr, m.group(1)))
            continue
        touched = sgprs(i.args) & pending
        if touched:
            bad.append("0x%x: %s touches s%d before s_waitcnt lgkmcnt(0)"
                       % (i.addr, i.op, min(touched)))
        if i.op.startswith(("s_load_", "s_buffer_load_")):
            pending |= sgprs(i.args.split(",")[0])
    return bad


def check_kernel(name, insns, meta, opts):
    fails, facts = [], []
    ds = [i for i in insns if i.op.startswith("ds_")]
    if ds:
        fails.append("%d LDS instructions (first: %s at 0x%x)" % (len(ds), ds[0].op, ds[0].addr))
    if any(i.op == "s_barrier" for i in insns):
        fails.append("s_barrier present")
    if any(i.op.startswith(("scratch_", "buffer_store", "buffer_load")) for i in insns):
        fails.append("scratch or buffer memory instructions present")
    if not meta:
        fails.append("no metadata for the kernel")
        meta = {}
    if meta.get("group_segment_fixed_size", 0):
        fails.append("LDS (group segment) of %d bytes" % meta["group_segment_fixed_size"])
    if meta.get("private_segment_fixed_size", 0):
        fails.append("scratch of %d bytes per lane" % meta["private_segment_fixed_size"])
    if meta.get("vgpr_spill_count", 0) or meta.get("sgpr_spill_count", 0):
        fails.append("spills: %d VGPR, %d SGPR" % (meta.get("vgpr_spill_count", 0),
                                                   meta.get("sgpr_spill_count", 0)))
    vg, sg, used = meta.get("vgpr_count", 0), meta.get("sgpr_count", 0), max_vgpr(insns) + 1
    facts.append("VGPRs %d (code uses %d), SGPRs %d" % (vg, used, sg))
    if vg > opts.max_vgpr:
        fails.append("%d VGPRs, over the budget of %d" % (vg, opts.max_vgpr))
    if used > vg:
        fails.append("code uses v%d but the metadata declares %d VGPRs" % (used - 1, vg))
    if sg > opts.max_sgpr:
        fails.append("%d SGPRs, over the budget of %d" % (sg, opts.max_sgpr))
    fails += lgkm_violations(insns)
    loop = main_loop(insns)
    if loop is None:
        fails.append("no loop found")
    else:
        fmas = [i for i in loop if i.op.startswith("v_fma_f32")]
        plain = [i for i in fmas if not sgprs(i.args)]
        facts.append("main loop 0x%x-0x%x: %d instructions, %d v_fma_f32 (%.3f), %d with an "
                     "SGPR operand" % (loop[0].addr, loop[-1].addr, len(loop), len(fmas),
                                       len(fmas) / len(loop), len(fmas) - len(plain)))
        if not fmas:
            fails.append("main loop has no v_fma_f32")
        if plain:
            fails.append("%d of the main loop's v_fma_f32 take no SGPR operand (first at 0x%x)"
                         % (len(plain), plain[0].addr))
        if opts.loop_fma is not None and len(fmas) != opts.loop_fma:
            fails.append("main loop has %d v_fma_f32, expected %d" % (len(fmas), opts.loop_fma))
        fails += ["main loop, second pass: " + v for v in lgkm_violations(loop + loop)
                  if v not in lgkm_violations(loop)]
    return fails, facts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("code_object")
    ap.add_argument("--objdump", default="llvm-objdump")
    ap.add_argument("--readobj", default="llvm-readobj")
    ap.add_argument("--mcpu", default="gfx906")
    ap.add_argument("--kernel")
    ap.add_argument("--max-vgpr", type=int, default=84)
    ap.add_argument("--max-sgpr", type=int, default=102)
    ap.add_argument("--loop-fma", type=int)
    opts = ap.parse_args()
    funcs = disassemble(opts.objdump, opts.mcpu, opts.code_object)
    meta = metadata(opts.readobj, opts.code_object)
    names = [opts.kernel] if opts.kernel else sorted(meta)
    failed = 0
    for name in names:
        fails, facts = check_kernel(name, funcs.get(name, []), meta.get(name), opts)
        print("%s %s (%s): %s" % ("FAIL" if fails else "PASS", name, opts.mcpu, "; ".join(facts)))
        for f in fails:
            print("  FAIL %s (%s): %s" % (name, opts.mcpu, f))
        failed += bool(fails)
    if not names:
        print("FAIL: no kernels in %s" % opts.code_object)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
