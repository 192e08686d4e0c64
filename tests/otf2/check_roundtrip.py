#!/usr/bin/env python3
"""An rp stream against what came back through OTF2 (rp-cat --to otf2, then
--from otf2): the same mpi records, call by call.

    check_roundtrip.py ORIGINAL.ndjson BACK.ndjson

OTF2 carries less than an rp stream in a few places, and the comparison
says so rather than hiding it:
  - a posted receive's source, tag and size are recorded only when it
    completes: the original's are taken from its completion (resolved);
  - MPI_Send_init / MPI_Recv_init and probes have no OTF2 event: rp-cat
    writes what they have as attributes of their Enter (peer, tag, bytes,
    comm, req; msg on matched probes and receives), which come back;
    archives other tools wrote lack them;
  - request frees and cancels, and sends and receives with MPI_PROC_NULL,
    have no OTF2 event: only the call comes back;
  - calls that make or free communicators carry no communicator in OTF2
    (CommCreate names the new one); a matched receive's communicator, which
    the collector does not record, comes back from OTF2's receive event;
  - reduction operations, MPI-IO and one-sided
    fields, and the collector's own time (rp) have no OTF2 field.
rp-cpath's answer on both streams is compared by run_roundtrip_test.sh.
Sites are compared by id and by what they name (function, file, line).
"""
import json
import sys

P2P = {"MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend", "MPI_Recv", "MPI_Sendrecv", "MPI_Sendrecv_replace"}
CALL_ONLY = {"MPI_Request_free", "MPI_Cancel"}
NOT_CARRIED = {"type", "rp", "phase", "resolved", "op", "fh", "offset", "win"}
POSTED = {"MPI_Irecv", "MPI_Imrecv"}
COMM_MAKERS = ("MPI_Comm_", "MPI_Cart_", "MPI_Graph_", "MPI_Dist_graph_", "MPI_Intercomm_")


def load(path):
    sites, calls = {}, {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r["type"] == "site":
                sites[r["id"]] = (r.get("fn"), r.get("file"), r.get("line"))
            elif r["type"] == "mpi":
                calls[(r["rank"], r["seq"])] = r
    return sites, calls


def normalise(calls, original):
    resolved = {}
    if original:
        for r in calls.values():
            for c in r.get("resolved", []):
                resolved[(r["rank"], c["req"])] = c
    out = {}
    for key, r in calls.items():
        r = {k: v for k, v in r.items() if k not in NOT_CARRIED}
        for side in ("", "r"):  # MPI_PROC_NULL
            if r.get(side + "peer") == -2:
                for k in ("peer", "tag", "bytes"):
                    r.pop(side + k, None)
        if "peer" not in r and "rpeer" not in r and r["fn"] not in POSTED and r["fn"] in P2P:
            r.pop("comm", None)
        if r["fn"] in CALL_ONLY:
            r = {k: r[k] for k in ("rank", "seq", "fn", "t0", "t1", "site") if k in r}
        if r["fn"].startswith(COMM_MAKERS) or r["fn"] in ("MPI_Mrecv", "MPI_Imrecv"):
            r.pop("comm", None)
        if r["fn"] in POSTED and original:
            c = resolved.get((r["rank"], r.get("req")))
            if c is not None:
                r.update(peer=c["peer"], tag=c["tag"], bytes=c["bytes"])
        if "root" in r or r["fn"].replace("MPI_I", "MPI_").replace("MPI_", "") in COLLECTIVES:
            r.setdefault("bytes", 0)
            r.setdefault("rbytes", 0)
        out[key] = r
    return out


COLLECTIVES = {"Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Scatter", "Scatterv",
               "Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Reduce_scatter",
               "Reduce_scatter_block", "Scan", "Exscan", "arrier"}


def main():
    sites_a, a = load(sys.argv[1])
    sites_b, b = load(sys.argv[2])
    a, b = normalise(a, True), normalise(b, False)
    problems = []
    if set(a) != set(b):
        problems.append("calls only in the original: %s; only back: %s" %
                        (sorted(set(a) - set(b))[:5], sorted(set(b) - set(a))[:5]))
    for key in sorted(set(a) & set(b)):
        if a[key] != b[key]:
            keys = sorted(set(a[key]) | set(b[key]))
            diff = {k: (a[key].get(k), b[key].get(k)) for k in keys if a[key].get(k) != b[key].get(k)}
            problems.append("rank %d call %d (%s): %s" % (key[0], key[1], a[key]["fn"], diff))
        site = a[key].get("site")
        if site is not None and sites_a.get(site) != sites_b.get(site):
            problems.append("site %d: %s became %s" % (site, sites_a.get(site), sites_b.get(site)))
    for p in problems[:10]:
        print("roundtrip: " + p)
    if problems:
        print("roundtrip: %d differences in %d calls" % (len(problems), len(a)))
        return 1
    print("roundtrip: %d calls, %d sites: the same" % (len(a), len(sites_a)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
