#!/usr/bin/env bash
# The whole analysis pipeline on one stream: rp-clocksync | rp-phases |
# rp-cpath | rp-diagnose, each stage its own process (as a user's shell
# runs them), on a generated 64-rank halo-exchange trace of
# RP_BENCH_EVENTS (default 10 million) mpi records, zstd in and out.
# Two endings: the report itself (`rp-diagnose --format text`, what a
# user reads) and the whole diagnosed stream kept as zstd (the input's
# records with the analyses', for rp-report and later tools: 10 M records
# more to encode and compress). Prints, for each, the median of
# RP_BENCH_RUNS runs (default 3): wall seconds, records per wall second,
# CPU seconds of all four; then the diagnosed stream's size and the
# reports' sizes (text and HTML).
# Run from the workspace root after `bazel build //...` (make bench does).
set -euo pipefail
bin=bazel-bin/cmd
events=${RP_BENCH_EVENTS:-10000000}
runs=${RP_BENCH_RUNS:-3}
work=$(mktemp -d /tmp/rp-pipeline-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
bazel-bin/tests/synth/gen_halo --ranks 64 --events "$events" -o "$work/halo.ndjson.zst"
records=$($bin/rp-cat/rp-cat --count "$work/halo.ndjson.zst" | awk '$1 == "total" {print $2}')
front() {
  $bin/rp-clocksync/rp-clocksync -q "$work/halo.ndjson.zst" | $bin/rp-phases/rp-phases -q | $bin/rp-cpath/rp-cpath -q
}
to_report() { front | $bin/rp-diagnose/rp-diagnose -q --format text -o "$work/report.direct.txt"; }
to_stream() { front | $bin/rp-diagnose/rp-diagnose -q -f -o "$work/diagnosed.ndjson.zst"; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
measure() {  # $1: label, $2: the pipeline function
  local walls="" cpus="" i start end cpu0 cpu1 wall cpu
  for ((i = 0; i < runs; i++)); do
    start=$(date +%s.%N)
    cpu0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
    "$2"
    end=$(date +%s.%N)
    cpu1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
    walls+="$(echo "$end - $start" | bc -l)"$'\n'
    cpus+="$(echo "($cpu1 - $cpu0) / $(getconf CLK_TCK)" | bc -l)"$'\n'
  done
  wall=$(printf "%s" "$walls" | median)
  cpu=$(printf "%s" "$cpus" | median)
  printf "%-28s wall %.2f s (median of %d), %.2f M records/s; CPU of the four stages: %.1f s\n" \
    "$1" "$wall" "$runs" "$(echo "$records / $wall / 1000000" | bc -l)" "$cpu"
}
printf "records in: %d (%d MB zstd)\n" "$records" $(($(stat -c %s "$work/halo.ndjson.zst") / 1000000))
measure "to the text report:" to_report
measure "keeping the stream (zstd):" to_stream
$bin/rp-report/rp-report --format text "$work/diagnosed.ndjson.zst" >"$work/report.txt"
$bin/rp-report/rp-report --format html "$work/diagnosed.ndjson.zst" >"$work/report.html"
printf "diagnosed stream: %d MB zstd; report: %d KB text, %d KB HTML\n" \
  $(($(stat -c %s "$work/diagnosed.ndjson.zst") / 1000000)) $(($(stat -c %s "$work/report.txt") / 1000)) \
  $(($(stat -c %s "$work/report.html") / 1000))
