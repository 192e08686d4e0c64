#!/usr/bin/env bash
# Collector overhead figures (README "Performance"), printed as a table:
#  1. ns added per MPI call: mpi_calls (empty MPI_Iprobe; 0-byte self
#     send+recv) plain vs with librpcollect.so (sampling off and on), the
#     median of interleaved runs;
#  2. trace bytes per event after the merge, zstd -1 (rp default), -3 and -19, on a halo run;
#  3. overhead of tracing the halo application (real compute, 4 ranks),
#     median wall time of interleaved plain and traced runs.
# Run from the workspace root after `bazel build //...` (make bench does).
set -euo pipefail
bin=bazel-bin
runs=${RP_BENCH_RUNS:-7}
calls=${RP_BENCH_CALLS:-2000000}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TMPDIR=/tmp
collector=$(readlink -f $bin/collector/librpcollect.so)
work=$(mktemp -d /tmp/rp-collector-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mpi=(mpirun --oversubscribe --mca btl self,vader)

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

calls_run() {  # $1: plain|nosample|sample ; prints "iprobe sendrecv"
  local env=()
  case $1 in
    nosample) env=(-x LD_PRELOAD=$collector -x RP_DIR=$work/raw -x RP_SAMPLE_HZ=0) ;;
    sample) env=(-x LD_PRELOAD=$collector -x RP_DIR=$work/raw -x RP_SAMPLE_HZ=200) ;;
  esac
  "${mpi[@]}" -np 1 "${env[@]}" $bin/tests/bench/mpi_calls "$calls" | awk '{printf "%s ", $2} END {print ""}'
  rm -rf "$work/raw"
}

for variant in plain nosample sample; do : >"$work/$variant"; done
for ((i = 0; i < runs; i++)); do
  for variant in plain nosample sample; do calls_run $variant >>"$work/$variant"; done
done
declare -A iprobe sendrecv
for variant in plain nosample sample; do
  iprobe[$variant]=$(awk '{print $1}' "$work/$variant" | median)
  sendrecv[$variant]=$(awk '{print $2}' "$work/$variant" | median)
done
echo "== ns per call (median of $runs runs, $calls calls each; 1 rank)"
printf "%-22s %10s %12s %14s\n" call plain traced traced+samples
printf "%-22s %10.1f %12.1f %14.1f\n" "MPI_Iprobe (empty)" ${iprobe[plain]} ${iprobe[nosample]} ${iprobe[sample]}
printf "%-22s %10.1f %12.1f %14.1f\n" "0-byte self send/recv" ${sendrecv[plain]} ${sendrecv[nosample]} ${sendrecv[sample]}
echo "added: Iprobe $(echo "${iprobe[nosample]} - ${iprobe[plain]}" | bc) ns, send/recv $(echo "${sendrecv[nosample]} - ${sendrecv[plain]}" | bc) ns per call"

echo "== trace size (halo, 8 ranks, 2000 iterations)"
$bin/cmd/rp-record/rp-record -q -o "$work/halo.ndjson" -- "${mpi[@]}" -np 8 $bin/tests/apps/halo -n 2000 -u 200 >/dev/null
events=$(grep -c '"type":"mpi"' "$work/halo.ndjson")
raw_bytes=$(stat -c %s "$work/halo.ndjson")
for level in 1 3 19; do
  zstd -q -$level --long=27 -c "$work/halo.ndjson" >"$work/halo.$level.zst"
  size=$(stat -c %s "$work/halo.$level.zst")
  echo "zstd -$level: $(echo "scale=2; $size / $events" | bc) bytes/event ($events events, NDJSON $(echo "scale=1; $raw_bytes / $events" | bc) bytes/event)"
done

echo "== halo overhead (4 ranks, compute -w 200, 1000 iterations; median of $runs interleaved runs)"
# The application's own loop time (MPI_Wtime around its iterations) is what
# tracing slows down; the whole command adds MPI start-up, the collector's
# clock handshakes and the merge.
: >"$work/loop_plain"; : >"$work/loop_traced"; : >"$work/wall_plain"; : >"$work/wall_traced"
loop_time() { awk '/^halo:/ {print $(NF-2)}'; }
for ((i = 0; i < runs; i++)); do
  /usr/bin/time -f %e -a -o "$work/wall_plain" "${mpi[@]}" -np 4 $bin/tests/apps/halo -n 1000 -w 200 |
    loop_time >>"$work/loop_plain"
  /usr/bin/time -f %e -a -o "$work/wall_traced" $bin/cmd/rp-record/rp-record -q -o "$work/h.ndjson.zst" -- \
    "${mpi[@]}" -np 4 $bin/tests/apps/halo -n 1000 -w 200 | loop_time >>"$work/loop_traced"
done
plain=$(median <"$work/loop_plain")
traced=$(median <"$work/loop_traced")
echo "application loop: plain $plain s, traced $traced s, overhead $(echo "scale=2; ($traced - $plain) * 100 / $plain" | bc) %"
plain=$(median <"$work/wall_plain")
traced=$(median <"$work/wall_traced")
echo "whole command: plain $plain s, rp-record (run + merge) $traced s, $(echo "scale=1; ($traced - $plain) * 100 / $plain" | bc) % more"
