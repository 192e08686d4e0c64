#!/usr/bin/env bash
# Throughput and peak memory of the analysis stages on a generated
# halo-exchange trace (tests/synth/halo.h): 64 ranks, RP_BENCH_EVENTS
# (default 10 million) mpi records, zstd input, output discarded; one
# process each (rp-clocksync and rp-phases are single-threaded; rp-cpath
# with -j 1 and -j 2).
# Run from the workspace root after `bazel build //...` (make bench does).
set -euo pipefail
bin=bazel-bin
events=${RP_BENCH_EVENTS:-10000000}
work=$(mktemp -d /tmp/rp-stages-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
$bin/tests/synth/gen_halo --ranks 64 --events "$events" -o "$work/halo.ndjson.zst"
records=$($bin/cmd/rp-cat/rp-cat --count "$work/halo.ndjson.zst" | awk '$1 == "mpi" {print $2}')
printf "%-14s %12s %10s %14s %12s\n" stage events "seconds" "events/s" "peak RSS MB"
run() {  # $1 name, rest: command
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null
  read -r seconds kb <"$work/time"
  printf "%-14s %12d %10.2f %14.0f %12.1f\n" "$name" "$records" "$seconds" \
    "$(echo "$records / $seconds" | bc -l)" "$(echo "$kb / 1024" | bc -l)"
}
run "rp-cat" $bin/cmd/rp-cat/rp-cat "$work/halo.ndjson.zst"
run "rp-clocksync" $bin/cmd/rp-clocksync/rp-clocksync "$work/halo.ndjson.zst"
run "rp-phases" $bin/cmd/rp-phases/rp-phases "$work/halo.ndjson.zst"
# rp-cpath end to end: zstd in, zstd out (input passed through, cp_* added).
run "rp-cpath -j1" $bin/cmd/rp-cpath/rp-cpath -z "$work/halo.ndjson.zst"
run "rp-cpath -j2" $bin/cmd/rp-cpath/rp-cpath -j 2 -z "$work/halo.ndjson.zst"
run "cpath nozero" $bin/cmd/rp-cpath/rp-cpath --no-zeroing -z "$work/halo.ndjson.zst"
# Memory must not grow with the run: the same stages on a trace 10 times shorter.
$bin/tests/synth/gen_halo --ranks 64 --events $((events / 10)) -o "$work/short.ndjson.zst"
records=$($bin/cmd/rp-cat/rp-cat --count "$work/short.ndjson.zst" | awk '$1 == "mpi" {print $2}')
run "rp-clocksync" $bin/cmd/rp-clocksync/rp-clocksync "$work/short.ndjson.zst"
run "rp-phases" $bin/cmd/rp-phases/rp-phases "$work/short.ndjson.zst"
run "rp-cpath -j1" $bin/cmd/rp-cpath/rp-cpath -z "$work/short.ndjson.zst"
