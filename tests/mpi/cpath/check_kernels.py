#!/usr/bin/env python3
"""Checks rp-cpath's functions against the time tests/mpi/cpath/kernels
measured in them.

Usage: check_kernels.py APP_OUTPUT CPATH_NDJSON SLOW_RANK

Wall-clock samples at 200 Hz estimate a function's share p of n samples'
time; the bound used is three standard errors plus one sample,
3 * sqrt(p (1 - p) / n) + 1 / n, with n the samples the time holds
(its length / 5 ms).
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import check, status  # noqa: E402

PERIOD = 5e6  # ns between samples at rp-record's default 200 Hz


def bound(p, whole):
    n = max(whole / PERIOD, 1.0)
    p = min(max(p, 0.0), 1.0)
    return 3 * math.sqrt(p * (1 - p) / n) + 1 / n


def main(app_out, cpath, slow):
    slow = int(slow)
    spans, kernels = {}, {}
    for line in open(app_out):
        f = line.split()
        if f[0] == "span":
            spans[int(f[1])] = int(f[3]) - int(f[2])
        elif f[0] == "kernel":
            kernels[(int(f[1]), f[2])] = int(f[3])
    recs = [json.loads(l) for l in open(cpath)]
    summary = next(r for r in recs if r["type"] == "cp_summary" and "phase" not in r)
    length = summary["length"]
    functions = [r for r in recs if r["type"] == "cp_profile" and r["scope"] == "function"]
    by_name = {r["fn"]: r for r in functions}
    check(summary.get("samples", 0) > 0 and summary.get("unsampled_ranks") == 0,
          f"{summary.get('samples')} samples, every rank sampled")
    names = [r["fn"] for r in functions]
    check(names[:2] == ["heavy_kernel", "light_kernel"],
          f"the functions on the path: heavy_kernel first, light_kernel second (got {names[:3]})")

    # On the path: all of the slow rank's heavy_kernel, and its light_kernel
    # (the path runs through it every iteration).
    for name in ("heavy_kernel", "light_kernel"):
        planted = kernels[(slow, name)]
        got = by_name[name]["cp_compute"]
        err = bound(planted / length, length) * length
        check(abs(got - planted) <= err,
              f"{name} on the path {got / 1e6:.1f} ms, rank {slow} spent {planted / 1e6:.1f} ms (bound "
              f"{err / 1e6:.1f} ms): CP% {by_name[name]['cp_share']:.3f}")

    # Over all ranks (the paper's CPU%): every rank's measured time.
    total = sum(spans.values())
    for name in ("heavy_kernel", "light_kernel"):
        measured = sum(v for (r, n), v in kernels.items() if n == name)
        share = by_name[name]["time_share"]
        err = bound(measured / total, total)
        check(abs(share - measured / total) <= err,
              f"{name} time% {share:.3f}, measured {measured / total:.3f} (bound {err:.3f})")

    zero = {z["fn"]: z for z in recs if z["type"] == "cp_zeroing" and z["kind"] == "function"}
    for name in ("heavy_kernel", "light_kernel"):
        planted = kernels[(slow, name)]
        # Without light_kernel the ranks without heavy_kernel are still
        # shorter than the slow rank: its own light time is all it saves.
        got = zero[name]["reduction"]
        err = bound(planted / length, length) * length
        check(abs(got - planted) <= err,
              f"zeroing {name} shortens the path by {got / 1e6:.1f} ms, planted {planted / 1e6:.1f} ms "
              f"(bound {err / 1e6:.1f} ms)")
    tops = [t for t in recs if t["type"] == "cp_top" and t.get("scope") == "function"]
    check(bool(tops) and tops[0]["fn"] == "heavy_kernel", "cp_top names heavy_kernel first among functions")
    return status()


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
