#!/usr/bin/env bash
# All ranks on one host read one CLOCK_MONOTONIC (same host name and boot
# id, which the collector records): rank 0 measures no offset at all, and
# rp-clocksync maps nothing, says which ranks share the clock, and moves
# no event. Each iteration also has an MPI_Allgatherv that moves nothing,
# which ranks leave before the slow rank enters it: no dependency goes back
# in time there, for rp-clocksync nor for rp-cpath; and rp-record --online,
# which skips them alike, finds rp-cpath's path on the trace of its run.
set -euo pipefail
source tests/mpi/testenv.sh
app=$1
rp-record --sample-hz 0 -o "$work/run.ndjson" -- "${MPIRUN[@]}" -np 8 "$root/$app" -n 100 -u 500 -s 3 -x 200 -e 1

python3 - "$work/run.ndjson" <<'PY' || fail "rank records or clock measurements"
import json, sys
ranks, clocks = [], []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "rank": ranks.append(r)
    if r["type"] == "clock": clocks.append(r)
assert len(ranks) == 8 and all(r.get("boot") for r in ranks), "every rank record has a boot id"
assert len({(r["host"], r["boot"]) for r in ranks}) == 1, "one host and boot"
assert {c["rank"] for c in clocks} == {0}, "only rank 0 writes clock measurements: %s" % sorted({c["rank"] for c in clocks})
assert all(c["offset"] == 0 for c in clocks)
print("8 ranks on one host and boot; clock measurements:", len(clocks), "(rank 0 only)")
PY

rp-clocksync --report "$work/run.ndjson" -o "$work/synced.ndjson" 2>&1 | tee "$work/report"
grep -q "ranks 0-7 read one clock (same host and boot): rank 0's, left as it is" "$work/report" ||
  fail "--report does not say that the ranks share rank 0's clock"
python3 - "$work/run.ndjson" "$work/synced.ndjson" <<'PY' || fail "events were moved or clocks mapped"
import json, sys
def calls(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        if r["type"] == "mpi": out[(r["rank"], r["seq"])] = (r["t0"], r["t1"])
    return out
before, after = calls(sys.argv[1]), calls(sys.argv[2])
assert before == after, "%d of %d events moved" % (sum(before[k] != after.get(k) for k in before), len(before))
summaries = [json.loads(l) for l in open(sys.argv[2]) if '"type":"clock"' in l and '"pingpong"' not in l]
assert len(summaries) == 8
for s in summaries:
    assert s["offset"] == 0 and s["drift"] == 0 and s["moved"] == 0, s
    assert s.get("shares", 0) == 0, s
print("no event moved of", len(before), "; every offset 0, every drift 0")
PY
python3 - "$work/run.ndjson" <<'PY' || fail "the app's empty MPI_Allgatherv calls were not left early"
import json, sys
calls = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "mpi" and r["fn"] == "MPI_Allgatherv":
        assert r["bytes"] == 0 and r["rbytes"] == 0, r
        calls[(r["rank"], r["seq"])] = r
by_rank = {}
for (rank, seq), r in sorted(calls.items()):
    by_rank.setdefault(rank, []).append(r)
assert len(by_rank) == 8 and all(len(v) == 100 for v in by_rank.values()), "100 calls on each of 8 ranks"
early = sum(any(by_rank[q][i]["t1"] < by_rank[3][i]["t0"] for q in by_rank if q != 3) for i in range(100))
assert early >= 50, "a rank left before the slow rank 3 entered in only %d of 100 calls" % early
print("empty MPI_Allgatherv: some rank left before the slow rank entered in", early, "of 100 calls")
PY
rp-cpath --no-passthrough "$work/run.ndjson" -o "$work/cpath.ndjson" 2>"$work/cpath.err" || fail "rp-cpath failed"
! grep -q "back in time" "$work/cpath.err" || fail "rp-cpath: $(cat "$work/cpath.err")"

rp-record -q --online --trace "$work/online.trace.ndjson" -o "$work/online.ndjson" -- "${MPIRUN[@]}" -np 4 \
  "$root/$app" -n 40 -u 300 -s 2 -x 200 -e 1 -r 7 >/dev/null
rp-cpath --no-passthrough "$work/online.trace.ndjson" -o "$work/online.exact.ndjson" 2>/dev/null
python3 - "$work/online.ndjson" "$work/online.exact.ndjson" <<'PY' || fail "online and offline paths differ"
import json, sys
def run_length(path):
    runs = [r for r in map(json.loads, open(path)) if r["type"] == "cp_summary" and r.get("phase") is None]
    assert len(runs) == 1, path
    return runs[0]["length"]
online, exact = run_length(sys.argv[1]), run_length(sys.argv[2])
# The online tests' tolerance (tests/mpi/online/check_patterns.py).
assert abs(online - exact) <= exact // 1000 + 10_000, "online %d ns, rp-cpath %d ns" % (online, exact)
print("online path", online, "ns, rp-cpath on the trace", exact, "ns")
PY
echo PASS
