"""checks.py - what the Python tests share: the dlgemm package on the path,
the skip code ctest reads, a failure record that does not stop the run, and
the resident memory that the many-calls checks hold flat."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

SKIP = 77
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def verdict(name):
    """Print the closing line and return the exit status."""
    print("%s: %s" % (name, "FAILED (%d)" % len(failures) if failures else "all checks passed"))
    return 1 if failures else 0
