#!/usr/bin/env bash
# rp-diagnose on tests/mpi/diagnose/planted: 6 ranks, 30 phases of 40 ms,
# 16 ms of planted trouble a phase (imbalance on ranks 2 and 3, a rank-0
# checkpoint, and one of each of Scalasca's wait states: late senders, a
# late broadcast, an early reduce, wait at N x N, late receivers, messages
# in the wrong order), two programs of uneven work in one run (MPMD),
# wait at a barrier, rank 0 writing a file alone with MPI-IO and with
# write(2), 16 MiB messages, frequent small Allreduces and polling with
# Iprobe (all four timed by the app itself), an off-path hot spot, a slow
# rank that changes every phase, ranks computing one after another in a
# chain, a collective slow in itself, and a balanced run, each through the whole
# pipeline; then the imbalanced run compared with the balanced one.
set -euo pipefail
source tests/mpi/testenv.sh
app=$root/$1
checker=$root/tests/mpi/diagnose/check_planted.py
source_file=$root/tests/mpi/diagnose/planted.c
failed=0
# Samples at 1 kHz where the ranks sleep: a function's time taken from
# samples is off by up to a sample per call, a few percent at 200 Hz for
# calls of a few ms. The modes that keep a core busy stay at 200 Hz: more
# samples would slow the very calls they measure.
# Ranks waiting in a collective yield the core: spinning, they would delay
# the sleeping ranks' wake-ups on 2 cores and stretch the planted work.
MPIRUN+=(--mca mpi_yield_when_idle 1)
# Modes whose planted calls or I/O keep a core busy run on 2 ranks, one a
# core: oversubscribed, they would delay the sleeping ranks' wake-ups.
# slow_collective runs on 4: every rank applies the Allreduce's operation
# equally often (recursive doubling on a power of two).
for mode in imbalance serial late_sender late_broadcast early_reduce wait_nxn wait_barrier late_receiver wrong_order \
  mpmd serial_io large_messages hotspot frequent polling posix_io rotating chain slow_collective balanced; do
  case $mode in frequent | polling | posix_io) ranks=2 hz=200 ;; slow_collective) ranks=4 hz=1000 ;; *) ranks=6 hz=1000 ;; esac
  rp-record --sample-hz $hz -o "$work/$mode.ndjson" -- "${MPIRUN[@]}" -np $ranks "$app" -m $mode -n 30 -b 40000 -e 16000 -r 2,3 \
    -w "$work/$mode.measured"
  export PLANTED_REPORT=$work/$mode.measured
  export PLANTED_TRACE=$work/$mode.ndjson PLANTED_SAMPLE_HZ=$hz
  rp-clocksync "$work/$mode.ndjson" | rp-phases -o "$work/$mode.phased.ndjson"
  rp-diagnose --no-passthrough "$work/$mode.phased.ndjson" -o "$work/$mode.diag.ndjson"
  rp-diagnose --format text "$work/$mode.phased.ndjson"
  python3 "$checker" $mode $ranks 30 40000 16000 2,3 "$source_file" "$work/$mode.diag.ndjson" || failed=1
done
rp-diagnose --compare --format text "$work/imbalance.phased.ndjson" "$work/balanced.diag.ndjson"
rp-diagnose --compare "$work/imbalance.phased.ndjson" "$work/balanced.diag.ndjson" -o "$work/compare.ndjson"
rp-diagnose --compare "$work/imbalance.diag.ndjson" "$work/imbalance.phased.ndjson" -o "$work/same.ndjson"
python3 "$checker" compare "$work/compare.ndjson" "$work/same.ndjson" || failed=1
exit $failed
