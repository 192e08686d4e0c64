#!/usr/bin/env bash
# rp-record --merge over damaged files: rank 1's file cut in the middle of a
# record, rank 2's with a corrupt record header, rank 3's missing. The merge
# must keep everything readable (ranks 0-2, each a prefix of what it
# recorded), name each problem, and exit 2.
set -uo pipefail
source tests/mpi/testenv.sh
app=$1
export RP_EXPECT_DIR=$work

rp-record --keep --sample-hz 0 -o "$work/trace.ndjson" -- \
  "${MPIRUN[@]}" -np 4 -x RP_EXPECT_DIR "$root/$app" 500 0 -1 0 ||
  fail "recording the intact run failed"
raw="$work/trace.ndjson.raw"
size1=$(stat -c %s "$raw/rank-1.rpraw")
truncate -s $((size1 / 2 + 3)) "$raw/rank-1.rpraw"
# Rank 2: garbage over the first record header (right after the 152-byte
# file header). Damage inside a record is not detectable: the format has no
# checksums.
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$raw/rank-2.rpraw" bs=1 seek=152 conv=notrunc status=none
rm "$raw/rank-3.rpraw"

rp-record --merge "$raw" -o "$work/merged.ndjson" >"$work/out" 2>&1
status=$?
cat "$work/out"
[ $status = 2 ] || fail "exit status $status, expected 2"
grep -q "no data for rank(s) 3 of 4" "$work/out" || fail "missing rank 3 not reported"
grep -q "rank-1.rpraw: file ends inside a record" "$work/out" || fail "torn rank 1 not reported"
grep -q "rank-2.rpraw: corrupt record" "$work/out" || fail "corrupt rank 2 not reported"
rp-cat --validate "$work/merged.ndjson" || fail "merged trace is not valid"
python3 "$root/tests/mpi/crash/check_crash.py" "$work/merged.ndjson" "$work" 3 prefix -1 1.0 ||
  fail "kept events do not match the calls made"
echo PASS
