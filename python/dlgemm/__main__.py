"""python -m dlgemm - what a user needs to know about this installation.

    python -m dlgemm                 the report below
    python -m dlgemm autoload on     route every Python program's torch products
    python -m dlgemm autoload off    through dlgemm (measured, never slower), or not
                                     (JAX's dot_general: DLGEMM_JAX=1 alone)
    python -m dlgemm routes          the routing table: every class of cuBLAS calls
                                     measured on this machine, and who takes it

The report: the version and where the library was loaded from; the CUDA
devices the driver shows and whether the HIP runtime loads (each with why
not); the CPU BLAS that answers host calls dlgemm does not take; the
settings in force (every DLGEMM_* variable set, and what the unset ones
that decide routing default to); the calibration cache of the host-array
cost model, file by file; and whether the autoload is on, and why.
Nothing here initialises a GPU context or writes anything but the switch.
"""
import ctypes
import ctypes.util
import glob
import os
import struct
import sys

import _dlgemm_autoload as autoload

from . import _lib


def cuda_devices():
    """Lines about the NVIDIA driver and its devices."""
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return ["CUDA: no driver (%s)" % e]
    if cu.cuInit(0) != 0:
        return ["CUDA: the driver loads but cuInit fails (no device, or none visible: "
                "CUDA_VISIBLE_DEVICES=%r)" % os.environ.get("CUDA_VISIBLE_DEVICES")]
    version, count = ctypes.c_int(), ctypes.c_int()
    cu.cuDriverGetVersion(ctypes.byref(version))
    cu.cuDeviceGetCount(ctypes.byref(count))
    lines = ["CUDA: driver API %d.%d, %d device(s)" % (version.value // 1000,
                                                       version.value % 1000 // 10, count.value)]
    for i in range(count.value):
        dev, name = ctypes.c_int(), ctypes.create_string_buffer(128)
        major, minor, sms = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        cu.cuDeviceGet(ctypes.byref(dev), i)
        cu.cuDeviceGetName(name, 128, dev)
        cu.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)  # compute capability major
        cu.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)
        cu.cuDeviceGetAttribute(ctypes.byref(sms), 16, dev)    # multiprocessors
        lines.append("  cuda:%d %s, sm_%d%d, %d SMs" % (i, name.value.decode(), major.value,
                                                       minor.value, sms.value))
    return lines


def hip_runtime():
    try:
        hip = ctypes.CDLL("libamdhip64.so")
    except OSError as e:
        return "HIP: no runtime (%s)" % e
    count = ctypes.c_int()
    err = hip.hipGetDeviceCount(ctypes.byref(count))
    if err != 0:
        return "HIP: the runtime loads but sees no device (hipGetDeviceCount: error %d)" % err
    return "HIP: %d device(s) (the GCN kernels: gfx906, gfx908, gfx90a)" % count.value


def cpu_blas():
    named = os.environ.get("DLGEMM_CPU_BLAS")
    if named:
        return "CPU BLAS: %s (DLGEMM_CPU_BLAS)" % named
    found = ctypes.util.find_library("blas")
    return ("CPU BLAS: the next sgemm_/dgemm_ in the process, else %s" % found if found else
            "CPU BLAS: the next sgemm_/dgemm_ in the process, else netlib's loops built in")


def settings():
    lines = ["settings:"]
    set_here = sorted((k, v) for k, v in os.environ.items() if k.startswith("DLGEMM_"))
    for k, v in set_here:
        lines.append("  %s=%s" % (k, v))
    defaults = {"DLGEMM_FORCE": "auto (host calls by the measured cost model)",
                "DLGEMM_CUBLAS": "off (a program's cuBLAS calls untouched; the autoload "
                                 "sets auto: each class measured against cuBLAS)",
                "DLGEMM_FP32_MODE": "strict (IEEE FP32 for sgemm_)"}
    for k, v in defaults.items():
        if k not in os.environ:
            lines.append("  %s unset: %s" % (k, v))
    return lines


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "dlgemm")


def _span(q):
    """A quantized size (rival.c's quantize(): exact to 16, then the
    leading three bits) as the sizes it stands for."""
    if q <= 16:
        return str(q)
    e, r = divmod(q - 16, 8)
    return "%d-%d" % (r << e, ((r + 1) << e) - 1)


_TYPES = {(2, 16): "float16", (2, 32): "float32", (2, 64): "float64", (4, 16): "bfloat16"}
_PRECISIONS = ("strict", "tf32", "3xtf32")


def _layout(orient):
    """Each operand's orientation as cuBLAS names it (rival.c's key: 1 when
    its rows are contiguous, 2 its columns), A and B broadcast flagged."""
    def one(bits, transposed):
        return {1: transposed[0], 2: transposed[1]}.get(bits, "?")
    text = one(orient & 3, "NT") + one(orient >> 2 & 3, "NT")
    text += {1: "", 2: " (C row-major)"}.get(orient >> 4 & 3, " (C strided both ways)")
    if orient & 0xc0:
        text += " (%s broadcast)" % "+".join(x for x, bit in (("A", 0x40), ("B", 0x80))
                                            if orient & bit)
    return text


def routes(path):
    """The classes of a rival-*.txt verdict file, decoded (the last verdict
    of a class stands, as rival_cache.c reads it): a line each, dlgemm's
    first.  Lines that do not parse are skipped, as the library skips them."""
    verdicts = {}
    with open(path, errors="replace") as fh:
        for line in fh:
            words = line.split()
            if len(words) == 2 and len(words[0]) == 32 and words[1] in ("o", "t"):
                try:
                    verdicts[bytes.fromhex(words[0])] = words[1] == "o"
                except ValueError:
                    pass
    rows = []
    for key, ours in verdicts.items():
        m, n, k, batch = struct.unpack("<4H", key[:8])
        device, code_in, bits_in, code_out, bits_out, precision, orient, flags = key[8:16]
        kind = _TYPES.get((code_in, bits_in), "type %d/%d" % (code_in, bits_in))
        out = _TYPES.get((code_out, bits_out), "type %d/%d" % (code_out, bits_out))
        if kind == "float32" and precision < len(_PRECISIONS):
            kind += " " + _PRECISIONS[precision]
        rows.append((not ours, "%-9s %s -> %-8s %-5s m %-11s n %-11s k %-11s batch %-7s "
                     "beta %s%s" % ("dlgemm" if ours else "cuBLAS", kind, out, _layout(orient),
                                    _span(m), _span(n), _span(k), _span(batch),
                                    "!= 0" if flags & 1 else "0",
                                    "" if flags & 2 else ", not 16-byte aligned")))
    return [text for _, text in sorted(rows)]


def calibration():
    where = cache_dir()
    files = sorted(glob.glob(os.path.join(where, "*.txt")))
    if not files:
        return ["calibration cache: %s (empty: the first host call on a GPU measures)" % where]
    lines = ["calibration cache: %s" % where]
    for f in files:
        lines.append("  %s" % os.path.basename(f))
        if os.path.basename(f).startswith("rival-"):
            # DLGEMM_CUBLAS=auto's verdicts, a class a line, the last one standing
            table = routes(f)
            taken = [r for r in table if r.startswith("dlgemm")]
            lines.append("    %d classes of cuBLAS calls measured: %d to dlgemm, %d left to cuBLAS"
                         % (len(table), len(taken), len(table) - len(taken)))
            lines.extend("    " + r for r in taken[:8])
            if len(table) > min(len(taken), 8):
                lines.append("    (python -m dlgemm routes: the whole table)")
        else:
            with open(f, errors="replace") as fh:
                lines.extend("    " + l.rstrip() for l in fh.readlines()[:20])
    return lines


def report():
    lines = []
    try:
        lib = _lib.library()
        lines.append("dlgemm %s, %s" % (lib.dlgemm_version().decode(), _lib.path()))
    except OSError as e:
        lines.append("dlgemm: the library does not load from %s (%s)" % (_lib.path(), e))
    lines += cuda_devices()
    lines.append(hip_runtime())
    lines.append(cpu_blas())
    lines += settings()
    lines += calibration()
    for framework, variable in (("torch", "DLGEMM_TORCH"), ("JAX", "DLGEMM_JAX")):
        env = os.environ.get(variable)
        if env:
            why = "%s=%s" % (variable, env)
        elif variable == "DLGEMM_JAX":
            why = "DLGEMM_JAX=1 turns it on; the switch does not"
        else:
            why = ("%s says so" % autoload.switch_path() if os.path.exists(autoload.switch_path())
                   else "never switched on") + "; python -m dlgemm autoload on|off"
        lines.append("autoload for %s: %s (%s)"
                     % (framework, "on" if autoload.switched_on(variable) else "off", why))
    print("\n".join(lines))
    return 0


def switch(state):
    path = autoload.switch_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(state + "\n")
    print("autoload %s (%s)%s" % (state, path, "; DLGEMM_TORCH in the environment still wins"
                                  if os.environ.get("DLGEMM_TORCH") else ""))
    return 0


def main(argv):
    if not argv:
        return report()
    if len(argv) == 2 and argv[0] == "autoload" and argv[1] in ("on", "off"):
        return switch(argv[1])
    if argv == ["routes"]:
        files = sorted(glob.glob(os.path.join(cache_dir(), "rival-*.txt")))
        if not files:
            print("no classes measured yet (%s has no rival-*.txt: DLGEMM_CUBLAS=auto "
                  "measures each class on its first call)" % cache_dir())
        for f in files:
            print("%s:" % f)
            print("\n".join("  " + r for r in routes(f)))
        return 0
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
