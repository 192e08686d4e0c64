#!/usr/bin/env bash
# rp-record --online on tests/mpi/online/patterns: every pattern's critical
# path against the length known by construction, and against rp-cpath on
# the trace of the same run (rp-record --online --trace), critical path
# zeroing (--online-zeroing) included.
set -euo pipefail
source tests/mpi/testenv.sh
app=$root/$1
check=$root/tests/mpi/online/check_patterns.py
runs=()
for mode in blocking nonblocking waitany waitsome test persistent sendrecv anysource probe mprobe wildcard comms \
  slow bcast zeroing; do
  np=4
  [ "$mode" = wildcard ] && np=2
  rp-record -q --online --online-zeroing --trace "$work/$mode.trace.ndjson" -o "$work/$mode.online.ndjson" -- \
    "${MPIRUN[@]}" -np $np "$app" -m $mode >"$work/$mode.out"
  rp-clocksync "$work/$mode.trace.ndjson" | rp-cpath --no-passthrough -o "$work/$mode.exact.ndjson"
  rp-cat --validate "$work/$mode.online.ndjson"
  runs+=("$mode")
done
# Sampled functions on the path: 1 kHz, so that every computation of the
# pattern (10-20 ms) holds samples.
rp-record -q --online --online-zeroing --sample-hz 1000 --trace "$work/functions.trace.ndjson" -o "$work/functions.online.ndjson" -- \
  "${MPIRUN[@]}" -np 4 "$app" -m functions -w 10000 >"$work/functions.out"
rp-clocksync "$work/functions.trace.ndjson" | rp-cpath --no-passthrough -o "$work/functions.exact.ndjson" 2>/dev/null
rp-cat --validate "$work/functions.online.ndjson"
# Path profiles in the run (--online-paths with samples) against rp-repr's
# (--space prof) on the same run.
rp-record -q --online --online-paths 4 --select topk --sample-hz 1000 --trace "$work/prof.trace.ndjson" \
  -o "$work/prof.online.ndjson" -- "${MPIRUN[@]}" -np 4 "$app" -m functions -w 10000 >"$work/prof.out"
rp-cat --validate "$work/prof.online.ndjson"
rp-clocksync "$work/prof.trace.ndjson" | rp-repr -k 4 --select topk --space prof --no-passthrough \
  -o "$work/prof.repr.ndjson" 2>/dev/null
# Everything at once (paths, zeroing and samples share the piggyback).
rp-record -q --online --online-paths 4 --online-zeroing --trace "$work/all.trace.ndjson" \
  -o "$work/all.online.ndjson" -- "${MPIRUN[@]}" -np 4 "$app" -m zeroing >"$work/all.out"
rp-cat --validate "$work/all.online.ndjson"
rp-clocksync "$work/all.trace.ndjson" | rp-cpath --no-passthrough -o "$work/all.exact.ndjson" 2>/dev/null
# The slow rank moved: the same length, on the other rank.
rp-record -q --online -o "$work/slow3.online.ndjson" -- "${MPIRUN[@]}" -np 4 "$app" -m slow -s 3 >"$work/slow3.out"
# MPI_Pcontrol regions.
rp-record -q --online -o "$work/pcontrol.online.ndjson" -- "${MPIRUN[@]}" -np 4 "$app" -m pcontrol >"$work/pcontrol.out"
rp-cat --validate "$work/pcontrol.online.ndjson"
# Twice the rounds: the same output size (no trace).
rp-record -q --online -o "$work/long.online.ndjson" -- "${MPIRUN[@]}" -np 4 "$app" -m slow -n 10 >"$work/long.out"
[ ! -e "$work/long.online.ndjson.raw" ] || fail "rank files left behind after a complete run"
# Representative paths kept in the run (--online-paths), against rp-repr
# on the trace of the same run.
paths() {  # name select np mode [app options]
  local name=$1 select=$2 np=$3
  shift 3
  rp-record -q --online --online-paths 4 --select "$select" --trace "$work/$name.trace.ndjson" \
    -o "$work/$name.online.ndjson" -- "${MPIRUN[@]}" -np "$np" "$app" -m "$@" >"$work/$name.out"
  rp-cat --validate "$work/$name.online.ndjson"
  rp-clocksync "$work/$name.trace.ndjson" | rp-repr -k 4 --select "$select" --no-passthrough \
    -o "$work/$name.repr.ndjson" 2>/dev/null
}
paths topk-slow topk 4 slow
paths topk-bcast topk 4 bcast
paths topk-chain8 topk 8 sendrecv
paths repr-slow repr 4 slow
paths repr-chain8 repr 8 sendrecv
paths repr-long repr 4 slow -n 10
rp-report "$work/slow.online.ndjson" | head -20
python3 "$root/tests/mpi/online/check_online_paths.py" "$work"
python3 "$check" "$work" "${runs[@]}"
