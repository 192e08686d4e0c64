#!/usr/bin/env python3
"""Checks rp-repr on tests/mpi/repr/bimodal.

Usage: check_bimodal.py REPR_NDJSON ITERATIONS BASE_US

In the loop phases (each ends at an Allreduce) the 100% and 75% paths
must be long (1.2 BASE) and the 50%, 25% and 0% paths short (BASE). Over
the run, what the 100% path spent more than the 0% path must be
extra_cells, ITERATIONS * BASE / 5, within the sampling bound: three
standard errors plus one sample, (3 sqrt(p (1 - p) / n) + 1 / n) of the
run's 100% path's cost, n its 5 ms sampling periods, p the planted share.
The run's 100% and 0% paths cost the sums of the phases' (run_paths.py).
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, status  # noqa: E402
from run_paths import check_run_is_phase_sums  # noqa: E402



def main(path, iterations, base_us):
    iterations, base = int(iterations), int(base_us) * 1000
    recs = [json.loads(l) for l in open(path)]
    phases = {}
    for r in recs:
        if r["type"] == "path" and "phase" in r:
            phases.setdefault(r["phase"], []).append(r)
    loop = sorted(phases)[1:-1]
    check(len(loop) == iterations, f"{len(loop)} loop phases for {iterations} iterations")
    # Each slot's median over the loop phases within 1 ms of its planted
    # cost, and in 90% of the phases the long slots above 1.1 BASE and the
    # short ones below it: one phase's sleep can overshoot by milliseconds
    # when the 5 ranks' 2 cores are busy with something else.
    want = [1.2 * base, 1.2 * base, base, base, base]
    costs = [[r["cost"] for r in sorted(phases[p], key=lambda r: r["order"])] for p in loop]
    check(all(len(c) == 5 for c in costs), "5 paths in every loop phase")
    medians = [sorted(c[j] for c in costs)[len(costs) // 2] for j in range(5)]
    worst = max(abs(m - w) for m, w in zip(medians, want))
    check(worst <= 1_000_000, f"median costs {[round(m / 1e6, 2) for m in medians]} ms: 100% and 75% at 1.2 x "
                              f"{base / 1e6:.0f} ms, 50%..0% at {base / 1e6:.0f} ms, within 1 ms")
    split = sum(all(c[j] > 1.1 * base for j in (0, 1)) and all(c[j] < 1.1 * base for j in (2, 3, 4)) for c in costs)
    check(split >= 0.9 * len(costs), f"100% and 75% long, 50% to 0% short in {split} of {len(costs)} phases")
    diffs = [r for r in recs if r["type"] == "path_diff" and "cluster" not in r and r["a"] == 100 and r["b"] == 0]
    total = next(r for r in diffs if "fn" not in r)
    by_fn = {r["fn"]: r for r in diffs if "fn" in r}
    top = max(by_fn.values(), key=lambda r: r["diff"])
    check(top["fn"] == "extra_cells", f"the 100% path's extra work is named: {top['fn']}")
    planted = iterations * base / 5
    whole = next(r["cost"] for r in recs if r["type"] == "path" and "phase" not in r and r["order"] == 1)
    n = max(whole / 5e6, 1)
    p = planted / whole
    bound = (3 * math.sqrt(p * (1 - p) / n) + 1 / n) * whole
    got = by_fn["extra_cells"]["diff"]
    check(abs(got - planted) <= bound, f"extra_cells: {got / 1e6:.1f} ms more on the 100% path, planted "
                                       f"{planted / 1e6:.1f} ms (bound {bound / 1e6:.1f} ms)")
    check_run_is_phase_sums(recs, "repr k=5")
    # Each phase's paths were within 2 ms above; their sums' jitter is
    # the sleeps' overshoot, about 0.1 ms a phase.
    check(abs(total["diff"] - planted) <= iterations * 500_000,
          f"the whole 100% path {total['diff'] / 1e6:.1f} ms longer than the 0% path, planted {planted / 1e6:.1f} ms")
    return status()


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
