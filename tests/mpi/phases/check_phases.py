#!/usr/bin/env python3
"""Checks rp-phases' output against a known structure.

Usage: check_phases.py TRACE PHASES CLUSTER_SIZES [KIND]
  CLUSTER_SIZES  comma-separated sizes of the clusters in order of first
                 appearance, e.g. 1,3,12,3,1
Also checks: phase ids 0..N-1 in order, each phase record before its
records, every mpi and sample record tagged with the phase just announced,
iterations numbered from 0 within each cluster, t0 <= t1, events counted.
"""
import json
import sys
from collections import OrderedDict


def main():
    trace, want_phases, want_sizes = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3].split(",")]
    want_kind = sys.argv[4] if len(sys.argv) > 4 else None
    phases, current, problems = [], None, []
    counts = {}
    for line in open(trace):
        r = json.loads(line)
        if r["type"] == "phase":
            if r["id"] != len(phases):
                problems.append("phase id %d where %d was next" % (r["id"], len(phases)))
            if r["t1"] < r["t0"]:
                problems.append("phase %d ends before it starts" % r["id"])
            phases.append(r)
            current = r["id"]
            counts[current] = 0
        elif r["type"] in ("mpi", "sample"):
            if r.get("phase") != current:
                problems.append("%s record of rank %d tagged %s after phase %s" % (
                    r["type"], r["rank"], r.get("phase"), current))
            if r["type"] == "mpi":
                counts[current] += 1
    clusters = OrderedDict()
    for p in phases:
        clusters.setdefault(p["cluster"], []).append(p)
        if p["iteration"] != len(clusters[p["cluster"]]) - 1:
            problems.append("phase %d: iteration %d" % (p["id"], p["iteration"]))
        if p["events"] != counts.get(p["id"]):
            problems.append("phase %d: events %d, %d records follow" % (p["id"], p["events"], counts.get(p["id"])))
    sizes = [len(v) for v in clusters.values()]
    print("%d phases, clusters of %s" % (len(phases), sizes))
    if len(phases) != want_phases:
        problems.append("%d phases, expected %d" % (len(phases), want_phases))
    if sizes != want_sizes:
        problems.append("cluster sizes %s, expected %s" % (sizes, want_sizes))
    if want_kind and (len(phases) != 1 or phases[0].get("kind") != want_kind):
        problems.append("expected one phase of kind %s" % want_kind)
    for p in problems[:20]:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
