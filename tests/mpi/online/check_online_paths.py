#!/usr/bin/env python3
"""Checks rp-record --online-paths against rp-repr on the trace of the same
run (run_patterns_test.sh).

    check_online_paths.py WORK

WORK holds NAME.online.ndjson (rp-record --online --online-paths 4
--trace) and NAME.repr.ndjson (rp-repr -k 4 on that trace, same --select)
for each NAME below.

Where selection is exact the paths must be the same: costs, percentiles,
shares, ranks, tasks and every interval. topk keeps the k/2 most and least
costly, which pairwise joins keep exactly too, so every kept path is
exact; repr's uniformly spaced percentiles are not associative, so the
in-run all-reduce of an all-to-all collective (pairwise joins, then the
root's result to all: the paper's Figure 3) may keep other middle paths
than rp-repr's exact union; its extremes (100% and 0%) are exact.

Point to point, rp-repr joins a receiver's paths into a send that was still
in its call when the receive was posted (rp-cpath's late-receiver edge,
lib/graph), which the in-run model does not follow: it sees messages only.
Such a send may be eager and held only by the collector's own work in the
call, and the edge lets offline paths step from the receiver's early
posting to the sender's exit, around the sender's work: cheap paths the
run never had. So on a chain only the most costly paths (the chain itself)
are compared exactly, and the least costly online path may cost more than
rp-repr's, never less (offline paths are a superset).

The online summary holds at most a cap of intervals a path (what fits
the piggyback beside the critical path: 11 for k = 4, 9 when sampling,
each path's profile keeping 4 functions); a longer path's last
interval is the rest (rank -1): the offline intervals from there on, their
cost and tasks summed, from the first one's t0 to the last one's t1.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import check, status  # noqa: E402

FIELDS = ("rank", "first", "last", "t0", "t1", "cost", "tasks")


def run_paths(path):
    """The whole run's paths (no phase), each with its intervals."""
    paths = {}
    with open(path) as f:
        for r in map(json.loads, f):
            if r["type"] == "path" and "phase" not in r:
                paths[r["order"]] = (r, [])
            elif r["type"] == "path_interval" and "phase" not in r:
                paths[r["path"]][1].append(r)
    return [paths[k] for k in sorted(paths)]


def cap(path):
    """The intervals a path keeps online for k = 4: fewer when sampling."""
    with open(path) as f:
        summary = [r for r in map(json.loads, f) if r["type"] == "cp_summary"][0]
    return 9 if "samples" in summary else 11


def folded(intervals, cap):
    """The offline intervals as the online summary keeps them."""
    if len(intervals) <= cap:
        return [{k: i[k] for k in FIELDS} for i in intervals]
    keep, rest = intervals[:cap - 1], intervals[cap - 1:]
    out = [{k: i[k] for k in FIELDS} for i in keep]
    out.append({"rank": -1, "first": rest[0]["first"], "last": rest[-1]["last"], "t0": rest[0]["t0"],
                "t1": rest[-1]["t1"], "cost": sum(i["cost"] for i in rest), "tasks": sum(i["tasks"] for i in rest)})
    return out


def same_path(name, j, on, off, cap):
    (p, pi), (q, qi) = on, off
    ranks = sorted({i["rank"] for i in qi[:cap - 1]} | ({-1} if len(qi) > cap else set()))
    check(p["cost"] == q["cost"] and p["percentile"] == q["percentile"] and p["tasks"] == q["tasks"],
          "%s: path %d costs %d ns (%g%%, %d tasks) online, %d ns (%g%%, %d tasks) offline" %
          (name, j, p["cost"], p["percentile"], p["tasks"], q["cost"], q["percentile"], q["tasks"]))
    check(abs(p.get("share", 0) - q.get("share", 0)) < 1e-9, "%s: path %d share %s online, %s offline" %
          (name, j, p.get("share"), q.get("share")))
    got = [{k: i[k] for k in FIELDS} for i in pi]
    check(got == folded(qi, cap) and sorted({i["rank"] for i in pi}) == ranks,
          "%s: path %d's %d intervals online are rp-repr's %d, folded at %d" % (name, j, len(pi), len(qi), cap))


def main(work):
    # topk: every path exact with collectives only; on a chain the k/2 most
    # costly.
    for name, exact in (("topk-slow", 4), ("topk-bcast", 4), ("topk-chain8", 2), ("repr-slow", 1),
                        ("repr-chain8", 1)):
        on = run_paths(os.path.join(work, name + ".online.ndjson"))
        off = run_paths(os.path.join(work, name + ".repr.ndjson"))
        most = cap(os.path.join(work, name + ".online.ndjson"))
        check(len(on) == len(off) == 4, "%s: %d paths online, %d offline" % (name, len(on), len(off)))
        for j in range(exact):
            same_path(name, j + 1, on[j], off[j], most)
        if name.endswith("slow"):  # min is exact whatever the selection
            same_path(name, 4, on[-1], off[-1], most)
        elif exact < 4:
            check(on[-1][0]["cost"] >= off[-1][0]["cost"],
                  "%s: least costly path %d ns online, %d ns offline (late-receiver edges)" %
                  (name, on[-1][0]["cost"], off[-1][0]["cost"]))
        costs = [p["cost"] for p, _ in on]
        want = [100, 200 / 3, 100 / 3, 0] if name.startswith("repr") else [p["percentile"] for p, _ in off]
        check(costs == sorted(costs, reverse=True) and [p["percentile"] for p, _ in on] == want,
              "%s: costs %s, most costly first, at %s%%" % (name, costs, [round(w, 1) for w in want]))
    # Twice the rounds: no path's summary beyond its cap.
    for name in ("repr-slow", "repr-long"):
        most = cap(os.path.join(work, name + ".online.ndjson"))
        for p, pi in run_paths(os.path.join(work, name + ".online.ndjson")):
            check(len(pi) == p["intervals"] <= most, "%s: path %d has %d intervals (at most %d)" %
                  (name, p["order"], len(pi), most))
    return status()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
