#!/usr/bin/env bash
# All ranks on one host read one CLOCK_MONOTONIC (same host name and boot
# id, which the collector records): rank 0 measures no offset at all, and
# rp-clocksync maps nothing, says which ranks share the clock, and moves
# no event.
set -euo pipefail
source tests/mpi/testenv.sh
app=$1
rp-record --sample-hz 0 -o "$work/run.ndjson" -- "${MPIRUN[@]}" -np 8 "$root/$app" -n 100 -u 500 -s 3 -x 200

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
echo PASS
