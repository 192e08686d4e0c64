#!/usr/bin/env python3
"""rp-cat --from otf2 on a Score-P archive against otf2-print on the same
archive (an independent reader: OTF2's own tool).

    check_scorep.py ARCHIVE CONVERTED.ndjson CPATH.ndjson

Checks, call by call, every MPI call rp records: its function, entry and
exit time ((timestamp - global offset) * 1e9 / resolution, in ns, from
otf2-print's raw timestamps and clock properties), and for each send and
receive its peer, tag and size. Then the critical path (rp-cpath on the
converted stream): for a ping-pong it is the chain of messages, going
from rank to rank at (nearly) every message, contiguous, and spanning the
run.
"""
import json
import re
import subprocess
import sys

# MPI functions rp records appear as calls; local queries are computation.
LOCAL = {"MPI_Comm_size", "MPI_Comm_rank", "MPI_Wtime", "MPI_Get_count", "MPI_Type_size"}


def otf2_print(archive):
    anchor = archive + "/traces.otf2"
    defs = subprocess.run(["otf2-print", "-G", anchor], check=True, capture_output=True, text=True).stdout
    m = re.search(r"CLOCK_PROPERTIES\s+Ticks per Seconds: (\d+), Global Offset: (\d+)", defs)
    resolution, offset = int(m.group(1)), int(m.group(2))
    ns = lambda ticks: (int(ticks) - offset) * 10**9 // resolution
    calls = {}  # location -> list of [fn, t0, t1, peer, tag, bytes]
    depth = {}
    events = subprocess.run(["otf2-print", anchor], check=True, capture_output=True, text=True).stdout
    for line in events.splitlines():
        w = line.split()
        if len(w) < 3 or not w[1].isdigit():
            continue
        kind, loc, ts = w[0], int(w[1]), w[2]
        lane = calls.setdefault(loc, [])
        region = re.search(r'Region: "([^"]+)"', line)
        if kind == "ENTER" and region and region.group(1).startswith("MPI_") and region.group(1) not in LOCAL:
            lane.append([region.group(1), ns(ts), None, None, None, None])
        elif kind == "LEAVE" and region and region.group(1).startswith("MPI_") and region.group(1) not in LOCAL:
            lane[-1][2] = ns(ts)
        elif kind in ("MPI_SEND", "MPI_RECV"):
            m = re.search(r"(?:Receiver|Sender): (\d+) .*Tag: (\d+), Length: (\d+)", line)
            lane[-1][3:6] = [int(m.group(1)), int(m.group(2)), int(m.group(3))]
    return calls


def main():
    archive, converted, cpath = sys.argv[1:4]
    expected = otf2_print(archive)
    got = {}
    for line in open(converted):
        r = json.loads(line)
        if r["type"] == "mpi":
            got.setdefault(r["rank"], []).append(
                [r["fn"], r["t0"], r["t1"], r.get("peer"), r.get("tag"), r.get("bytes")])
    problems = []
    if sorted(expected) != sorted(got):
        problems.append("ranks %s, otf2-print shows locations %s" % (sorted(got), sorted(expected)))
    sends = receives = 0
    for rank in sorted(expected):
        e, g = expected[rank], got.get(rank, [])
        if len(e) != len(g):
            problems.append("rank %d: %d calls, otf2-print shows %d" % (rank, len(g), len(e)))
        for i, (a, b) in enumerate(zip(g, e)):
            if a != b:
                problems.append("rank %d call %d: %s, otf2-print shows %s" % (rank, i, a, b))
        sends += sum(1 for c in g if c[0] == "MPI_Send")
        receives += sum(1 for c in g if c[0] == "MPI_Recv")
    if (sends, receives) != (16, 16):
        problems.append("%d sends and %d receives, the archive holds 16 and 16" % (sends, receives))

    # The critical path: the ping-pong chain.
    segments, summary = [], None
    for line in open(cpath):
        r = json.loads(line)
        if r["type"] == "cp_segment":
            segments.append(r)
        elif r["type"] == "cp_summary" and "phase" not in r:
            summary = r
    switches = sum(1 for a, b in zip(segments, segments[1:]) if a["rank"] != b["rank"])
    gaps = [(a["t1"], b["t0"]) for a, b in zip(segments, segments[1:]) if a["t1"] != b["t0"]]
    # Each message moves the path to the other rank, except where the
    # receiver was the later one anyway (a message already waiting for it):
    # on this run the first one, and one whose rendezvous send the path
    # reaches from the receiver's side.
    if switches < 14:
        problems.append("the critical path changes rank %d times; the ping-pong's 16 messages make it a chain "
                        "(at least 14)" % switches)
    for s in segments:
        if s["kind"] == "transfer" and s.get("peer") == s["rank"]:
            problems.append("transfer from a rank to itself: %s" % s)
    if gaps:
        problems.append("the path is not contiguous: %s" % gaps[:3])
    if summary is None or summary["length"] < 0.999 * summary["run_time"]:
        problems.append("the chain should span the run: %s" % summary)
    for p in problems[:20]:
        print("FAIL: " + p)
    if problems:
        return 1
    print("scorep: %d calls on %d ranks equal otf2-print's; %d sends, %d receives; critical path %d ns of %d, "
          "%d rank changes" % (sum(len(v) for v in got.values()), len(got), sends, receives, summary["length"],
                               summary["run_time"], switches))
    return 0


if __name__ == "__main__":
    sys.exit(main())
