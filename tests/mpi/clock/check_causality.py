#!/usr/bin/env python3
"""Counts causality violations in a trace, independently of rp-clocksync:
a receive (blocking, or the call completing an Irecv) ending before its
send started, a blocking all-to-all collective exit before another
member's entry. Messages are paired per (comm, source, destination, tag) in
order, wildcards resolved from the statuses.

Usage: check_causality.py TRACE   -> prints "N violations (worst X ns)"."""
import json
import sys
from collections import defaultdict

SENDS = {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend"}
ISENDS = {"MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend"}
ALL_TO_ALL = {"MPI_Barrier", "MPI_Allreduce", "MPI_Allgather", "MPI_Alltoall"}


def main():
    sends = defaultdict(list)     # key -> [send start]
    receives = defaultdict(list)  # key -> [receive end], in posting order per receiver
    collectives = defaultdict(list)  # (comm, k) -> [(t0, t1)]
    counts = defaultdict(int)
    events = defaultdict(list)
    with open(sys.argv[1]) as f:
        for line in f:
            r = json.loads(line)
            if r["type"] == "mpi":
                events[r["rank"]].append(r)
    for rank, evs in events.items():
        evs.sort(key=lambda e: e["seq"])
        pending = {}  # req -> [key, posted index]
        for e in evs:
            fn = e["fn"]
            if fn in SENDS or fn in ISENDS:
                if e.get("peer", -2) >= 0:
                    sends[(e["comm"], rank, e["peer"], e["tag"])].append(e["t0"])
            elif fn == "MPI_Recv":
                if e["peer"] >= 0:
                    receives[(e["comm"], e["peer"], rank, e["tag"])].append(e["t1"])
            elif fn == "MPI_Irecv":
                key = [e["comm"], e["peer"], rank, e["tag"]]
                pending[e["req"]] = key
            elif fn in ALL_TO_ALL and "comm" in e:
                k = counts[(rank, e["comm"])]
                counts[(rank, e["comm"])] += 1
                collectives[(e["comm"], k)].append((e["t0"], e["t1"]))
            resolved = {x["req"]: x for x in e.get("resolved", [])}
            for req in e.get("completed", []):
                if req not in pending:
                    continue
                key = pending.pop(req)
                if req in resolved:
                    key[1], key[3] = resolved[req]["peer"], resolved[req]["tag"]
                if key[1] >= 0:
                    receives[tuple(key)].append(e["t1"])
    violations, worst = 0, 0
    for key, starts in sends.items():
        for start, end in zip(starts, receives.get(key, [])):
            if end < start:
                violations += 1
                worst = max(worst, start - end)
    for members in collectives.values():
        last_entry = max(t0 for t0, _ in members)
        for _, t1 in members:
            if t1 < last_entry:
                violations += 1
                worst = max(worst, last_entry - t1)
    print("%d violations (worst %d ns)" % (violations, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
