#!/usr/bin/env bash
# rp-hops' speed and peak memory on a generated network log
# (tests/synth/gen_net): a leaf-spine fabric of 256 hosts, 16 leaves and 4
# spines, RP_BENCH_TUPLES (default 10 million) net records, zstd in and out
# (-z), every command pinned to one core (taskset -c 1), so that the ratio
# to `rp-cat -z` on the same stream is the stage's cost on one core. Then
# the same on a log 10 times shorter: memory follows the window, not the
# log. Rows as stages_bench.sh prints them (bench_lib.sh), the median of
# RP_BENCH_RUNS runs (default 3).
# Run from the workspace root after `bazel build //...` (make bench does).
set -euo pipefail
bin=bazel-bin
tuples=${RP_BENCH_TUPLES:-10000000}
runs=${RP_BENCH_RUNS:-3}
work=$(mktemp -d /tmp/rp-hops-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
source tests/bench/bench_lib.sh
one_core="taskset -c 1"
for n in "$tuples" $((tuples / 10)); do
  $bin/tests/synth/gen_net --tuples "$n" -o "$work/net.ndjson.zst"
  records=$($bin/cmd/rp-cat/rp-cat --count "$work/net.ndjson.zst" | awk '$1 == "net" {print $2}')
  echo "$records net records, $(($(stat -c %s "$work/net.ndjson.zst") / records)) bytes each as zstd; one core"
  printf "%-22s %10s %8s %12s %12s %19s %10s\n" command tuples wall_s "tuples/s" "tu/CPU-s" "tu/CPU-s range" "RSS_MB"
  run "rp-cat -z" $one_core $bin/cmd/rp-cat/rp-cat -z "$work/net.ndjson.zst"
  run "rp-hops -z" $one_core $bin/cmd/rp-hops/rp-hops -z "$work/net.ndjson.zst"
  run "rp-hops --no-paths -z" $one_core $bin/cmd/rp-hops/rp-hops --no-paths -z "$work/net.ndjson.zst"
done
