#!/usr/bin/env bash
# What the collector's start-up and shut-down cost the application
# (README "Performance"): MPI_Init and MPI_Finalize as the application sees
# them (the slowest rank's), plain and with librpcollect.so preloaded
# (sampling at its default 200 Hz), at 2, 8 and 16 ranks on this machine,
# the median of RP_BENCH_RUNS interleaved runs (default 7); and, from the
# traced runs' records, the collector's own part (the rp of MPI_Init and
# MPI_Finalize). Run from the workspace root after `bazel build //...`.
set -euo pipefail
bin=bazel-bin
runs=${RP_BENCH_RUNS:-7}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TMPDIR=/tmp
collector=$(readlink -f $bin/collector/librpcollect.so)
work=$(mktemp -d /tmp/rp-init-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mpi=(mpirun --oversubscribe --mca btl self,vader)
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
slowest() { awk -v what="$1" '$1 == what && $3 > m {m = $3} END {print m}'; }

printf "%5s %14s %14s %12s %16s %16s %16s\n" ranks "init plain ms" "init traced ms" "rp set-up ms" "finalize plain" "finalize traced" "rp tear-down ms"
for np in 2 8 16; do
  : >"$work/plain" && : >"$work/traced" && : >"$work/setup" && : >"$work/teardown"
  for ((i = 0; i < runs; i++)); do
    "${mpi[@]}" -np $np $bin/tests/bench/init_time >"$work/out"
    echo "$(slowest init <"$work/out") $(slowest finalize <"$work/out")" >>"$work/plain"
    $bin/cmd/rp-record/rp-record -q --collector "$collector" -o "$work/t.ndjson" -- \
      "${mpi[@]}" -np $np $bin/tests/bench/init_time >"$work/out"
    echo "$(slowest init <"$work/out") $(slowest finalize <"$work/out")" >>"$work/traced"
    python3 - "$work/t.ndjson" >>"$work/setup" <<'PY'
import json, sys
rp = {"MPI_Init": 0, "MPI_Finalize": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "mpi" and r["fn"] in rp:
        rp[r["fn"]] = max(rp[r["fn"]], r.get("rp", 0))
print(rp["MPI_Init"], rp["MPI_Finalize"])
PY
  done
  ms() { awk -v c="$1" '{print $c / 1e6}' | median; }
  printf "%5d %14.2f %14.2f %12.2f %16.2f %16.2f %16.2f\n" $np \
    "$(ms 1 <"$work/plain")" "$(ms 1 <"$work/traced")" "$(ms 1 <"$work/setup")" \
    "$(ms 2 <"$work/plain")" "$(ms 2 <"$work/traced")" "$(ms 2 <"$work/setup")"
done
