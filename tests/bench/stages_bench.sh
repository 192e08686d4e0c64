#!/usr/bin/env bash
# Throughput and peak memory of the analysis stages on a generated
# halo-exchange trace (tests/synth/halo.h): 64 ranks, RP_BENCH_EVENTS
# (default 10 million) mpi records, zstd in, zstd out (-z), one process
# each. rp-clocksync reads the trace as rp-record writes it: each rank's
# own clock (offsets up to 1 ms, drift up to 10 ppm, ping-pong
# measurements off by up to 2 us, so that the repair has work); the later
# stages read it on one clock, as rp-clocksync writes it ("rp-clocksync,
# 1 clock" is rp-clocksync on that trace: no mapping or repair to do).
# Prints, as the median of RP_BENCH_RUNS runs (default 3), wall seconds,
# events per wall second and events per CPU second (user + sys over every
# thread: the per-core figure), the slowest and fastest run's events per
# CPU second, and the peak RSS of all runs. A single run on a shared
# machine can be 10-30% off: quote the median.
# The first rows are the floor set by zstd alone on the same bytes: no
# stage that reads and writes zstd NDJSON can beat them on one core.
# Run from the workspace root after `bazel build //...` (make bench does).
set -euo pipefail
bin=bazel-bin
events=${RP_BENCH_EVENTS:-10000000}
work=$(mktemp -d /tmp/rp-stages-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
local_clocks="--clock-offset 1000000 --clock-drift 10 --clock-error 2000"
$bin/tests/synth/gen_halo --ranks 64 --events "$events" -o "$work/halo.ndjson.zst"
$bin/tests/synth/gen_halo --ranks 64 --events "$events" $local_clocks -o "$work/local.ndjson.zst"
records=$($bin/cmd/rp-cat/rp-cat --count "$work/halo.ndjson.zst" | awk '$1 == "mpi" {print $2}')
zstd -q -d -c "$work/halo.ndjson.zst" >"$work/halo.ndjson"
zstd -q -d -c "$work/local.ndjson.zst" >"$work/local.ndjson"
echo "$records mpi records, $(($(stat -c %s "$work/halo.ndjson") / records)) bytes each as NDJSON, $(($(stat -c %s "$work/halo.ndjson.zst") / records)) as zstd"
runs=${RP_BENCH_RUNS:-3}
echo "each row: the median of $runs runs (RP_BENCH_RUNS); ev/CPU-s range: the slowest and fastest run"
printf "%-22s %10s %8s %12s %12s %19s %10s\n" stage events wall_s "events/s" "ev/CPU-s" "ev/CPU-s range" "RSS_MB"
source tests/bench/bench_lib.sh
run "floor: zstd -d" zstd -q -d -c "$work/halo.ndjson.zst"
run "floor: zstd -1 -T1" zstd -q -1 -T1 -c "$work/halo.ndjson"
run "rp-cat --count" $bin/cmd/rp-cat/rp-cat --count "$work/halo.ndjson.zst"
run "rp-cat -z" $bin/cmd/rp-cat/rp-cat -z "$work/halo.ndjson.zst"
run "rp-clocksync -z" $bin/cmd/rp-clocksync/rp-clocksync -q -z "$work/local.ndjson.zst"
run "rp-clocksync gaps -z" $bin/cmd/rp-clocksync/rp-clocksync -q --method gaps -z "$work/local.ndjson.zst"
run "rp-phases -z" $bin/cmd/rp-phases/rp-phases -z "$work/halo.ndjson.zst"
run "rp-cpath -j1 -z" $bin/cmd/rp-cpath/rp-cpath -z "$work/halo.ndjson.zst"
run "rp-cpath -j2 -z" $bin/cmd/rp-cpath/rp-cpath -j 2 -z "$work/halo.ndjson.zst"
run "rp-cpath --no-zeroing" $bin/cmd/rp-cpath/rp-cpath --no-zeroing -z "$work/halo.ndjson.zst"
# The same events with wall-clock samples at rp-record's default 200 Hz:
# what naming the code (lib/profile) adds.
$bin/tests/synth/gen_halo --ranks 64 --events "$events" --sample-hz 200 -o "$work/sampled.ndjson.zst"
run "rp-cat -z, samples" $bin/cmd/rp-cat/rp-cat -z "$work/sampled.ndjson.zst"
run "rp-cpath -z, samples" $bin/cmd/rp-cpath/rp-cpath -z "$work/sampled.ndjson.zst"
rm -f "$work/sampled.ndjson.zst"
# Plain NDJSON in and out: the stages' own cost, without zstd's.
run "rp-cat plain in/out" $bin/cmd/rp-cat/rp-cat "$work/halo.ndjson"
run "rp-clocksync plain" $bin/cmd/rp-clocksync/rp-clocksync -q "$work/local.ndjson"
run "rp-clocksync, 1 clock" $bin/cmd/rp-clocksync/rp-clocksync -q "$work/halo.ndjson"
run "rp-phases plain" $bin/cmd/rp-phases/rp-phases "$work/halo.ndjson"
run "rp-cpath plain in/out" $bin/cmd/rp-cpath/rp-cpath "$work/halo.ndjson"
# A rank the header counts that the trace lacks (and no rank record says
# it has no events): windows wait for it until it has sent nothing for
# --hold records, so memory follows --hold, not the run.
sed '1s/"ranks":64/"ranks":65/' "$work/halo.ndjson" >"$work/missing.ndjson"
run "rp-phases, 1 rank lost" $bin/cmd/rp-phases/rp-phases -q "$work/missing.ndjson"
run "  the same, --hold 2^22" $bin/cmd/rp-phases/rp-phases -q --hold 4194304 "$work/missing.ndjson"
rm -f "$work/halo.ndjson" "$work/local.ndjson" "$work/missing.ndjson"
# Memory must not grow with the run: the same stages on a trace 10 times shorter.
$bin/tests/synth/gen_halo --ranks 64 --events $((events / 10)) -o "$work/short.ndjson.zst"
$bin/tests/synth/gen_halo --ranks 64 --events $((events / 10)) $local_clocks -o "$work/short_local.ndjson.zst"
records=$($bin/cmd/rp-cat/rp-cat --count "$work/short.ndjson.zst" | awk '$1 == "mpi" {print $2}')
echo "the same on $records records:"
run "rp-clocksync -z" $bin/cmd/rp-clocksync/rp-clocksync -q -z "$work/short_local.ndjson.zst"
run "rp-phases -z" $bin/cmd/rp-phases/rp-phases -z "$work/short.ndjson.zst"
run "rp-cpath -j1 -z" $bin/cmd/rp-cpath/rp-cpath -z "$work/short.ndjson.zst"
