"""python -m dlgemm - what a user needs to know about this installation.

    python -m dlgemm                 the report below
    python -m dlgemm autoload on     route every Python program's torch products
    python -m dlgemm autoload off    through dlgemm (measured, never slower), or not
                                     (JAX's dot_general: DLGEMM_JAX=1 alone)

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


def calibration():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    where = os.path.join(base, "dlgemm")
    files = sorted(glob.glob(os.path.join(where, "*.txt")))
    if not files:
        return ["calibration cache: %s (empty: the first host call on a GPU measures)" % where]
    lines = ["calibration cache: %s" % where]
    for f in files:
        lines.append("  %s" % os.path.basename(f))
        with open(f, errors="replace") as fh:
            text = fh.readlines()
        if os.path.basename(f).startswith("rival-"):
            # DLGEMM_CUBLAS=auto's verdicts, a class a line, the last one standing
            verdicts = dict(l.split() for l in text if len(l.split()) == 2)
            ours = sum(v == "o" for v in verdicts.values())
            lines.append("    %d classes of cuBLAS calls measured: %d to dlgemm, %d left to cuBLAS"
                         % (len(verdicts), ours, len(verdicts) - ours))
        else:
            lines.extend("    " + l.rstrip() for l in text[:20])
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
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
