#!/usr/bin/env bash
# rp-record --online on tests/mpi/online/patterns: every pattern's critical
# path against the length known by construction, and against rp-cpath on
# the trace of the same run (rp-record --online --trace).
set -euo pipefail
source tests/mpi/testenv.sh
app=$root/$1
check=$root/tests/mpi/online/check_patterns.py
runs=()
for mode in blocking nonblocking waitany waitsome test persistent sendrecv anysource probe mprobe wildcard comms \
  slow bcast; do
  np=4
  [ "$mode" = wildcard ] && np=2
  rp-record -q --online --trace "$work/$mode.trace.ndjson" -o "$work/$mode.online.ndjson" -- \
    "${MPIRUN[@]}" -np $np "$app" -m $mode >"$work/$mode.out"
  rp-clocksync "$work/$mode.trace.ndjson" | rp-cpath --no-passthrough -o "$work/$mode.exact.ndjson"
  rp-cat --validate "$work/$mode.online.ndjson"
  runs+=("$mode")
done
# The slow rank moved: the same length, on the other rank.
rp-record -q --online -o "$work/slow3.online.ndjson" -- "${MPIRUN[@]}" -np 4 "$app" -m slow -s 3 >"$work/slow3.out"
# MPI_Pcontrol regions.
rp-record -q --online -o "$work/pcontrol.online.ndjson" -- "${MPIRUN[@]}" -np 4 "$app" -m pcontrol >"$work/pcontrol.out"
rp-cat --validate "$work/pcontrol.online.ndjson"
# Twice the rounds: the same output size (no trace).
rp-record -q --online -o "$work/long.online.ndjson" -- "${MPIRUN[@]}" -np 4 "$app" -m slow -n 10 >"$work/long.out"
[ ! -e "$work/long.online.ndjson.raw" ] || fail "rank files left behind after a complete run"
rp-report "$work/slow.online.ndjson" | head -20
python3 "$check" "$work" "${runs[@]}"
