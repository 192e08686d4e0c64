#!/usr/bin/env python3
"""Trace gaps between MPI_Init and the first MPI_Barrier, then between
consecutive MPI_Barrier calls, vs the application's own CLOCK_MONOTONIC
measurements. Usage: check_gaps.py TRACE DIR RANKS
Each gap must agree within 0.3 ms + 0.1%."""
import json
import sys


def main():
    trace, directory, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    barriers = {}
    with open(trace) as f:
        for line in f:
            rec = json.loads(line)
            if rec["type"] == "mpi" and rec["fn"] in ("MPI_Init", "MPI_Barrier"):
                barriers.setdefault(rec["rank"], []).append(rec)
    failures = 0
    for rank in range(ranks):
        measured = [int(x) for x in open("%s/gaps-%d.txt" % (directory, rank)).read().split()]
        calls = barriers.get(rank, [])
        traced = [calls[i + 1]["t0"] - calls[i]["t1"] for i in range(len(calls) - 1)]
        if len(traced) != len(measured):
            print("rank %d: %d gaps in the trace, %d measured" % (rank, len(traced), len(measured)))
            failures += 1
            continue
        for want, got in zip(measured, traced):
            ok = abs(got - want) <= 300_000 + want // 1000
            print("rank %d: measured %.3f ms, trace %.3f ms%s" % (rank, want / 1e6, got / 1e6, "" if ok else "  <-- off"))
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
