#!/usr/bin/env python3
"""Sanity of rp-diagnose's answer on LAMMPS (run_lammps.sh).

Usage: check_lammps.py DIAGNOSIS_NDJSON RANKS

Nothing here is planted, so the checks are what any correct diagnosis
of any run must satisfy: the run's efficiencies are shares in (0, 1] and
multiply as POP defines them; every rank is counted; findings are sorted
by severity, each saves less than the run's time and at least the
threshold (off-path hot spots excepted), and the shares add up to less
than the whole run's waiting allows; findings name LAMMPS's code
(LAMMPS_NS:: functions, from its symbols) and the MPI calls it makes; the
critical path is no longer than the run.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "mpi"))
from checks import check, status  # noqa: E402


def main(path, ranks):
    ranks = int(ranks)
    recs = [json.loads(l) for l in open(path)]
    run = next(r for r in recs if r["type"] == "efficiency" and "cluster" not in r)
    cp = next(r for r in recs if r["type"] == "cp_summary" and "phase" not in r)
    findings = [r for r in recs if r["type"] == "finding"]
    check(run["ranks"] == ranks, f"{run['ranks']} ranks counted, {ranks} ran")
    shares = ["load_balance", "communication", "serialisation", "transfer", "parallel"]
    check(all(0 < run[k] <= 1.0 + 1e-9 for k in shares), "efficiencies in (0, 1]: " +
          ", ".join(f"{k} {100 * run[k]:.1f}%" for k in shares))
    check(abs(run["parallel"] - run["load_balance"] * run["communication"]) < 0.01,
          "parallel efficiency = load balance x communication")
    check(abs(run["communication"] - run["serialisation"] * run["transfer"]) < 0.01,
          "communication = serialisation x transfer")
    check(cp["length"] <= run["runtime"] * 1.001, f"critical path {cp['length'] / 1e6:.1f} ms within the run's "
          f"{run['runtime'] / 1e6:.1f} ms")
    severities = [f["severity"] for f in findings]
    check(severities == sorted(severities, reverse=True), f"{len(findings)} findings, most severe first")
    check(all(0 <= f["saved"] < run["runtime"] for f in findings), "each saves less than the run")
    check(all(f["severity"] >= 0.01 or f["category"] == "off_path_hotspot" for f in findings),
          "each above the 1% threshold")
    named = [c for f in findings for c in f.get("causes", []) + [f.get("fn", "")] if "LAMMPS_NS::" in c]
    check(bool(named), f"findings name LAMMPS's code: {sorted(set(named))[:4]}")
    check(all(f.get("call", "MPI_").startswith("MPI_") for f in findings), "at MPI calls")


if __name__ == "__main__":
    main(*sys.argv[1:])
    sys.exit(status())
