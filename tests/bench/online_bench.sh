#!/usr/bin/env bash
# Overhead of the online critical path (rp-record --online; README
# "Performance"), from tests/mpi/online/patterns' own clock (MPI_Init's
# return to MPI_Finalize's call), the median of interleaved plain and
# online runs:
#  1. ns added per message: 2 ranks, RP_BENCH_TRIPS round trips of one int;
#  2. the share added at synchronisation intervals of 0.1, 1 and 10 ms,
#     ~1 s a run: 2 ranks, one a core, spinning that long between
#     MPI_Allreduces; 4 ranks, two a core, sleeping (every collective then
#     waits for the scheduler to wake the ranks);
#  3. the same per message and at 0.1, 1 and 10 ms with 5 representative
#     paths kept too (RP_ONLINE_PATHS=5, rp-record --online-paths 5), and
#     with their path profiles (200 Hz samples as well);
#  4. the same per message and at 0.1, 1 and 10 ms with critical path
#     zeroing (RP_ONLINE_ZEROING=1, rp-record --online-zeroing);
#  5. the same per message and at 1 ms with 200 Hz samples naming the
#     path's functions (RP_SAMPLE_HZ=200, rp-record's default; the rows
#     above sample nothing);
#  6. a real application: Debian's LAMMPS (its melt example, 1000 steps,
#     2 ranks), LAMMPS's own "Loop time", plain against online with 200 Hz
#     samples, then zeroing, then 5 paths too (skipped without lmp).
# Run from the workspace root after `bazel build //...` (make bench does).
set -euo pipefail
bin=bazel-bin
runs=${RP_BENCH_RUNS:-5}
trips=${RP_BENCH_TRIPS:-200000}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TMPDIR=/tmp
collector=$(readlink -f $bin/collector/librpcollect.so)
app=$bin/tests/mpi/online/patterns
work=$(mktemp -d /tmp/rp-online-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mpi=(mpirun --oversubscribe --mca btl self,vader)
online=(-x LD_PRELOAD=$collector -x RP_DIR=$work/raw -x RP_ONLINE=1 -x RP_TRACE=0 -x RP_SAMPLE_HZ=0)
extra=()  # more settings of the online runs

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
elapsed() { "$@" | awk '/^elapsed/ {print $2}'; }

# $1: name; the rest: app arguments after -np N
pair() {
  local name=$1 np=$2
  shift 2
  : >"$work/$name.plain"
  : >"$work/$name.online"
  for ((i = 0; i < runs; i++)); do
    elapsed "${mpi[@]}" -np "$np" "$app" "$@" >>"$work/$name.plain"
    elapsed "${mpi[@]}" -np "$np" "${online[@]}" "${extra[@]}" "$app" "$@" >>"$work/$name.online"
    rm -rf "$work/raw"
  done
  echo "$(median <"$work/$name.plain") $(median <"$work/$name.online")"
}

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "online critical path overhead (commit $commit, $(nproc) cores, median of $runs interleaved runs)"
# One row per message: $1 the row's label suffix (", 5 paths too").
per_message() {
  local plain on
  read -r plain on < <(pair "pingpong$1" 2 -m pingpong -n "$trips")
  awk -v what="$1" -v p="$plain" -v o="$on" -v n="$trips" 'BEGIN {
    printf "| per message%s (2 ranks, %d round trips) | %.0f ns plain | %.0f ns online | %+.0f ns |\n",
           what, n, p / (2 * n), o / (2 * n), (o - p) / (2 * n) }'
}
# One row per interval: $1 label suffix, $2 ranks (2: one a core,
# spinning; 4: two a core, sleeping), then intervals in ms.
syncs() {
  local what=$1 np=$2 ms us rounds plain on busy=()
  shift 2
  [ "$np" = 2 ] && busy=(-b)
  for ms in "$@"; do
    us=$(awk -v ms="$ms" 'BEGIN {print ms * 1000}')
    rounds=$(awk -v ms="$ms" 'BEGIN {print 500 / ms < 100 ? 100 : 500 / ms}')
    [ "$ms" = 1 ] && rounds=1000
    read -r plain on < <(pair "sync$ms.$np$what" "$np" -m slow -n "$rounds" -w "$us" -d 0 "${busy[@]}")
    awk -v ms="$ms" -v what="$what" -v np="$np" -v p="$plain" -v o="$on" -v n="$rounds" 'BEGIN {
      printf "| Allreduce every %s ms%s (%d ranks, %d rounds) | %.1f ms plain | %.1f ms online | %+.2f%% (%+.1f us a sync) |\n",
             ms, what, np, n, p / 1e6, o / 1e6, 100 * (o - p) / p, (o - p) / n / 1e3 }'
  done
}

per_message ""
syncs "" 2 0.1 1 10
syncs "" 4 0.1 1 10
extra=(-x RP_ONLINE_PATHS=5)
per_message ", 5 paths too"
syncs ", 5 paths too" 2 0.1 1 10
extra=(-x RP_ONLINE_PATHS=5 -x RP_SAMPLE_HZ=200)
per_message ", 5 path profiles too"
syncs ", 5 path profiles too" 2 0.1 1 10
extra=(-x RP_ONLINE_ZEROING=1)
per_message ", zeroing too"
syncs ", zeroing too" 2 0.1 1 10
extra=(-x RP_SAMPLE_HZ=200)
per_message ", 200 Hz samples"
syncs ", 200 Hz samples" 2 1 10

if command -v lmp >/dev/null && [ -e /usr/share/lammps/examples/melt/in.melt ]; then
  sed 's/^run .*/run 1000/' /usr/share/lammps/examples/melt/in.melt >"$work/in.melt"
  loop() { "$@" | awk '/^Loop time/ {print $4 * 1e9}'; }
  lammps() {  # $1: label suffix; extra: the online runs' settings. Pairs' ratios: the machine drifts.
    : >"$work/lmp.plain"
    : >"$work/lmp.online"
    : >"$work/lmp.ratio"
    local p o
    for ((i = 0; i < runs; i++)); do
      p=$(loop "${mpi[@]}" -np 2 lmp -in "$work/in.melt" -log none -echo none)
      o=$(loop "${mpi[@]}" -np 2 "${online[@]}" -x RP_SAMPLE_HZ=200 "${extra[@]}" lmp -in "$work/in.melt" -log none \
        -echo none)
      rm -rf "$work/raw"
      echo "$p" >>"$work/lmp.plain"
      echo "$o" >>"$work/lmp.online"
      awk -v p="$p" -v o="$o" 'BEGIN {print o / p}' >>"$work/lmp.ratio"
    done
    awk -v what="$1" -v p="$(median <"$work/lmp.plain")" -v o="$(median <"$work/lmp.online")" \
      -v r="$(median <"$work/lmp.ratio")" -v lo="$(sort -g "$work/lmp.ratio" | head -1)" \
      -v hi="$(sort -g "$work/lmp.ratio" | tail -1)" 'BEGIN {
      printf "| LAMMPS melt, 1000 steps%s (2 ranks, 200 Hz samples) | %.1f ms plain | %.1f ms online | %+.2f%% (pairs %+.1f%% to %+.1f%%) |\n",
             what, p / 1e6, o / 1e6, 100 * (r - 1), 100 * (lo - 1), 100 * (hi - 1) }'
  }
  extra=()
  lammps ""
  extra=(-x RP_ONLINE_ZEROING=1)
  lammps ", zeroing too"
  extra=(-x RP_ONLINE_PATHS=5)
  lammps ", 5 paths too"
fi
