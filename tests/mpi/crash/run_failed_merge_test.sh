#!/usr/bin/env bash
# A merge that fails (here: a write error) leaves no output, keeps the
# previous file of that name and every raw per-rank file, in both modes:
# rp-record running the job, and rp-record --merge. An output that is one
# of the raw files is refused before anything is written.
set -uo pipefail
source tests/mpi/testenv.sh
app=$1
export RP_EXPECT_DIR=$work
raw="$work/raw"
count_raw() { ls "$raw"/rank-*.rpraw 2>/dev/null | wc -l; }

# The job runs, the merge cannot write (/dev/full: "No space left on device").
rp-record --sample-hz 0 --dir "$raw" -o /dev/full -- \
  "${MPIRUN[@]}" -np 4 -x RP_EXPECT_DIR "$root/$app" 500 0 -1 0 >"$work/out" 2>&1
status=$?
cat "$work/out"
[ $status = 2 ] || fail "exit status $status, expected 2"
grep -q "No space left on device" "$work/out" || fail "the write error is not reported"
grep -q "raw files kept in $raw" "$work/out" || fail "not told where the raw files are"
[ "$(count_raw)" = 4 ] || fail "raw files removed after a failed merge: $(count_raw) of 4 left"

# --merge into an existing file, under a file size limit (EFBIG): the file
# keeps its content, no temporary file is left, the raw files stay.
echo previous >"$work/trace.ndjson"
(trap '' XFSZ; ulimit -f 8; rp-record --merge "$raw" -o "$work/trace.ndjson") >"$work/out" 2>&1
status=$?
cat "$work/out"
[ $status = 2 ] || fail "--merge: exit status $status, expected 2"
grep -q "File too large" "$work/out" || fail "--merge: the write error is not reported"
[ "$(cat "$work/trace.ndjson")" = previous ] || fail "--merge: the previous output was overwritten"
[ -z "$(ls -A "$work" | grep '\.rp-')" ] || fail "--merge: a temporary file was left: $(ls -A "$work")"
[ "$(count_raw)" = 4 ] || fail "--merge: raw files removed: $(count_raw) of 4 left"

# An output that is one of the raw files is refused; the file is untouched.
cp "$raw/rank-0.rpraw" "$work/rank-0.copy"
rp-record --merge "$raw" -o "$raw/rank-0.rpraw" >"$work/out" 2>&1
status=$?
cat "$work/out"
[ $status = 2 ] || fail "output = input: exit status $status, expected 2"
grep -q "is both input and output" "$work/out" || fail "output = input: not reported"
cmp -s "$raw/rank-0.rpraw" "$work/rank-0.copy" || fail "output = input: the raw file was changed"

# With room to write, the same files merge, and replace the previous file.
rp-record --merge "$raw" -o "$work/trace.ndjson" || fail "the merge with room to write failed"
rp-cat --validate "$work/trace.ndjson" || fail "the merged trace is not valid"
echo PASS
