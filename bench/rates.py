"""rates.py - the lines the host-array benchmark programs print
("[round=R ]ROUTINE n=N seconds=S tflops=T ...": host_bench, level3_bench),
read back for the side-by-side tables of their scripts."""
import re

LINE = re.compile(r"(?:round=\d+ )?(\w+) n=(\d+) seconds=\S+ tflops=(\S+)")


def read(path):
    """{(routine, n): [TFLOP/s of each line, in order]}; {} if path is missing."""
    rates = {}
    try:
        with open(path) as f:
            for line in f:
                m = LINE.match(line)
                if m:
                    rates.setdefault((m[1], int(m[2])), []).append(float(m[3]))
    except FileNotFoundError:
        pass
    return rates
