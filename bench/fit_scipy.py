#!/usr/bin/env python3
"""The reference for bench/fit: scipy.optimize.curve_fit (bounded 'trf')
from a naive start, on the same series tb-fit fits.  Bounds and start as
the public Thermobench.jl analysis uses: T_inf in [0, 120], k in
[-120, 120], tau in [1, 3600] s; start T_inf = last value, k = (first -
last) / n each, all tau = 100 s.  Prints key=value lines like
bench/fit-series.  Usage: fit_scipy.py RUN.csv REPEAT [ORDERS], ORDERS
such as "2" or "1,2,3" (the default); or fit_scipy.py --many ORDER
RUN..., one fit of each run's first column, the total time printed."""
import math
import statistics
import sys
import time

import numpy as np
import pandas as pd
import scipy
from scipy.optimize import curve_fit


def model(n):
    def f(t, *p):
        y = np.full_like(t, p[0])
        for j in range(n):
            y += p[1 + j] * np.exp(-t / p[1 + n + j])
        return y
    return f


def many(order, paths):
    """--many ORDER RUN...: one fit of each run's first temperature column,
    timed alone (reading excluded); prints the total."""
    total, rss = 0.0, 0.0
    for path in paths:
        df = pd.read_csv(path, comment="#")
        t = df.iloc[:, 0].to_numpy() / 1000.0
        unit = df.columns[1].partition("/")[2]
        y = df.iloc[:, 1].to_numpy() * {"m°C": 1e-3, "mC": 1e-3}.get(unit, 1.0)
        mask = ~np.isnan(y)
        t, y = t[mask] - t[mask][0], y[mask]
        p0 = [y[-1]] + [(y[0] - y[-1]) / order] * order + [100.0] * order
        lo = [0.0] + [-120.0] * order + [1.0] * order
        hi = [120.0] + [120.0] * order + [3600.0] * order
        t0 = time.perf_counter()
        try:
            p, _ = curve_fit(model(order), t, y, p0=p0, bounds=(lo, hi), method="trf")
        except RuntimeError:
            p = np.array(p0)
        total += time.perf_counter() - t0
        rss += float(np.sum((y - model(order)(t, *p)) ** 2))
    print(f"runs={len(paths)} order={order} ms={total * 1e3:.3f} rss={rss:.9g}")


def main():
    if sys.argv[1] == "--many":
        many(int(sys.argv[2]), sys.argv[3:])
        return
    path, repeat = sys.argv[1], int(sys.argv[2])
    orders = [int(x) for x in sys.argv[3].split(",")] if len(sys.argv) > 3 else [1, 2, 3]
    df = pd.read_csv(path, comment="#")
    t_all = df.iloc[:, 0].to_numpy() / 1000.0
    for col in df.columns[1:]:
        name, _, unit = col.partition("/")
        scale = {"m°C": 1e-3, "mC": 1e-3, "°C": 1.0}.get(unit)
        if scale is None or "ambient" in name:
            continue
        mask = df[col].notna().to_numpy()
        t, y = t_all[mask], df[col].to_numpy()[mask] * scale
        if len(y) < 10 or np.all(y == y[0]):
            continue
        t = t - t[0]
        for n in orders:
            p0 = [y[-1]] + [(y[0] - y[-1]) / n] * n + [100.0] * n
            lo = [0.0] + [-120.0] * n + [1.0] * n
            hi = [120.0] + [120.0] * n + [3600.0] * n
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                try:
                    p, _ = curve_fit(model(n), t, y, p0=p0, bounds=(lo, hi), method="trf")
                except RuntimeError:
                    p = np.array(p0)
                times.append((time.perf_counter() - t0) * 1e3)
            rss = float(np.sum((y - model(n)(t, *p)) ** 2))
            taus = ";".join(f"{x:.4g}" for x in sorted(p[1 + n:]))
            print(f"column={name} points={len(y)} order={n} ms={statistics.median(times):.4f} "
                  f"rss={rss:.9g} tau={taus} scipy={scipy.__version__}")


main()
