#!/usr/bin/env python3
"""The online critical path of tests/mpi/families against rp-cpath's on the
trace of the same run.

    check_online.py TRACE ONLINE EXACT RP_RECORD_LOG

The collector follows every call rp-cpath's graph follows except those on
a communicator it saw no way to duplicate: one made by MPI_Comm_idup (kind
"other" in the trace: its new handle comes with a later completion) is
left local online, so its collectives join no path. Inter-communicator
collectives are local in both. So:
  - rp-record's log counts exactly the calls left local: the collectives
    on "other" communicators and on inter-communicators;
  - the two lengths differ by no more than the time of the collectives on
    "other" communicators (a call left local counts from its own entry
    online, from its last member's entry offline);
  - nothing else is unmatched or partial online.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import check, status  # noqa: E402

LOCAL_KINDS = ("other", "intercomm")
NOT_COLLECTIVE = ("MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Comm_free", "MPI_Intercomm_merge",
                  "MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_create")


def run_summary(path):
    for line in open(path):
        r = json.loads(line)
        if r["type"] == "cp_summary" and "phase" not in r:
            return r
    raise SystemExit("%s: no cp_summary of the run" % path)


def main(trace, online, exact, log):
    kinds, calls = {}, []
    for line in open(trace):
        r = json.loads(line)
        if r["type"] == "comm":
            kinds[r["id"]] = r.get("kind")
        elif r["type"] == "mpi":
            calls.append(r)
    local = [c for c in calls if kinds.get(c.get("comm")) in LOCAL_KINDS and c["fn"] not in NOT_COLLECTIVE]
    other = [c for c in local if kinds[c["comm"]] == "other"]
    told = re.search(r"(\d+) calls on communicators without a duplicate left local", open(log).read())
    check(told is not None and int(told.group(1)) == len(local),
          "calls left local: rp-record says %s, the trace has %d (%d on MPI_Comm_idup's)" %
          (told.group(1) if told else "none", len(local), len(other)))
    check(len(other) > 0, "the run has collectives on a communicator from MPI_Comm_idup")
    a, b = run_summary(online), run_summary(exact)
    bound = sum(c["t1"] - c["t0"] for c in other)
    check(abs(a["length"] - b["length"]) <= bound,
          "length online %d ns, rp-cpath %d ns: %+d ns, within the %d ns of calls left local" %
          (a["length"], b["length"], a["length"] - b["length"], bound))
    check(a["run_time"] == b["run_time"], "run time %d ns, rp-cpath's %d ns" % (a["run_time"], b["run_time"]))
    for field in ("partial", "unmatched_sends", "unmatched_receives", "incomplete_ranks"):
        check(not a[field], "online %s: %s" % (field, a[field]))
    return status()


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
