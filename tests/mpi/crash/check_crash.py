#!/usr/bin/env python3
"""Checks a trace recorded from a crashing job against the expectations.

Usage: check_crash.py TRACE EXPECT_DIR RANKS MODE VICTIM MIN_FRACTION
  MODE  "prefix": each rank's events are a prefix of its expectations (no
        event altered), and the victim kept at least MIN_FRACTION of the
        calls it made; "complete": every expected call is there.
Also checks the rank records: the victim (or every rank) is not complete.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/..")
from check_trace import compare, load_trace  # noqa: E402


def main():
    trace, expect_dir, ranks, mode, victim, min_fraction = sys.argv[1:7]
    ranks, victim, min_fraction = int(ranks), int(victim), float(min_fraction)
    comms, events = load_trace(trace)
    rank_records = {}
    with open(trace) as f:
        for line in f:
            rec = json.loads(line)
            if rec["type"] == "rank":
                rank_records[rec["rank"]] = rec
    failures = 0
    for rank in range(ranks):
        with open(os.path.join(expect_dir, "expect-%d.ndjson" % rank)) as f:
            wants = [json.loads(line) for line in f if line.strip()]
        got = events.get(rank, [])
        if len(got) > len(wants):
            print("rank %d: %d events but only %d calls made" % (rank, len(got), len(wants)))
            failures += 1
        for i, (rec, want) in enumerate(zip(got, wants)):
            problems = ([] if rec["fn"] == want["fn"] else ["fn %s != %s" % (rec["fn"], want["fn"])]) + \
                compare(rec, want, comms)
            for p in problems:
                print("rank %d call %d: %s" % (rank, i, p))
                failures += 1
        kept = len(got) / max(1, len(wants))
        print("rank %d: %d of %d calls kept, complete=%s" % (rank, len(got), len(wants),
                                                           rank_records.get(rank, {}).get("complete")))
        if mode == "complete" and len(got) != len(wants):
            print("rank %d: expected every call to survive" % rank)
            failures += 1
        if rank == victim and kept < min_fraction:
            print("rank %d: kept only %.2f of its calls, expected at least %.2f" % (rank, kept, min_fraction))
            failures += 1
        if (rank == victim or mode == "complete") and rank_records.get(rank, {}).get("complete") is not False:
            print("rank %d should be marked incomplete" % rank)
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
