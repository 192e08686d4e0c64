#!/usr/bin/env python3
"""Checks rp-repr on tests/mpi/repr/bimodal.

Usage: check_bimodal.py REPR_NDJSON ITERATIONS BASE_US COMPUTE_FILE RANKS

In the loop phases (each ends at an Allreduce) the 100% and 75% paths
must be long (1.2 BASE) and the 50%, 25% and 0% paths short (BASE): each
slot's median over the phases within 1 ms. Every phase's 5 paths must
cost what its 5 ranks really computed (bimodal -w, COMPUTE_FILE.RANK), in
order, within 0.1 ms: the app's clock reads sit a call's entry and exit
away from the collector's. Over the run, what the 100% path spent more
than the 0% path must be those computes' difference, and its extra_cells
part the measured extra_cells of each phase's longest rank less its
shortest's, within the sampling bound: three standard errors plus one
sample, (3 sqrt(p (1 - p) / n) + 1 / n) of the run's 100% path's cost, n
its 5 ms sampling periods, p that part's share. The run's 100% and 0%
paths cost the sums of the phases' (run_paths.py).
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, status  # noqa: E402
from run_paths import check_run_is_phase_sums  # noqa: E402



def read_computes(prefix, ranks):
    """[phase][rank] = (compute_ns, extra_ns), as bimodal -w wrote them."""
    by_rank = []
    for rank in range(ranks):
        rows = [line.split() for line in open(f"{prefix}.{rank}")]
        by_rank.append([(int(c), int(e)) for _, c, e in rows])
    return [list(phase) for phase in zip(*by_rank)]


def main(path, iterations, base_us, compute_file, ranks):
    iterations, base, ranks = int(iterations), int(base_us) * 1000, int(ranks)
    recs = [json.loads(l) for l in open(path)]
    phases = {}
    for r in recs:
        if r["type"] == "path" and "phase" in r:
            phases.setdefault(r["phase"], []).append(r)
    measured = read_computes(compute_file, ranks)
    check(len(phases) == iterations + 2 == len(measured),
          f"{len(phases)} phases, {len(measured)} measured, for {iterations} iterations")
    costs = [[r["cost"] for r in sorted(phases[p], key=lambda r: r["order"])] for p in sorted(phases)]
    check(all(len(c) == ranks for c in costs), f"{ranks} paths in every phase")
    # By construction: each slot's median over the loop phases within 1 ms
    # of its planted cost.
    loop = costs[1:-1]
    want = [1.2 * base, 1.2 * base, base, base, base]
    medians = [sorted(c[j] for c in loop)[len(loop) // 2] for j in range(5)]
    worst = max(abs(m - w) for m, w in zip(medians, want))
    check(worst <= 1_000_000, f"median costs {[round(m / 1e6, 2) for m in medians]} ms: 100% and 75% at 1.2 x "
                              f"{base / 1e6:.0f} ms, 50%..0% at {base / 1e6:.0f} ms, within 1 ms")
    # As it ran: a sleep that overshot on a busy machine moves the path too.
    off = [max(abs(g - w) for g, w in zip(got, sorted((c for c, _ in phase), reverse=True)))
           for got, phase in zip(costs, measured)]
    worst = max(range(len(off)), key=lambda i: off[i])
    check(off[worst] <= 100_000, f"every phase's paths cost its ranks' measured computes, within 0.1 ms "
                                 f"(worst phase {worst}: {off[worst] / 1e3:.1f} us)")
    longest = [max(phase) for phase in measured]
    shortest = [min(phase) for phase in measured]
    diffs = [r for r in recs if r["type"] == "path_diff" and "cluster" not in r and r["a"] == 100 and r["b"] == 0]
    total = next(r for r in diffs if "fn" not in r)
    by_fn = {r["fn"]: r for r in diffs if "fn" in r}
    top = max(by_fn.values(), key=lambda r: r["diff"])
    check(top["fn"] == "extra_cells", f"the 100% path's extra work is named: {top['fn']}")
    extra = sum(l[1] - s[1] for l, s in zip(longest, shortest))
    whole = next(r["cost"] for r in recs if r["type"] == "path" and "phase" not in r and r["order"] == 1)
    n = max(whole / 5e6, 1)
    p = min(max(extra / whole, 0), 1)
    bound = (3 * math.sqrt(p * (1 - p) / n) + 1 / n) * whole
    got = by_fn["extra_cells"]["diff"]
    check(abs(got - extra) <= bound, f"extra_cells: {got / 1e6:.1f} ms more on the 100% path, measured "
                                     f"{extra / 1e6:.1f} ms, planted {iterations * base / 5 / 1e6:.1f} ms "
                                     f"(bound {bound / 1e6:.1f} ms)")
    check_run_is_phase_sums(recs, "repr k=5")
    spread = sum(l[0] - s[0] for l, s in zip(longest, shortest))
    check(abs(total["diff"] - spread) <= 100_000 * len(costs),
          f"the whole 100% path {total['diff'] / 1e6:.1f} ms longer than the 0% path, measured "
          f"{spread / 1e6:.1f} ms, planted {iterations * base / 5 / 1e6:.1f} ms")
    return status()


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
