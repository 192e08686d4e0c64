#!/usr/bin/env bash
# Crash scenarios: the job fails, rp-record must still merge what was
# flushed, exit 2, name the incomplete ranks, keep the raw files, and
# rp-record --merge on those files must report the same.
#   run_crash_test.sh killed APP SIGNAL MIN_FRACTION   (ring app, rank 2 dies)
#   run_crash_test.sh no_finalize APP
set -uo pipefail
source tests/mpi/testenv.sh
scenario=$1
app=$2
export RP_EXPECT_DIR=$work

if [ "$scenario" = killed ]; then
  signal=$3
  min_fraction=$4
  args=(4000 3000 2 "$signal")
  np=4
else
  args=()
  np=3
fi
rp-record --buffer-kb 16 --sample-hz 0 -o "$work/trace.ndjson" -- \
  "${MPIRUN[@]}" -np $np -x RP_EXPECT_DIR "$root/$app" "${args[@]}" \
  >"$work/out" 2>&1
status=$?
cat "$work/out"
[ $status = 2 ] || fail "rp-record exited $status, expected 2"
grep -q "raw files kept in" "$work/out" || fail "raw files not kept"
rp-cat --validate "$work/trace.ndjson" || fail "merged trace is not valid"
if [ "$scenario" = killed ]; then
  grep -q "rank 2 " "$work/out" || fail "rank 2 not reported"
  python3 "$root/tests/mpi/crash/check_crash.py" "$work/trace.ndjson" "$work" 4 prefix 2 "$min_fraction" ||
    fail "trace does not match the calls made"
else
  grep -q "ended without MPI_Finalize" "$work/out" || fail "missing MPI_Finalize not reported"
  python3 "$root/tests/mpi/crash/check_crash.py" "$work/trace.ndjson" "$work" 3 complete -1 1 ||
    fail "trace does not match the calls made"
fi
# The kept files merge again, with the same report and exit status.
rp-record --merge "$work/trace.ndjson.raw" -o "$work/again.ndjson" >"$work/again.out" 2>&1
status=$?
cat "$work/again.out"
[ $status = 2 ] || fail "rp-record --merge exited $status, expected 2"
grep -q "incomplete" "$work/again.out" || fail "--merge did not report the incomplete trace"
cmp <(grep -v '"type":"header"' "$work/trace.ndjson") <(grep -v '"type":"header"' "$work/again.ndjson") ||
  fail "--merge gave different records"
echo PASS
