#!/usr/bin/env bash
# Ranks 0-3 on "host-a" and 4-7 on "host-b" (UTS namespaces: the same
# machine under two host names): rank 0 measures only the leader of the
# other host (rank 4); rp-clocksync gives ranks 1-3 rank 0's clock as it
# is and ranks 5-7 exactly rank 4's mapping, an estimate near zero.
set -euo pipefail
source tests/mpi/testenv.sh
app=$1
unshare --uts true 2>/dev/null || { echo "SKIP: unshare --uts not permitted here"; exit 0; }
export RP_SPLIT_AT=4
rp-record --sample-hz 0 -o "$work/run.ndjson" -- "${MPIRUN[@]}" -np 8 -x RP_SPLIT_AT \
  "$root/tests/mpi/clock/as_host.sh" "$root/$app" -n 100 -u 500 -s 3 -x 200

python3 - "$work/run.ndjson" <<'PY' || fail "clock measurements"
import json, sys
clocks = {json.loads(l)["rank"] for l in open(sys.argv[1]) if '"type":"clock"' in l}
hosts = {json.loads(l)["host"] for l in open(sys.argv[1]) if '"type":"rank"' in l}
assert hosts == {"host-a", "host-b"}, hosts
assert clocks == {0, 4}, "clock measurements of ranks %s, expected 0 and 4" % sorted(clocks)
print("two hosts; clock measurements of ranks 0 and 4 only")
PY

rp-clocksync --report "$work/run.ndjson" -o "$work/synced.ndjson" 2>&1 | tee "$work/report"
grep -q "ranks 0-3 read one clock (same host and boot): rank 0's, left as it is" "$work/report" || fail "host-a"
grep -q "ranks 4-7 read one clock (same host and boot): mapped as one, from rank 4's group's measurements" \
  "$work/report" || fail "host-b"
python3 - "$work/run.ndjson" "$work/synced.ndjson" <<'PY' || fail "mappings"
import json, sys
first = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "mpi": first.setdefault(r["rank"], r["t0"])
s = {r["rank"]: r for r in (json.loads(l) for l in open(sys.argv[2])) if r["type"] == "clock"}
for r in (1, 2, 3):
    assert s[r]["offset"] == 0 and s[r]["drift"] == 0 and s[r]["shares"] == 0, s[r]
for r in (5, 6, 7):
    # One line: its offset, read at each rank's first event, moves by the
    # drift over the time between their first events.
    assert s[r]["shares"] == 4 and s[r]["drift"] == s[4]["drift"], (s[r], s[4])
    expected = s[4]["offset"] + s[4]["drift"] * 1e-6 * (first[r] - first[4])
    assert abs(s[r]["offset"] - expected) <= 2, (s[r], s[4], expected)
assert abs(s[4]["offset"]) < 100_000, "one machine's clock: the estimate must be near 0, got %d ns" % s[4]["offset"]
print("host-b's mapping: offset %d ns, drift %.3f ppm, for ranks 4-7" % (s[4]["offset"], s[4]["drift"]))
PY
# A rank that cannot create its file (here rank 4, host-b's leader: its
# file's name is taken by a directory) records nothing, but still takes
# part in the handshakes: the job ends, and the merge names the rank.
mkdir -p "$work/raw/rank-4.rpraw"
status=0
timeout 120 rp-record --sample-hz 0 --dir "$work/raw" -o "$work/lost.ndjson" -- "${MPIRUN[@]}" -np 8 -x RP_SPLIT_AT \
  "$root/tests/mpi/clock/as_host.sh" "$root/$app" -n 20 -u 500 >"$work/lost.out" 2>&1 || status=$?
cat "$work/lost.out"
[ $status = 2 ] || fail "a rank without a file: exit status $status, expected 2 (124: the job hung)"
grep -q "no data for rank(s) 4 of 8" "$work/lost.out" || fail "the rank without a file is not named"
echo PASS
