"""The whole run's paths against its phases' (shared by the rp-repr checks).

When every phase ends at an all-to-all synchronization (rp-phases cuts
there), every path of the run is one path of each phase end to end, and
the hub of each synchronization joins all of them; repr and topk keep the
most and the least costly candidate at every join. So the run's 100% path
costs exactly the sum of the phases' 100% paths, and its 0% path the sum
of their 0% paths.
"""
from checks import check


def check_run_is_phase_sums(records, name):
    run = sorted((r for r in records if r["type"] == "path" and "phase" not in r), key=lambda r: r["order"])
    phases = {}
    for r in records:
        if r["type"] == "path" and "phase" in r:
            phases.setdefault(r["phase"], []).append(r)
    check(len(run) >= 2 and len(phases) > 0, f"{name}: {len(run)} whole-run paths beside {len(phases)} phases'")
    if len(run) < 2:
        return
    most = sum(max(p["cost"] for p in ps) for ps in phases.values())
    least = sum(min(p["cost"] for p in ps) for ps in phases.values())
    check(run[0]["cost"] == most and run[-1]["cost"] == least,
          f"{name}: the run's 100% and 0% paths ({run[0]['cost']}, {run[-1]['cost']} ns) are the sums of the "
          f"phases' ({most}, {least} ns)")
