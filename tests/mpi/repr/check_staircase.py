#!/usr/bin/env python3
"""Checks rp-repr's paths on tests/mpi/repr/staircase.

Usage: check_staircase.py REPR_NDJSON TOPK_NDJSON WALL_NDJSON CPATH_NDJSON RANKS C_US

Every phase that ends at one of the loop's Barriers (each rank computed
(r + 1) * C before it) must have path costs at the order statistics of
(1..RANKS) * C: repr k = 5 at sorted positions 0, 2, 4, 5, 7 of 8 (rounded
j (n - 1) / (k - 1)), topk k = 4 the two largest and the two smallest:
each slot's median over the phases within 0.5 ms, and all within 1 ms in
80% of the phases (the sleep's and the scheduler's jitter on shared
cores).
The run's 100% and 0% paths must cost the sums of the phases'
(run_paths.py). With --cost wall the run's most costly path must be
rp-cpath's critical path, to the nanosecond.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, status  # noqa: E402
from run_paths import check_run_is_phase_sums  # noqa: E402



def records(path):
    return [json.loads(line) for line in open(path)]


def paths(path):
    by_phase = {}
    for r in records(path):
        if r["type"] == "path":
            by_phase.setdefault(r.get("phase"), []).append(r)
    return by_phase


def expect(by_phase, name, picks, ranks, c_ns):
    steps = sorted(((r + 1) * c_ns for r in range(ranks)), reverse=True)
    want = [steps[i] for i in picks]
    # The loop's phases: every rank's path starts at a Barrier exit and
    # ends at the next; the first and last phases hold start-up and
    # shut-down.
    loop = [p for p in sorted(k for k in by_phase if k is not None)][1:-1]
    check(len(loop) > 0, f"{name}: {len(loop)} loop phases")
    # Each slot's median over the phases within 0.5 ms, and every slot
    # within 1 ms in 80% of the phases: a sleeping rank on 8 ranks' 2 cores
    # now and then wakes a few ms late, which moves one order statistic.
    good = 0
    costs = []
    for phase in loop:
        got = [p["cost"] for p in sorted(by_phase[phase], key=lambda p: p["order"])]
        if len(got) != len(want):
            check(False, f"{name}: phase {phase} has {len(got)} paths, want {len(want)}")
            return
        costs.append(got)
        good += max(abs(g - w) for g, w in zip(got, want)) <= 1_000_000
    medians = [sorted(c[j] for c in costs)[len(costs) // 2] for j in range(len(want))]
    check(max(abs(m - w) for m, w in zip(medians, want)) <= 500_000,
          f"{name}: median costs {[round(m / 1000) for m in medians]} us, want {[w // 1000 for w in want]} us "
          f"within 0.5 ms")
    check(good >= 0.8 * len(loop), f"{name}: costs {[w // 1000 for w in want]} us within 1 ms in {good} of "
                                   f"{len(loop)} loop phases")


def main(repr_path, topk_path, wall_path, cpath_path, ranks, c_us):
    ranks, c_ns = int(ranks), int(c_us) * 1000
    expect(paths(repr_path), "repr k=5", [0, 2, 4, 5, 7], ranks, c_ns)
    expect(paths(topk_path), "topk k=4", [0, 1, 6, 7], ranks, c_ns)
    check_run_is_phase_sums(records(repr_path), "repr k=5")
    check_run_is_phase_sums(records(topk_path), "topk k=4")
    wall = paths(wall_path)[None]
    length = next(json.loads(l)["length"] for l in open(cpath_path)
                  if '"cp_summary"' in l and '"phase"' not in l)
    top = min(wall, key=lambda p: p["order"])
    check(top["cost"] == length, f"--cost wall: the 100% path {top['cost']} ns is the critical path {length} ns")
    percentiles = [p["percentile"] for p in sorted(wall, key=lambda p: p["order"])]
    check(percentiles[0] == 100 and percentiles[-1] == 0, f"percentiles run from 100 to 0: {percentiles}")
    return status()


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
