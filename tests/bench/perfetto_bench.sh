#!/usr/bin/env bash
# rp-cat --to perfetto against rp-cat -z on the same generated 64-rank
# halo-exchange trace (tests/synth/halo.h, RP_BENCH_EVENTS mpi records,
# default 1 million), one core (taskset -c 1): time per record, the ratio
# of the two CPU times (target at most 2), and the Perfetto file's size
# against the zstd rp stream's (target under twice). Then the same with
# 200 Hz samples and rp-cpath's records in the stream (sampled code and
# critical path tracks). Each row: the median of RP_BENCH_RUNS runs
# (default 5). Run from the workspace root after `bazel build //...`.
set -euo pipefail
bin=bazel-bin
events=${RP_BENCH_EVENTS:-1000000}
runs=${RP_BENCH_RUNS:-5}
work=$(mktemp -d /tmp/rp-perfetto-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
source tests/bench/bench_lib.sh
one_core=(taskset -c 1)
$bin/tests/synth/gen_halo --ranks 64 --events "$events" -o "$work/halo.ndjson.zst"
$bin/tests/synth/gen_halo --ranks 64 --events "$events" --sample-hz 200 -o "$work/sampled.ndjson.zst"
$bin/cmd/rp-cpath/rp-cpath -q -z "$work/sampled.ndjson.zst" -o "$work/cpath.ndjson.zst"
cpu_median() {  # command...: median user + sys seconds of $runs runs
  local i user sys
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f "%U %S" -o "$work/time" "$@" >/dev/null
    read -r user sys <"$work/time"
    echo "$user + $sys" | bc -l
  done | median
}
printf "%-8s %9s %9s %11s %6s %11s %13s %6s\n" stream records cat-z_s perfetto_s ratio zstd_bytes pftrace_bytes size
for stream in halo cpath; do
  in=$work/$stream.ndjson.zst
  records=$($bin/cmd/rp-cat/rp-cat --count "$in" | awk '$1 == "total" {print $2}')
  cat_s=$(cpu_median "${one_core[@]}" $bin/cmd/rp-cat/rp-cat -z "$in")
  pf_s=$(cpu_median "${one_core[@]}" $bin/cmd/rp-cat/rp-cat -q --to perfetto "$work/out.pftrace" "$in")
  printf "%-8s %9d %9.3f %11.3f %6.2f %11d %13d %6.2f\n" "$stream" "$records" "$cat_s" "$pf_s" \
    "$(echo "$pf_s / $cat_s" | bc -l)" "$(stat -c %s "$in")" "$(stat -c %s "$work/out.pftrace")" \
    "$(echo "$(stat -c %s "$work/out.pftrace") / $(stat -c %s "$in")" | bc -l)"
done
echo "rows per record (median of $runs, whole stream):"
printf "%-22s %10s %8s %12s %12s %19s %10s\n" tool records wall_s "rec/s" "rec/CPU-s" "rec/CPU-s range" "RSS_MB"
records=$($bin/cmd/rp-cat/rp-cat --count "$work/halo.ndjson.zst" | awk '$1 == "total" {print $2}')
run "rp-cat -z" "${one_core[@]}" $bin/cmd/rp-cat/rp-cat -z "$work/halo.ndjson.zst"
run "rp-cat --to perfetto" "${one_core[@]}" $bin/cmd/rp-cat/rp-cat -q --to perfetto "$work/out.pftrace" \
  "$work/halo.ndjson.zst"
