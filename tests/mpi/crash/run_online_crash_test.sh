#!/usr/bin/env bash
# rp-record --online when rank 2 of a ring is killed (SIGKILL) mid-run and
# mpirun ends the others with SIGTERM: there is no MPI_Finalize answer, so
# the ranks' own paths at their end stand in. rp-record must exit 2, say
# so, and write the longest of them, flagged partial.
set -uo pipefail
source tests/mpi/testenv.sh
export RP_EXPECT_DIR=$work
rp-record --online -o "$work/cp.ndjson" -- "${MPIRUN[@]}" -np 4 -x RP_EXPECT_DIR "$root/$1" 4000 3000 2 9 \
  >"$work/out" 2>&1
status=$?
cat "$work/out"
[ $status = 2 ] || fail "rp-record exited $status, expected 2"
grep -q "the job ended before MPI_Finalize: the online answer is the longest of the paths" "$work/out" ||
  fail "the partial answer is not reported"
rp-cat --validate "$work/cp.ndjson" || fail "the partial answer is not a valid stream"
python3 - "$work/cp.ndjson" <<'PY' || fail "the partial answer is wrong"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
s = [r for r in recs if r["type"] == "cp_summary"][0]
top = max((r for r in recs if r["type"] == "cp_profile" and r.get("scope") == "site"), key=lambda r: r["cp"])
print("length", s["length"], "run_time", s["run_time"], "top", top.get("call"), top.get("line"))
# The ring keeps every rank in step: the path spans most of the run up to
# the end, all of it at the ring's Sendrecv (no work between calls).
assert s["algo"] == "online" and s["partial"] and s["incomplete_ranks"] == 4, s
assert 0.5 * s["run_time"] <= s["length"] <= s["run_time"], s
assert top.get("call") == "MPI_Sendrecv" and top["cp"] >= 0.5 * s["length"], top
PY
echo PASS
