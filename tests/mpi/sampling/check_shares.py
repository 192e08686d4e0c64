#!/usr/bin/env python3
"""Checks that wall-clock samples attribute time to the right functions.

Usage: check_shares.py TRACE TOLERANCE function=share ...
For each rank, each sample's weight (the wall time it stands for) is
attributed to the innermost frame whose function is one of those named;
each function's share of the attributed time must be within TOLERANCE of
the expected share, and most of the time (90%) must be attributed at all.
"""
import json
import sys


def main():
    trace, tolerance = sys.argv[1], float(sys.argv[2])
    expected = {k: float(v) for k, v in (a.split("=") for a in sys.argv[3:])}
    site_fn, samples = {}, {}
    with open(trace) as f:
        for line in f:
            rec = json.loads(line)
            if rec["type"] == "site":
                site_fn[rec["id"]] = rec.get("fn", "")
            elif rec["type"] == "sample":
                samples.setdefault(rec["rank"], []).append((rec["stack"], rec.get("weight", 1)))
    failures = 0
    if not samples:
        print("no samples in the trace")
        return 1
    for rank in sorted(samples):
        counts = {fn: 0 for fn in expected}
        for stack, weight in samples[rank]:
            for site in stack:
                fn = site_fn.get(site)
                if fn in counts:
                    counts[fn] += weight
                    break
        attributed = sum(counts.values())
        total = sum(weight for _, weight in samples[rank])
        shares = {fn: counts[fn] / max(1, attributed) for fn in counts}
        print("rank %d: %d samples, %.3f s sampled, %.3f s attributed: %s" % (
            rank, len(samples[rank]), total / 1e9, attributed / 1e9,
            ", ".join("%s %.3f" % (fn, shares[fn]) for fn in sorted(shares))))
        if attributed < 0.9 * total:
            print("rank %d: only %.3f of %.3f s attributed" % (rank, attributed / 1e9, total / 1e9))
            failures += 1
        for fn, want in expected.items():
            if abs(shares[fn] - want) > tolerance:
                print("rank %d: %s share %.3f, expected %.3f +- %.3f" % (rank, fn, shares[fn], want, tolerance))
                failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
