"""power_phases.py - one square product alone, dlgemm's and cuBLAS's (through
torch) in turn, three 4-second phases each, with the SM clock and the board
power sampled by nvidia-smi every 50 ms.  At the H100's 700 W cap the clock
each kernel keeps is part of its speed, and the alternating benchmarks mix the
two kernels' power states (bench/NOTES.md, session 19).  Run from the
repository root with DLGEMM_LIBRARY set:
    python3 bench/power_phases.py [n] [tf32|bf16|f64]
"""
import datetime, os, subprocess, sys, time, torch
sys.path.insert(0, os.path.join(os.getcwd(), "python"))
import dlgemm
n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
prec = sys.argv[2] if len(sys.argv) > 2 else "tf32"
dtype = {"tf32": torch.float32, "bf16": torch.bfloat16, "f64": torch.float64}[prec]
torch.backends.cuda.matmul.allow_tf32 = True
a = torch.randn(n, n, device="cuda").to(dtype)
b = torch.randn(n, n, device="cuda").to(dtype)
c = torch.empty(n, n, device="cuda", dtype=dtype)
ours = lambda: dlgemm.matmul(a, b, out=c, precision="tf32" if prec == "tf32" else "strict")
cub = lambda: torch.matmul(a, b, out=c)
log = open("/tmp/smi.csv", "w")
smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu",
                        "--format=csv,noheader,nounits", "-lms", "50"], stdout=log)
time.sleep(1)
phases = []
for name, f in [("ours", ours), ("cublas", cub)] * 3:
    for _ in range(5): f()
    torch.cuda.synchronize(); t0 = time.time(); cnt = 0
    while time.time() - t0 < 4:
        for _ in range(10): f()
        cnt += 10; torch.cuda.synchronize()
    t1 = time.time(); phases.append((name, t0, t1, cnt))
time.sleep(0.3); smi.terminate(); log.close()
rows = []
for line in open("/tmp/smi.csv"):
    p = [x.strip() for x in line.split(",")]
    try:
        t = datetime.datetime.strptime(p[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        rows.append((t, float(p[1]), float(p[2]), float(p[3])))
    except (ValueError, IndexError):
        pass  # a line cut off by terminate()
for name, t0, t1, cnt in phases:
    s = [r for r in rows if t0 + 1.0 <= r[0] <= t1]  # the first second: the clock settling
    av = lambda i: sum(r[i] for r in s) / max(len(s), 1)
    rate = 2.0 * n**3 * cnt / (t1 - t0) / 1e12
    print(f"{prec} {n}^3 {name:7s} {rate:6.1f} T  sm clock {av(1):6.0f} MHz  power {av(2):5.0f} W"
          f"  temp {av(3):3.0f} C  ({len(s)} samples)")
