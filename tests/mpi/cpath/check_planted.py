#!/usr/bin/env python3
"""Checks rp-cpath's results on tests/mpi/cpath/planted against what the
run was built to do.

  check_planted.py APP_OUT EXACT REPLAY HEURISTIC ITERATIONS SLOW EXTRA_US
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import check, status  # noqa: E402


def records(path, kind):
    with open(path) as f:
        return [r for r in map(json.loads, f) if r["type"] == kind]


def run_summary(path):
    (s,) = [r for r in records(path, "cp_summary") if "phase" not in r]
    return s


def main(app_out, exact, replay, heuristic, iterations, slow, extra_us):
    iterations, slow = int(iterations), int(slow)
    planted = iterations * int(extra_us) * 1000
    spans = [line.split() for line in open(app_out) if line.startswith("span ")]
    wall = max(int(s[3]) for s in spans) - min(int(s[2]) for s in spans)  # the application's time
    init = max(int(line.split()[2]) for line in open(app_out) if line.startswith("init "))
    s = run_summary(exact)
    length = s["length"]
    check(abs(s["run_time"] - wall) <= 0.001 * wall,
          f"the run's time {s['run_time'] / 1e9:.4f} s is the application's between MPI_Init and MPI_Finalize, "
          f"{wall / 1e9:.4f} s, within 0.1%")
    # The path starts where its first rank left MPI_Init, which on a busy
    # machine can be milliseconds after the first rank did: it covers the
    # application's time less at most that skew.
    skew = max(int(sp[2]) for sp in spans) - min(int(sp[2]) for sp in spans)
    check(wall - skew - 0.01 * wall <= length <= wall + 0.01 * wall,
          f"critical path {length / 1e9:.4f} s matches the application's time {wall / 1e9:.4f} s within 1%, less "
          f"the ranks' spread leaving MPI_Init, {skew / 1e6:.3f} ms ({100 * (length - wall) / wall:+.2f}%)")
    check(s["init"] <= init and s["init"] + s["rp_setup"] >= init - 0.01 * init,
          f"MPI_Init's MPI part, up to {s['init'] / 1e6:.3f} ms, and rp's set-up and tear-down, "
          f"{s['rp_setup'] / 1e6:.3f} ms, add up to the longest MPI_Init the ranks saw, {init / 1e6:.3f} ms")
    check(not s["partial"], "the analysis is complete (no missing dependencies)")
    shares = s["rank_share"]
    top_rank = max(range(len(shares)), key=lambda r: shares[r])
    check(top_rank == slow, f"rank {slow} carries the largest share ({shares[slow]:.3f}; top is rank {top_rank})")

    sites = [p for p in records(exact, "cp_profile") if p["scope"] == "site" and "phase" not in p]
    top = sites[0]
    check(top.get("call") == "MPI_Allreduce" and top.get("fn") == "main",
          f"the top site is main's MPI_Allreduce (got {top.get('call')} in {top.get('fn')})")
    check(top["cp_compute"] >= 0.97 * planted,
          f"its computation on the path, {top['cp_compute'] / 1e9:.4f} s, holds the planted {planted / 1e9:.3f} s")

    zeroings = [z for z in records(exact, "cp_zeroing") if z.get("site") == top["site"] and z["kind"] == "compute"]
    check(len(zeroings) == 1, "one what-if for the computation before the top site")
    reduction = zeroings[0]["reduction"]
    check(abs(reduction - planted) <= 0.03 * planted,
          f"zeroing it shortens the path by {reduction / 1e9:.4f} s, the planted {planted / 1e9:.3f} s within 3%")
    best = min((z for z in records(exact, "cp_zeroing") if "site" in z), key=lambda z: z["length"])
    check(best["site"] == top["site"] and best["kind"] == "compute", "and no other site's what-if gains more")

    tops = [t for t in records(exact, "cp_top") if t.get("scope") == "site"]
    check(bool(tops) and tops[0]["site"] == top["site"], "cp_top lists the top site first")

    phases = [p for p in records(exact, "cp_summary") if "phase" in p]
    check(len(phases) >= iterations, f"{len(phases)} per-phase summaries for {iterations} iterations")
    check(sum(p["length"] for p in phases) == length, "the phases' path lengths add up to the run's")

    r = run_summary(replay)
    check(abs(r["length"] - length) <= 0.01 * length,
          f"backward replay agrees: {r['length'] / 1e9:.4f} s vs {length / 1e9:.4f} s")
    rs = r["rank_share"]
    check(max(range(len(rs)), key=lambda i: rs[i]) == slow, "backward replay puts rank %d on top too" % slow)

    h = run_summary(heuristic)
    hs = h["rank_share"]
    check(max(range(len(hs)), key=lambda i: hs[i]) == slow,
          f"the topological-sorting heuristic also finds rank {slow} ({hs[slow]:.3f})")
    sys.exit(status())


if __name__ == "__main__":
    main(*sys.argv[1:])
