# session 32: host<->GPU rates of one process's array (issue 52): pageable copies, and pinning in place
import sys, time, numpy as np, cupy as cp
gpu, gb = int(sys.argv[1]), float(sys.argv[2])
cp.cuda.Device(gpu).use()
rt = cp.cuda.runtime
n = int(gb * 2**30 / 8)
t = time.perf_counter(); h = np.ones(n); t_touch = time.perf_counter() - t
d = cp.empty(n)
s = cp.cuda.Stream(non_blocking=True)
def copy(kind):
    s.synchronize(); t = time.perf_counter()
    if kind == 'h2d': rt.memcpyAsync(d.data.ptr, h.ctypes.data, h.nbytes, 1, s.ptr)
    else: rt.memcpyAsync(h.ctypes.data, d.data.ptr, h.nbytes, 2, s.ptr)
    s.synchronize(); return time.perf_counter() - t
r = {}
r['touch'] = t_touch
r['h2d_pageable'] = copy('h2d'); r['d2h_pageable'] = copy('d2h')
t = time.perf_counter(); rt.hostRegister(h.ctypes.data, h.nbytes, 0); r['register'] = time.perf_counter() - t
r['h2d_pinned'] = copy('h2d'); r['d2h_pinned'] = copy('d2h')
t = time.perf_counter(); rt.hostUnregister(h.ctypes.data); r['unregister'] = time.perf_counter() - t
# a second register of the same pages (a second call on the same array)
t = time.perf_counter(); rt.hostRegister(h.ctypes.data, h.nbytes, 0); r['register2'] = time.perf_counter() - t
rt.hostUnregister(h.ctypes.data)
print(f"gpu{gpu} {gb:.1f} GB: " + ", ".join(f"{k} {v*1e3:.0f} ms" + (f" ({h.nbytes/v/1e9:.1f} GB/s)" if k[:3] in ('h2d','d2h') else "") for k, v in r.items()), flush=True)
