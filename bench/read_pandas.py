#!/usr/bin/env python3
"""Time pandas.read_csv on a thermobench run, as a reference for bench/read.
Prints the same key=value figures as bench/read-run."""
import resource
import sys
import time

import pandas as pd


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def current_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 1048576


before = current_mib()
t0 = time.perf_counter()
df = pd.read_csv(sys.argv[1], comment="#", engine="c")
t1 = time.perf_counter()
numbers = int(df.count().sum())
print(f"seconds={t1 - t0:.4f} rows={len(df)} columns={df.shape[1]} "
      f"numbers={numbers} number_mib={numbers * 8 / 1048576:.2f} "
      f"rss_before_mib={before:.2f} rss_peak_mib={peak_mib():.2f} "
      f"pandas={pd.__version__}")
