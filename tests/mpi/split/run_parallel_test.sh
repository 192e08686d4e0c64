#!/usr/bin/env bash
# The stages on P = 1, 2, 3, 4, 8 processes: the split output of
# rp-phases-mpi, rp-cpath-mpi, rp-clocksync-mpi, rp-repr-mpi and
# rp-diagnose-mpi, read
# through its index,
# is the one-process stage's output on the merged trace byte for byte --
# on a recorded run (6 ranks in 6 parts: with 8 processes, some
# read none), on a generated trace of 256 ranks in 16 parts, and after
# rp-clocksync (its summaries follow every event). A process
# that fails ends the job with its error (exit 2), with no hang.
set -uo pipefail
source tests/mpi/testenv.sh
app=$1
gen_halo=$2
halo=$3
export PATH="$root/cmd/rp-phases:$root/cmd/rp-cpath:$root/cmd/rp-clocksync:$PATH"
cd "$work"
parallel=("${MPIRUN[@]}" --bind-to none --mca mpi_yield_when_idle 1)

rp-record --split 6 -o run.ndjson.zst -- "${MPIRUN[@]}" -np 6 --mca mpi_yield_when_idle 1 "$root/$app" \
  -m rotating -n 6 -b 2000 -e 4000 2>/dev/null || fail "rp-record"
"$root/$gen_halo" --ranks 256 --events 300000 --sync-every 4 --sample-hz 1000 -o halo.ndjson.zst || fail "gen-halo"
rp-cat --split 16 halo.ndjson.zst -o halo-split.ndjson.zst || fail "rp-cat --split"

for trace in run halo-split; do
  rp-phases $trace.ndjson.zst -o $trace-phases.ndjson 2>/dev/null
  rp-cpath $trace-phases.ndjson -o $trace-cpath.ndjson 2>/dev/null
  for p in 1 2 3 4 8; do
    timeout 300 "${parallel[@]}" -np $p rp-phases-mpi $trace.ndjson.zst -o $trace-p$p.ndjson.zst ||
      fail "rp-phases-mpi on $p processes, $trace"
    cmp $trace-phases.ndjson <(rp-cat $trace-p$p.ndjson.zst) ||
      fail "rp-phases-mpi on $p processes: $trace differs from rp-phases"
  done
  # What reads it downstream sees the same stream.
  cmp $trace-cpath.ndjson <(rp-cpath $trace-p4.ndjson.zst 2>/dev/null) || fail "rp-cpath after rp-phases-mpi differs"
done
[ "$(zstd -dc halo-split-p4.ndjson.zst | grep -c '"type":"part"')" = 4 ] || fail "4 processes: 4 parts expected"
# After rp-clocksync, whose summaries follow every event: they stay last.
rp-clocksync run.ndjson.zst -o synced.ndjson 2>/dev/null
rp-cat --split 3 synced.ndjson -o synced-split.ndjson || fail "rp-cat --split of rp-clocksync's output"
for p in 1 2 3; do
  timeout 300 "${parallel[@]}" -np $p rp-phases-mpi synced-split.ndjson -o synced-p$p.ndjson ||
    fail "rp-phases-mpi on $p processes after rp-clocksync"
  cmp <(rp-phases synced.ndjson 2>/dev/null) <(rp-cat synced-p$p.ndjson) ||
    fail "rp-phases-mpi on $p processes after rp-clocksync differs from rp-phases"
done
phases=$(rp-cat -t phase halo-split-phases.ndjson | grep -c '"type":"phase"')
[ "$phases" -gt 20 ] || fail "the generated trace should have many phases, has $phases"

# Failures. A part only process 1 of 2 reads is truncated: every process
# stops, the error names the file.
mkdir broken
cp halo-split.* broken/
zstd -dc halo-split.part12.ndjson.zst | head -n 1000 | zstd -q -f -o broken/halo-split.part12.ndjson.zst
timeout 120 "${parallel[@]}" -np 2 rp-phases-mpi broken/halo-split.ndjson.zst -o broken-out.ndjson.zst >out 2>&1
status=$?
cat out
[ $status != 124 ] || fail "a failing process: the job hung"
[ $status != 0 ] || fail "a failing process: the job exited 0"
grep -q "process 1: broken/halo-split.part12.ndjson.zst: 999 records, its index says" out ||
  fail "a failing process: its error is not told"
[ ! -e broken-out.ndjson.zst ] || fail "a failing job left an index"
# A process whose output fails in the last round (its part is /dev/full:
# the first flush, while the last phase is written) stops the job too.
python3 - >full.ndjson <<'GEN'
lines = ['{"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":2,"clock":"global","order":"time"}',
         '{"type":"comm","id":0,"size":2,"ranks":[0,1],"kind":"world"}']
seq, t = [0, 0], 100
def call(r, fn, t0, t1):
    lines.append('{"type":"mpi","rank":%d,"seq":%d,"fn":"%s","t0":%d,"t1":%d,"comm":0}' % (r, seq[r], fn, t0, t1))
    seq[r] += 1
for n, fn in ((9000, "MPI_Iprobe"), (1, "MPI_Barrier"), (3000, "MPI_Iprobe")):
    for i in range(n):
        for r in (0, 1):
            call(r, fn, t, t + (5 if fn == "MPI_Barrier" else 1))
        t += 10
print("\n".join(lines))
GEN
rp-cat --split 2 full.ndjson -o full-split.ndjson
ln -s /dev/full full-out.part1.ndjson
timeout 60 "${parallel[@]}" -np 2 rp-phases-mpi full-split.ndjson -o full-out.ndjson >out 2>&1
status=$?
cat out
[ $status != 124 ] || fail "an output failing in the last round: the job hung"
[ $status != 0 ] || fail "an output failing in the last round: the job exited 0"
grep -q "process 1: " out || fail "an output failing in the last round: its error is not told"
# Records of no rank between events (rp-cpath's segments) are refused.
rp-cpath synced.ndjson -o cpath.ndjson 2>/dev/null
rp-cat --split 2 cpath.ndjson -o cpath-split.ndjson
timeout 60 "${parallel[@]}" -np 2 rp-phases-mpi cpath-split.ndjson -o x.ndjson >out 2>&1
status=$?
cat out
[ $status != 0 ] && [ $status != 124 ] || fail "records between events: exit status $status"
grep -q "this one lies between events" out || fail "records between events: not told"
# Records after every event where rp-phases puts them before the last
# phase (rank 1 ends one global synchronization ahead of rank 0): refused,
# not written elsewhere.
cat >odd.ndjson <<'TRACE'
{"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":2,"clock":"global","order":"time"}
{"type":"comm","id":0,"size":2,"ranks":[0,1],"kind":"world"}
{"type":"mpi","rank":0,"seq":0,"fn":"MPI_Barrier","t0":10,"t1":12,"comm":0}
{"type":"mpi","rank":1,"seq":0,"fn":"MPI_Barrier","t0":10,"t1":12,"comm":0}
{"type":"mpi","rank":0,"seq":1,"fn":"MPI_Send","t0":15,"t1":16,"comm":0,"peer":1,"tag":1,"bytes":8}
{"type":"mpi","rank":1,"seq":1,"fn":"MPI_Barrier","t0":20,"t1":22,"comm":0}
{"type":"mpi","rank":1,"seq":2,"fn":"MPI_Recv","t0":30,"t1":31,"comm":0,"peer":0,"tag":1,"bytes":8}
{"type":"clock","rank":0,"method":"identity","offset":0,"drift":0}
TRACE
rp-cat --split 2 odd.ndjson -o odd-split.ndjson || fail "rp-cat --split of the hand-made trace"
timeout 60 "${parallel[@]}" -np 2 rp-phases-mpi odd-split.ndjson -o odd-out.ndjson >out 2>&1
status=$?
cat out
[ $status != 0 ] && [ $status != 124 ] || fail "records after the events, not after the last phase: exit status $status"
grep -q "would go into phase 1 of rp-phases' output" out || fail "records after the events: not told"
[ ! -e odd-out.ndjson ] || fail "records after the events: an index was left"

# rp-cpath-mpi: the critical path on P processes is rp-cpath's, byte for
# byte, on rp-phases-mpi's outputs (phased, split in 4): the recorded run
# with its samples (site and function what-ifs), and the 256 generated
# ranks; without zeroing; without passthrough its one stream is rp-cpath's;
# after rp-clocksync (its summaries the last lines).
export PATH="$root/cmd/rp-cpath:$PATH"
same_cpath() {  # expected actual what
  cmp "$1" "$2" || {
    diff "$1" "$2" | head -6 | cut -c1-300
    fail "rp-cpath-mpi $3 differs from rp-cpath"
  }
}
for trace in run halo-split; do
  for p in 1 2 3 4 8; do
    timeout 300 "${parallel[@]}" -np $p rp-cpath-mpi $trace-p4.ndjson.zst -o $trace-cp$p.ndjson.zst ||
      fail "rp-cpath-mpi on $p processes, $trace"
    rp-cat $trace-cp$p.ndjson.zst >$trace-cp$p.ndjson
    same_cpath $trace-cpath.ndjson $trace-cp$p.ndjson "on $p processes, $trace"
  done
  rp-cpath --no-zeroing $trace-phases.ndjson -o $trace-cpath-nz.ndjson 2>/dev/null
  timeout 300 "${parallel[@]}" -np 3 rp-cpath-mpi --no-zeroing $trace-p4.ndjson.zst -o $trace-nz.ndjson.zst ||
    fail "rp-cpath-mpi --no-zeroing, $trace"
  same_cpath $trace-cpath-nz.ndjson <(rp-cat $trace-nz.ndjson.zst) "--no-zeroing, $trace"
  timeout 300 "${parallel[@]}" -np 3 rp-cpath-mpi --no-passthrough $trace-p4.ndjson.zst -o $trace-np.ndjson ||
    fail "rp-cpath-mpi --no-passthrough, $trace"
  same_cpath <(rp-cpath --no-passthrough $trace-phases.ndjson 2>/dev/null) $trace-np.ndjson "--no-passthrough, $trace"
done
[ "$(grep -c '"type":"cp_segment"' run-cp4.ndjson)" -gt 10 ] || fail "the run's path has few segments"
grep -q '"type":"cp_zeroing","kind":"function"' run-cp4.ndjson || fail "the run has no function what-if"
for p in 1 3; do
  timeout 300 "${parallel[@]}" -np $p rp-cpath-mpi synced-split.ndjson -o synced-cp$p.ndjson ||
    fail "rp-cpath-mpi on $p processes after rp-clocksync"
  same_cpath <(rp-cpath synced.ndjson 2>/dev/null) <(rp-cat synced-cp$p.ndjson) "on $p processes after rp-clocksync"
done
# Collectives that move nothing (halo -e 1: an MPI_Allgatherv of counts 0,
# which ranks leave before the slow rank enters): no synchronization, so
# no window ends there and no process's lines come out of order.
rp-record --split 4 -o empty.ndjson.zst -- "${MPIRUN[@]}" -np 4 --mca mpi_yield_when_idle 1 "$root/$halo" \
  -n 40 -u 300 -s 2 -x 200 -e 1 -r 7 >/dev/null 2>&1 || fail "rp-record halo -e 1"
for p in 2 3; do
  timeout 300 "${parallel[@]}" -np $p rp-cpath-mpi empty.ndjson.zst -o empty-cp$p.ndjson ||
    fail "rp-cpath-mpi on $p processes, collectives that move nothing"
  same_cpath <(rp-cpath empty.ndjson.zst 2>/dev/null) <(rp-cat empty-cp$p.ndjson) "on $p processes, empty collectives"
done
# A part truncated: the job ends with the error, no hang, no index.
timeout 120 "${parallel[@]}" -np 2 rp-cpath-mpi --no-zeroing broken/halo-split.ndjson.zst -o broken-cp.ndjson.zst >out 2>&1
status=$?
cat out | head -5
[ $status != 124 ] || fail "rp-cpath-mpi, a failing process: the job hung"
[ $status != 0 ] || fail "rp-cpath-mpi, a failing process: the job exited 0"
grep -q "halo-split.part12.ndjson.zst: 999 records, its index says" out || fail "rp-cpath-mpi: the error is not told"
[ ! -e broken-cp.ndjson.zst ] || fail "rp-cpath-mpi: a failing job left an index"
# A stream whose windows are out of order (ranks' clocks apart): refused
# with the remedy, since rp-cpath's window-by-window output could not be
# read back from parts in that order.
cat >skewed.ndjson <<'TRACE'
{"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":2,"clock":"local","order":"time"}
{"type":"comm","id":0,"size":2,"ranks":[0,1],"kind":"world"}
{"type":"mpi","rank":0,"seq":0,"fn":"MPI_Barrier","t0":10,"t1":12,"comm":0}
{"type":"mpi","rank":0,"seq":1,"fn":"MPI_Barrier","t0":15,"t1":16,"comm":0}
{"type":"mpi","rank":1,"seq":0,"fn":"MPI_Barrier","t0":100,"t1":102,"comm":0}
{"type":"mpi","rank":1,"seq":1,"fn":"MPI_Barrier","t0":105,"t1":107,"comm":0}
TRACE
rp-cat --split 2 skewed.ndjson -o skewed-split.ndjson || fail "rp-cat --split of the skewed trace"
timeout 60 "${parallel[@]}" -np 2 rp-cpath-mpi skewed-split.ndjson -o skewed-out.ndjson >out 2>&1
status=$?
[ $status != 0 ] && [ $status != 124 ] && grep -q "run rp-clocksync first" out || fail "rp-cpath-mpi on a skewed trace"

# rp-clocksync-mpi: rp-clocksync's output byte for byte, and its --report,
# on the recorded run (its ping-pong clock records) and on 256 generated
# ranks whose clocks are offset, drift and were measured with errors
# (thousands of receives to repair); --method gaps, --no-amortize with a
# minimal latency, --no-repair; then the whole pipeline on processes.
export PATH="$root/cmd/rp-clocksync:$PATH"
"$root/$gen_halo" --ranks 256 --events 300000 --sync-every 4 --sample-hz 1000 --clock-offset 50000 \
  --clock-drift 20 --clock-error 3000 -o local.ndjson.zst || fail "gen-halo with local clocks"
rp-cat --split 16 local.ndjson.zst -o local-split.ndjson.zst || fail "rp-cat --split of local clocks"
same_sync() {  # expected actual what
  cmp "$1" "$2" || {
    diff "$1" "$2" | head -6 | cut -c1-300
    fail "rp-clocksync-mpi $3 differs from rp-clocksync"
  }
}
for trace in run local-split; do
  rp-clocksync --report $trace.ndjson.zst -o $trace-synced.ndjson 2>$trace-sync.err
  for p in 1 2 3 4 8; do
    timeout 300 "${parallel[@]}" -np $p rp-clocksync-mpi --report $trace.ndjson.zst -o $trace-s$p.ndjson.zst \
      2>$trace-s$p.err || fail "rp-clocksync-mpi on $p processes, $trace"
    same_sync $trace-synced.ndjson <(rp-cat $trace-s$p.ndjson.zst) "on $p processes, $trace"
    same_sync $trace-sync.err <(sed 's/^rp-clocksync-mpi:/rp-clocksync:/' $trace-s$p.err) "--report on $p processes, $trace"
  done
done
grep -q "violations after the pingpong mapping: [1-9][0-9][0-9][0-9]* message" local-split-sync.err ||
  fail "the generated ranks' clocks should leave many violations to repair"
grep -q "violations after repair: 0 message" local-split-sync.err || fail "the repair should leave none"
for opts in "--method gaps" "--no-amortize --min-latency 500" "--no-repair"; do
  rp-clocksync $opts local-split.ndjson.zst -o opts-ref.ndjson 2>/dev/null
  timeout 300 "${parallel[@]}" -np 3 rp-clocksync-mpi $opts local-split.ndjson.zst -o opts.ndjson.zst 2>/dev/null ||
    fail "rp-clocksync-mpi $opts"
  same_sync opts-ref.ndjson <(rp-cat opts.ndjson.zst) "$opts"
done
# The pipeline on processes is the pipeline on one.
timeout 300 "${parallel[@]}" -np 4 rp-phases-mpi local-split-s4.ndjson.zst -o local-sp.ndjson.zst &&
  timeout 300 "${parallel[@]}" -np 4 rp-cpath-mpi local-sp.ndjson.zst -o local-spc.ndjson.zst 2>/dev/null ||
  fail "rp-phases-mpi and rp-cpath-mpi after rp-clocksync-mpi"
same_cpath <(rp-phases local-split-synced.ndjson | rp-cpath 2>/dev/null) <(rp-cat local-spc.ndjson.zst) \
  "after rp-clocksync-mpi and rp-phases-mpi"
# Another tool's trace: Score-P's OTF2 archive of a ping-pong, imported and
# split, through the three stages on processes as through the three on one.
rp-cat --from otf2 "$root/testdata/otf2/ping-pong/traces.otf2" -o scorep.ndjson 2>/dev/null ||
  fail "rp-cat --from otf2"
rp-cat --split 2 scorep.ndjson -o scorep-split.ndjson || fail "rp-cat --split of the Score-P trace"
timeout 60 "${parallel[@]}" -np 2 rp-clocksync-mpi scorep-split.ndjson -o scorep-s.ndjson 2>/dev/null &&
  timeout 60 "${parallel[@]}" -np 2 rp-phases-mpi scorep-s.ndjson -o scorep-p.ndjson 2>/dev/null &&
  timeout 60 "${parallel[@]}" -np 2 rp-cpath-mpi scorep-p.ndjson -o scorep-c.ndjson 2>/dev/null ||
  fail "the three stages on processes, on the Score-P trace"
same_cpath <(rp-clocksync scorep.ndjson 2>/dev/null | rp-phases 2>/dev/null | rp-cpath 2>/dev/null) \
  <(rp-cat scorep-c.ndjson) "after rp-clocksync-mpi and rp-phases-mpi, on the Score-P trace"

# The skewed trace rp-cpath-mpi refused, synchronized on processes, is read.
timeout 60 "${parallel[@]}" -np 2 rp-clocksync-mpi skewed-split.ndjson -o skewed-synced.ndjson 2>/dev/null &&
  timeout 60 "${parallel[@]}" -np 2 rp-cpath-mpi skewed-synced.ndjson -o skewed-cp.ndjson 2>/dev/null ||
  fail "rp-cpath-mpi after rp-clocksync-mpi on the skewed trace"
same_cpath <(rp-clocksync skewed.ndjson 2>/dev/null | rp-cpath 2>/dev/null) <(rp-cat skewed-cp.ndjson) "on the skewed trace"
# Refused, the remedy told, no index left: a sample inside rank 0's Barrier
# (read into the window after it) that comes before rank 1's entry on the
# global clock; a trace rp-phases has tagged; a truncated part.
cat >waits.ndjson <<'TRACE'
{"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":2,"clock":"local","order":"time"}
{"type":"comm","id":0,"size":2,"ranks":[0,1],"kind":"world"}
{"type":"mpi","rank":0,"seq":0,"fn":"MPI_Barrier","t0":100,"t1":300,"comm":0}
{"type":"sample","rank":0,"t":200,"stack":[],"weight":100}
{"type":"mpi","rank":1,"seq":0,"fn":"MPI_Barrier","t0":250,"t1":300,"comm":0}
{"type":"mpi","rank":0,"seq":1,"fn":"MPI_Barrier","t0":400,"t1":500,"comm":0}
{"type":"mpi","rank":1,"seq":1,"fn":"MPI_Barrier","t0":400,"t1":500,"comm":0}
TRACE
rp-cat --split 2 waits.ndjson -o waits-split.ndjson || fail "rp-cat --split of the waits trace"
rp-phases run.ndjson.zst -o run-phased.ndjson 2>/dev/null
rp-cat --split 3 run-phased.ndjson -o phased-split.ndjson || fail "rp-cat --split of a phased trace"
cat >dup.ndjson <<'TRACE'
{"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":2,"clock":"local","order":"time"}
{"type":"comm","id":0,"size":2,"ranks":[0,1],"kind":"world"}
{"type":"mpi","rank":1,"seq":0,"fn":"MPI_Recv","t0":5,"t1":6,"comm":0,"peer":0,"tag":1,"bytes":8}
{"type":"mpi","rank":0,"seq":0,"fn":"MPI_Send","t0":10,"t1":12,"comm":0,"peer":1,"tag":1,"bytes":8}
{"type":"mpi","rank":0,"seq":0,"fn":"MPI_Send","t0":13,"t1":14,"comm":0,"peer":1,"tag":1,"bytes":8}
{"type":"mpi","rank":1,"seq":1,"fn":"MPI_Recv","t0":20,"t1":21,"comm":0,"peer":0,"tag":1,"bytes":8}
TRACE
rp-cat --split 2 dup.ndjson -o dup-split.ndjson || fail "rp-cat --split of the trace with a seq twice"
for case in "waits-split.ndjson:comes before rank 1's at 250 ns, the last of the window before" \
  "dup-split.ndjson:rank 0 has seq 0 twice" \
  "phased-split.ndjson:run it before rp-phases" \
  "broken/halo-split.ndjson.zst:halo-split.part12.ndjson.zst: 999 records, its index says"; do
  timeout 120 "${parallel[@]}" -np 2 rp-clocksync-mpi "${case%%:*}" -o refused.ndjson >out 2>&1
  status=$?
  [ $status != 124 ] || fail "rp-clocksync-mpi on ${case%%:*}: the job hung"
  [ $status != 0 ] || fail "rp-clocksync-mpi on ${case%%:*}: the job exited 0"
  grep -qF "${case#*:}" out || { cat out; fail "rp-clocksync-mpi on ${case%%:*}: not told"; }
  [ ! -e refused.ndjson ] || fail "rp-clocksync-mpi on ${case%%:*}: an index was left"
done

# Unmatched sends whose destinations two processes read: the warnings
# name the example one process names first (key order), not process 0's.
cat >unmatched.ndjson <<'TRACE'
{"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":4,"clock":"global","order":"time"}
{"type":"comm","id":0,"size":4,"ranks":[0,1,2,3],"kind":"world"}
{"type":"mpi","rank":3,"seq":0,"fn":"MPI_Send","t0":10,"t1":12,"comm":0,"peer":0,"tag":5,"bytes":8}
{"type":"mpi","rank":0,"seq":0,"fn":"MPI_Barrier","t0":20,"t1":30,"comm":0}
{"type":"mpi","rank":1,"seq":0,"fn":"MPI_Barrier","t0":20,"t1":30,"comm":0}
{"type":"mpi","rank":2,"seq":0,"fn":"MPI_Barrier","t0":20,"t1":30,"comm":0}
{"type":"mpi","rank":3,"seq":1,"fn":"MPI_Barrier","t0":20,"t1":30,"comm":0}
{"type":"mpi","rank":1,"seq":1,"fn":"MPI_Send","t0":40,"t1":42,"comm":0,"peer":2,"tag":7,"bytes":8}
TRACE
# Records that end before they start on ranks of both processes: the input
# warning is told once, with the run's count and its first record.
cat >backwards.ndjson <<'TRACE'
{"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":4,"clock":"global","order":"time"}
{"type":"comm","id":0,"size":4,"ranks":[0,1,2,3],"kind":"world"}
{"type":"mpi","rank":3,"seq":0,"fn":"MPI_Barrier","t0":10,"t1":5,"comm":0}
{"type":"mpi","rank":0,"seq":0,"fn":"MPI_Barrier","t0":12,"t1":30,"comm":0}
{"type":"mpi","rank":1,"seq":0,"fn":"MPI_Barrier","t0":12,"t1":30,"comm":0}
{"type":"mpi","rank":2,"seq":0,"fn":"MPI_Barrier","t0":12,"t1":30,"comm":0}
{"type":"mpi","rank":0,"seq":1,"fn":"MPI_Barrier","t0":40,"t1":35,"comm":0}
{"type":"mpi","rank":1,"seq":1,"fn":"MPI_Barrier","t0":40,"t1":60,"comm":0}
{"type":"mpi","rank":2,"seq":1,"fn":"MPI_Barrier","t0":40,"t1":60,"comm":0}
{"type":"mpi","rank":3,"seq":1,"fn":"MPI_Barrier","t0":40,"t1":60,"comm":0}
TRACE
rp-cat --split 2 unmatched.ndjson -o unmatched-split.ndjson || fail "rp-cat --split of the unmatched trace"
rp-cat --split 2 backwards.ndjson -o backwards-split.ndjson || fail "rp-cat --split of the backwards trace"
for trace in unmatched backwards; do
  for stage in rp-clocksync rp-phases rp-cpath; do
    $stage $trace-split.ndjson -o /dev/null 2>one.err
    timeout 60 "${parallel[@]}" -np 2 $stage-mpi $trace-split.ndjson -o $trace-$stage.ndjson 2>many.err ||
      fail "$stage-mpi on the $trace trace"
    same_sync one.err <(sed "s/^$stage-mpi:/$stage:/" many.err) "$stage-mpi's warnings on the $trace trace"
  done
done
grep -q "1 -> 2, tag 7" <(rp-cpath unmatched-split.ndjson -o /dev/null 2>&1) || fail "the example is not the first by key"
grep -q "2 mpi record(s) end before they start (t1 < t0; first: rank 3 seq 0)" one.err ||
  { cat one.err; fail "the backwards trace: the warning is not the run's"; }

# rp-diagnose-mpi: the diagnosis on P processes is rp-diagnose's, byte for
# byte, on rp-cpath-mpi's outputs (split in 4): the recorded run (a rank
# slower in each phase; samples name the code) and the 256 generated
# ranks, and the run without phases; its warnings are rp-diagnose's;
# without passthrough its one
# stream is rp-diagnose's; on the Score-P trace after the three stages on
# processes; refused, with the remedy, without rp-cpath's records.
export PATH="$root/cmd/rp-diagnose:$PATH"
same_diagnose() {  # expected actual what
  cmp "$1" "$2" || {
    diff "$1" "$2" | head -6 | cut -c1-300
    fail "rp-diagnose-mpi $3 differs from rp-diagnose"
  }
}
for trace in run halo-split; do
  rp-diagnose $trace-cpath.ndjson -o $trace-diag.ndjson 2>$trace-diag.err
  for p in 1 2 3 4 8; do
    timeout 300 "${parallel[@]}" -np $p rp-diagnose-mpi $trace-cp4.ndjson.zst -o $trace-dg$p.ndjson.zst \
      2>$trace-dg$p.err || { cat $trace-dg$p.err; fail "rp-diagnose-mpi on $p processes, $trace"; }
    same_diagnose $trace-diag.ndjson <(rp-cat $trace-dg$p.ndjson.zst) "on $p processes, $trace"
    same_diagnose $trace-diag.err <(sed 's/^rp-diagnose-mpi:/rp-diagnose:/' $trace-dg$p.err) \
      "'s warnings on $p processes, $trace"
  done
  timeout 300 "${parallel[@]}" -np 3 rp-diagnose-mpi --no-passthrough $trace-cp4.ndjson.zst -o $trace-dgn.ndjson \
    2>/dev/null || fail "rp-diagnose-mpi --no-passthrough, $trace"
  same_diagnose <(rp-diagnose --no-passthrough $trace-cpath.ndjson 2>/dev/null) $trace-dgn.ndjson \
    "--no-passthrough, $trace"
done
# Without phases (rp-cpath-mpi on the recorded run as it came): one phase,
# warned of as rp-diagnose warns.
timeout 300 "${parallel[@]}" -np 3 rp-cpath-mpi run.ndjson.zst -o run-ucp.ndjson.zst 2>/dev/null ||
  fail "rp-cpath-mpi on the run without phases"
rp-cat run-ucp.ndjson.zst | rp-diagnose -o run-udiag.ndjson 2>run-udiag.err
grep -q "no phase records" run-udiag.err || fail "rp-diagnose without phases: no warning"
for p in 2 3; do
  timeout 300 "${parallel[@]}" -np $p rp-diagnose-mpi run-ucp.ndjson.zst -o run-udg$p.ndjson.zst 2>run-udg$p.err ||
    fail "rp-diagnose-mpi on $p processes, without phases"
  same_diagnose run-udiag.ndjson <(rp-cat run-udg$p.ndjson.zst) "on $p processes, without phases"
  same_diagnose run-udiag.err <(sed 's/^rp-diagnose-mpi:/rp-diagnose:/' run-udg$p.err) \
    "'s warnings on $p processes, without phases"
done
grep -q '"type":"finding","category":"load_imbalance"' run-diag.ndjson || fail "the run's diagnosis has no imbalance"
[ "$(grep -c '"type":"finding"' halo-split-diag.ndjson)" -gt 0 ] || fail "the generated run's diagnosis finds nothing"
grep -q '"type":"timeline"' run-diag.ndjson || fail "the run's diagnosis has no timeline"
timeout 60 "${parallel[@]}" -np 2 rp-diagnose-mpi scorep-c.ndjson -o scorep-d.ndjson 2>/dev/null ||
  fail "rp-diagnose-mpi on the Score-P trace"
same_diagnose <(rp-clocksync scorep.ndjson 2>/dev/null | rp-phases 2>/dev/null | rp-cpath 2>/dev/null |
  rp-diagnose 2>/dev/null) <(rp-cat scorep-d.ndjson) "after the three stages on processes, on the Score-P trace"
timeout 60 "${parallel[@]}" -np 2 rp-diagnose-mpi run-p4.ndjson.zst -o x.ndjson.zst >out 2>&1
status=$?
[ $status = 2 ] && grep -q "run rp-cpath-mpi on it first" out || {
  cat out
  fail "rp-diagnose-mpi without rp-cpath's records: exit $status"
}
[ ! -e x.ndjson.zst ] || fail "rp-diagnose-mpi without rp-cpath's records left an index"

# rp-repr-mpi: the paths on P processes are rp-repr's, byte for byte, and
# so are its warnings: on rp-phases-mpi's outputs (split in 4) of the
# recorded run and the 256 generated ranks; on the run without phases,
# whose whole-run paths run through every window (the parts kept across
# windows), with --space prof, --cost wall, --select topk; without
# passthrough; on the Score-P trace after rp-clocksync-mpi and
# rp-phases-mpi; on each hand-made rp-repr trace in testdata split in 2.
export PATH="$root/cmd/rp-repr:$PATH"
same_repr() {  # expected actual what
  cmp "$1" "$2" || {
    diff "$1" "$2" | head -6 | cut -c1-300
    fail "rp-repr-mpi $3 differs from rp-repr"
  }
}
repr_on() {  # P one-process-input split-input name [options]
  local p=$1 one=$2 split=$3 name=$4
  shift 4
  rp-repr "$@" $one -o $name-one.ndjson 2>$name-one.err
  timeout 300 "${parallel[@]}" -np $p rp-repr-mpi "$@" $split -o $name-r$p.ndjson.zst 2>$name-r$p.err ||
    { cat $name-r$p.err; fail "rp-repr-mpi $* on $p processes, $name"; }
  same_repr $name-one.ndjson <(rp-cat $name-r$p.ndjson.zst) "$* on $p processes, $name"
  same_repr $name-one.err <(sed 's/^rp-repr-mpi:/rp-repr:/' $name-r$p.err) "'s warnings ($*) on $p processes, $name"
}
for trace in run halo-split; do
  for p in 1 2 3 4 8; do repr_on $p $trace-phases.ndjson $trace-p4.ndjson.zst $trace; done
  timeout 300 "${parallel[@]}" -np 3 rp-repr-mpi --no-passthrough $trace-p4.ndjson.zst -o $trace-rn.ndjson \
    2>/dev/null || fail "rp-repr-mpi --no-passthrough, $trace"
  same_repr <(rp-repr --no-passthrough $trace-phases.ndjson 2>/dev/null) $trace-rn.ndjson "--no-passthrough, $trace"
done
[ "$(grep -c '"type":"path"' halo-split-one.ndjson)" -gt 100 ] || fail "the generated run should have many paths"
grep -q '"type":"path_diff"' run-one.ndjson || fail "the run's paths have no differences"
rp-cat run.ndjson.zst -o run-merged.ndjson
for p in 2 3; do repr_on $p run-merged.ndjson run.ndjson.zst unphased; done
grep -q "no phase records" unphased-one.err || fail "rp-repr without phases: no warning"
repr_on 3 run-merged.ndjson run.ndjson.zst unphased-prof --space prof -k 7
repr_on 4 run-merged.ndjson run.ndjson.zst unphased-wall --cost wall -k 3
repr_on 3 halo.ndjson.zst halo-split.ndjson.zst halo-topk --select topk -k 8
timeout 60 "${parallel[@]}" -np 2 rp-repr-mpi scorep-p.ndjson -o scorep-r.ndjson 2>/dev/null ||
  fail "rp-repr-mpi on the Score-P trace"
same_repr <(rp-clocksync scorep.ndjson 2>/dev/null | rp-phases 2>/dev/null | rp-repr 2>/dev/null) \
  <(rp-cat scorep-r.ndjson) "after rp-clocksync-mpi and rp-phases-mpi, on the Score-P trace"
# A path that stays on one rank through 3000 windows keeps one piece, not
# one a window, though its walk starts at another process's rank (rank
# 3 computes most before each Allreduce; ranks 0-1 and 2-3 in two parts):
# what each process holds at the end is bounded (-v says).
python3 - >stay.ndjson <<'GEN'
lines = ['{"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":4,"clock":"global","order":"time"}',
         '{"type":"comm","id":0,"size":4,"ranks":[0,1,2,3],"kind":"world"}']
seq, events, t = [0] * 4, [], 1100
for r in range(4):
    events.append((1000, r, "MPI_Init", 1000, 1100))
for i in range(3000):
    ends = [t + 10000 + (50000 if r == 3 else 0) for r in range(4)]
    for r in range(4):
        events.append((ends[r], r, "MPI_Allreduce", ends[r], max(ends) + 500))
    t = max(ends) + 500
for r in range(4):
    events.append((t + 10000, r, "MPI_Finalize", t + 10000, t + 10100))
for t0, r, fn, a, b in sorted(events):
    lines.append('{"type":"mpi","rank":%d,"seq":%d,"fn":"%s","t0":%d,"t1":%d,"comm":0}' % (r, seq[r], fn, a, b))
    seq[r] += 1
print("\n".join(lines))
GEN
rp-cat --split 2 stay.ndjson -o stay-split.ndjson || fail "rp-cat --split of the staying path"
timeout 120 "${parallel[@]}" -np 2 rp-repr-mpi -v stay-split.ndjson -o stay-r.ndjson 2>stay.err ||
  fail "rp-repr-mpi on the staying path"
same_repr <(rp-repr stay.ndjson 2>/dev/null) <(rp-cat stay-r.ndjson) "on a path staying on one rank"
[ "$(grep -c '3001 windows' stay.err)" = 2 ] || { cat stay.err; fail "the staying path: 3001 windows expected"; }
for n in $(grep -o '([0-9]* pieces here)' stay.err | grep -o '[0-9]*'); do
  [ "$n" -lt 100 ] || fail "rp-repr-mpi kept $n pieces of a path staying on one rank over 3000 windows"
done
for t in "$root"/testdata/traces/repr_*.ndjson "$root"/testdata/traces/samples.ndjson; do
  name=$(basename $t .ndjson)
  rp-cat --split 2 $t -o $name-split.ndjson || fail "rp-cat --split of $name"
  repr_on 2 $t $name-split.ndjson $name
done

# No mpi records: exit 1, told once; rp-clocksync-mpi's stream written as
# rp-clocksync writes it.
cat >samples.ndjson <<'TRACE'
{"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":2,"clock":"local","order":"time"}
{"type":"comm","id":0,"size":2,"ranks":[0,1],"kind":"world"}
{"type":"sample","rank":0,"t":200,"stack":[],"weight":100}
{"type":"sample","rank":1,"t":300,"stack":[],"weight":100}
TRACE
rp-cat --split 2 samples.ndjson -o samples-split.ndjson || fail "rp-cat --split of samples alone"
timeout 60 "${parallel[@]}" -np 2 rp-clocksync-mpi samples-split.ndjson -o samples-out.ndjson >out 2>&1
status=$?
[ $status = 1 ] || { cat out; fail "rp-clocksync-mpi without mpi records: exit $status, not 1"; }
[ "$(grep -c 'no mpi records' out)" = 1 ] || { cat out; fail "rp-clocksync-mpi without mpi records: not told once"; }
same_sync <(rp-clocksync samples.ndjson 2>/dev/null) <(rp-cat samples-out.ndjson) "without mpi records"
for stage in rp-phases rp-cpath rp-repr; do
  timeout 60 "${parallel[@]}" -np 2 $stage-mpi samples-split.ndjson -o samples-$stage.ndjson >out 2>&1
  status=$?
  [ $status = 1 ] || { cat out; fail "$stage-mpi without mpi records: exit $status, not 1"; }
  [ "$(grep -c 'no mpi records' out)" = 1 ] || { cat out; fail "$stage-mpi without mpi records: not told once"; }
done

# A trace that is not split.
rp-cat halo.ndjson.zst -o merged.ndjson.zst
timeout 60 "${parallel[@]}" -np 2 rp-phases-mpi merged.ndjson.zst -o x.ndjson.zst >out 2>&1
status=$?
cat out
[ $status != 0 ] && [ $status != 124 ] || fail "a trace that is not split: exit status $status"
grep -q "reads a split trace" out || fail "a trace that is not split: not told"
echo PASS
