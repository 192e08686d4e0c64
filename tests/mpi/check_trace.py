#!/usr/bin/env python3
"""Compares a trace with what the test application expected, rank by rank.

Usage: check_trace.py TRACE.ndjson EXPECT_DIR [--ranks N]

Every mpi record of rank R must match the R-th rank's expectation file
(expect-R.ndjson, see tests/mpi/expect.h) line for line: same function, and
every expected field equal. Exit 0 when all match, 1 with the differences.
"""
import json
import os
import sys


def load_trace(path):
    comms, events = {}, {}
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if rec["type"] == "comm":
                comms[rec["id"]] = rec
            elif rec["type"] == "mpi":
                events.setdefault(rec["rank"], []).append(rec)
    return comms, events


def comm_ranks(comms, comm_id):
    return comms[comm_id]["ranks"] if comm_id in comms else None


def compare(rec, want, comms):
    problems = []
    for key, value in want.items():
        if key == "fn":
            continue
        if key == "comm_ranks":
            got = comm_ranks(comms, rec.get("comm"))
        elif key == "newcomm_ranks":
            got = comm_ranks(comms, rec.get("newcomm"))
        elif key == "ncompleted":
            got = len(rec.get("completed", []))
        elif key == "resolved":
            got = [[r["peer"], r["tag"], r["bytes"]] for r in rec.get("resolved", [])]
        elif key == "has_req":
            got = "req" in rec
        elif key == "absent":
            present = [k for k in value if k in rec]
            if present:
                problems.append("fields %s should be absent" % present)
            continue
        else:
            got = rec.get(key)
        if got != value:
            problems.append("%s: expected %s, got %s" % (key, json.dumps(value), json.dumps(got)))
    return problems


def main():
    trace, expect_dir = sys.argv[1], sys.argv[2]
    comms, events = load_trace(trace)
    failures = 0
    checked = 0
    ranks = sorted(int(n[len("expect-"):-len(".ndjson")]) for n in os.listdir(expect_dir)
                   if n.startswith("expect-") and n.endswith(".ndjson"))
    if not ranks:
        print("no expectation files in", expect_dir)
        return 1
    for rank in ranks:
        with open(os.path.join(expect_dir, "expect-%d.ndjson" % rank)) as f:
            wants = [json.loads(line) for line in f if line.strip()]
        got = events.get(rank, [])
        for i in range(max(len(wants), len(got))):
            if i >= len(got):
                print("rank %d call %d: expected %s, trace has no more events" % (rank, i, wants[i]["fn"]))
                failures += 1
                break
            if i >= len(wants):
                print("rank %d call %d: unexpected %s in the trace" % (rank, i, got[i]["fn"]))
                failures += 1
                break
            rec, want = got[i], wants[i]
            checked += 1
            if rec["fn"] != want["fn"]:
                print("rank %d call %d: expected %s, trace has %s" % (rank, i, want["fn"], rec["fn"]))
                failures += 1
                break
            for problem in compare(rec, want, comms):
                print("rank %d call %d (%s, seq %d): %s" % (rank, i, rec["fn"], rec["seq"], problem))
                failures += 1
    print("%d calls checked on %d ranks, %d differences" % (checked, len(ranks), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
