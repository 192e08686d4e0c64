#!/usr/bin/env bash
# One recorded run, merged into one stream and split into 2, 4 and 6
# (asked: 100) files: rp-cat and every stage give the same bytes on the
# index as on the merged stream. Then the ways a split trace can be
# broken, each an exit status 2 and a message naming the file.
set -uo pipefail
source tests/mpi/testenv.sh
app=$1
gen_halo=$2
raw="$work/raw"
cd "$work"
run=("${MPIRUN[@]}" -np 6 --mca mpi_yield_when_idle 1 "$root/$app" -m chain -n 6 -b 2000 -e 4000)

rp-record --keep --dir "$raw" --split 3 -o job.ndjson.zst -- "${run[@]}" 2>job.err || { cat job.err; fail "rp-record --split"; }
cat job.err
grep -q "the index of 3 parts" job.err || fail "rp-record does not say it wrote 3 parts"
[ "$(ls job.part*.ndjson.zst | wc -l)" = 3 ] || fail "3 part files expected: $(ls)"
rp-record --merge "$raw" -o merged.ndjson.zst 2>/dev/null || fail "rp-record --merge"
# The job's header names rp-record's command line, --merge's the app's.
cmp <(rp-cat job.ndjson.zst | tail -n +2) <(rp-cat merged.ndjson.zst | tail -n +2) ||
  fail "the job's split trace reads differently from the merged trace"

for n in 2 4 100; do
  rp-record --merge "$raw" --split $n -o split$n.ndjson.zst 2>/dev/null || fail "rp-record --merge --split $n"
done
[ "$(ls split100.part*.ndjson.zst | wc -l)" = 6 ] || fail "--split 100 on 6 ranks: one file per rank expected"
[ "$(rp-cat split4.ndjson.zst | grep -c '"type":"part"')" = 0 ] || fail "part records reach the reader"
[ "$(zstd -dc split4.ndjson.zst | grep -c '"type":"part"')" = 4 ] || fail "the index should name 4 parts"
# The parts hold every event once, with the ranks the index gives them.
events=$(rp-cat -t mpi,sample merged.ndjson.zst | grep -vc '"type":"header"')
parts=0
for f in split4.part*.ndjson.zst; do
  parts=$((parts + $(zstd -dc "$f" | grep -vc '"type":"header"')))
done
[ "$parts" = "$events" ] || fail "the parts hold $parts records, the trace $events"
rp-cat --validate split4.ndjson.zst || fail "the split trace is not valid"

for n in 2 4 100; do
  cmp <(rp-cat merged.ndjson.zst) <(rp-cat split$n.ndjson.zst) || fail "rp-cat: split $n differs"
  for stage in rp-clocksync "rp-clocksync --method gaps" rp-phases rp-cpath rp-repr rp-diagnose; do
    cmp <($stage merged.ndjson.zst 2>/dev/null) <($stage split$n.ndjson.zst 2>/dev/null) ||
      fail "$stage: split $n differs from the merged trace"
  done
done
# Many ranks: a generated trace of 256 ranks (local clocks, samples) in 16
# parts reads the same through every stage.
"$root/$gen_halo" --ranks 256 --events 200000 --sync-every 4 --sample-hz 1000 --clock-offset 100000 \
  --clock-drift 5 -o halo.ndjson.zst || fail "gen-halo"
rp-cat --split 16 halo.ndjson.zst -o halo16.ndjson.zst || fail "rp-cat --split 16"
for stage in rp-cat rp-clocksync "rp-clocksync --method gaps" rp-phases rp-cpath rp-repr rp-diagnose; do
  cmp <($stage halo.ndjson.zst 2>/dev/null) <($stage halo16.ndjson.zst 2>/dev/null) ||
    fail "$stage: 256 ranks in 16 parts differ from the merged trace"
done
cmp <(rp-clocksync merged.ndjson.zst | rp-phases | rp-cpath 2>/dev/null) \
    <(rp-clocksync split4.ndjson.zst | rp-phases | rp-cpath 2>/dev/null) || fail "the pipeline differs"
# From stdin, the parts are looked for in the working directory.
cmp <(rp-cat merged.ndjson.zst) <(rp-cat <split4.ndjson.zst) || fail "an index on stdin reads differently"

# rp-cat --split: any stage's output splits too (rp-clocksync's summaries
# follow the events, rp-cpath's segments lie between them).
rp-clocksync merged.ndjson.zst >synced.ndjson
rp-cat --split 3 synced.ndjson -o synced-split.ndjson.zst || fail "rp-cat --split"
cmp synced.ndjson <(rp-cat synced-split.ndjson.zst) || fail "rp-cat --split: the split reads differently"
cmp <(rp-phases synced.ndjson | rp-cpath 2>/dev/null) <(rp-phases synced-split.ndjson.zst | rp-cpath 2>/dev/null) ||
  fail "rp-cat --split: the pipeline differs"

# Broken split traces.
expect_error() {  # what, expected message, command...
  local what=$1 message=$2
  shift 2
  "$@" >/dev/null 2>err
  local status=$?
  cat err
  [ $status = 2 ] || fail "$what: exit status $status, expected 2"
  grep -qF -- "$message" err || fail "$what: no message '$message'"
}
mkdir broken
cp split4.* broken/
mv broken/split4.part2.ndjson.zst broken/away
expect_error "a missing part" "broken/split4.ndjson.zst names a part that cannot be read: broken/split4.part2.ndjson.zst: cannot open" \
  rp-cpath broken/split4.ndjson.zst
zstd -dc broken/away | head -n 5 | zstd -q -o broken/split4.part2.ndjson.zst
expect_error "a truncated part" "broken/split4.part2.ndjson.zst: 4 records, its index says" rp-cat broken/split4.ndjson.zst
mv broken/away broken/split4.part2.ndjson.zst
zstd -dc split4.ndjson.zst | grep -v '"file":"split4.part1' | zstd -q -f -o broken/split4.ndjson.zst
expect_error "ranks missing" "broken/split4.ndjson.zst: ranks" rp-phases broken/split4.ndjson.zst
grep -q "are in no part" err || fail "ranks missing: not said"
# Parts of another run of the same command.
rp-record --sample-hz 0 --split 4 -o other.ndjson.zst -- "${run[@]}" 2>/dev/null || fail "the second run"
cp split4.ndjson.zst broken/
cp other.part1.ndjson.zst broken/split4.part1.ndjson.zst
expect_error "a part of another run" "broken/split4.part1.ndjson.zst: its header differs from its index's" \
  rp-cat broken/split4.ndjson.zst
rp-phases synced.ndjson | rp-cpath >cpath.ndjson 2>/dev/null
rp-cat --split 4 cpath.ndjson -o cpath-split.ndjson || fail "rp-cat --split of rp-cpath's output"
cmp cpath.ndjson <(rp-cat cpath-split.ndjson) || fail "rp-cat --split: rp-cpath's output reads differently"
cmp <(rp-diagnose cpath.ndjson 2>/dev/null) <(rp-diagnose cpath-split.ndjson 2>/dev/null) || fail "rp-diagnose differs"
# rp-phases' output is in phase order: it splits and reads back in it.
rp-phases synced.ndjson >phased.ndjson
rp-cat --split 3 phased.ndjson -o phased-split.ndjson.zst || fail "rp-cat --split of rp-phases' output"
cmp phased.ndjson <(rp-cat phased-split.ndjson.zst) || fail "rp-cat --split: rp-phases' output reads differently"
expect_error "--split to stdout" "--split writes files beside its index" rp-record --merge "$raw" --split 2 -o -
echo PASS
