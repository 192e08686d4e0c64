#!/usr/bin/env bash
# rp-phases-mpi, rp-cpath-mpi, rp-repr-mpi, rp-diagnose-mpi and rp-clocksync-mpi: measured speed-up at P = 1, 2 and memory at P = 1, 2, 4 on this machine,
# the volume it exchanges checked against its formula on a simulated run
# of many ranks, and a model of time and memory at P = 64..4096 for traces
# of 10^9..10^11 records built from those figures.
#
#   tests/bench/parallel_bench.sh            (RP_BENCH_RECORDS, RP_BENCH_RUNS)
#   RP_BENCH_ONLY=repr,cpath tests/bench/parallel_bench.sh   (those stages' rows only, no model)
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build -c opt //cmd/rp-cat //cmd/rp-phases //cmd/rp-phases:rp-phases-mpi //cmd/rp-cpath //cmd/rp-cpath:rp-cpath-mpi \
  //cmd/rp-clocksync //cmd/rp-clocksync:rp-clocksync-mpi //cmd/rp-diagnose //cmd/rp-diagnose:rp-diagnose-mpi \
  //cmd/rp-repr //cmd/rp-repr:rp-repr-mpi \
  //tests/synth:gen_halo >/dev/null 2>&1
bin=$(pwd)/bazel-bin
export PATH="$bin/cmd/rp-cat:$bin/cmd/rp-phases:$bin/cmd/rp-cpath:$bin/cmd/rp-clocksync:$bin/cmd/rp-diagnose:$bin/cmd/rp-repr:$PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TMPDIR=/tmp
records=${RP_BENCH_RECORDS:-10000000}
runs=${RP_BENCH_RUNS:-3}
only=${RP_BENCH_ONLY:-}
want() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }
# Plain NDJSON in and out of memory: the figures are the stage's, not the disk's.
work=$(mktemp -d /dev/shm/rp-parallel.XXXXXX)
trap 'rm -rf "$work"' EXIT
mpirun_=(mpirun --oversubscribe --bind-to none --mca btl self,vader --mca mpi_yield_when_idle 1)
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# One timed run of a command, its wall and CPU seconds and peak RSS
# appended to the variable's lists (VAR_walls, VAR_cpus, VAR_peak).
run_once() {  # variable, command...
  local var=$1 wall user sys kb walls cpus peak
  shift
  rm -rf "$work/out" && mkdir "$work/out"
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>&1
  read -r wall user sys kb <"$work/time"
  eval "walls=\${${var}_walls:-} cpus=\${${var}_cpus:-} peak=\${${var}_peak:-0}"
  ((kb > peak)) && peak=$kb
  eval "${var}_walls=\"\$walls\$wall \" ${var}_cpus=\"\$cpus\$(echo \"$user + $sys\" | bc -l) \" ${var}_peak=$peak"
}
# The median wall and CPU seconds of the variable's runs (into VAR_wall,
# VAR_cpu), printed with its peak RSS.
report() {  # variable, name
  local var=$1 name=$2 walls cpus peak wall cpu
  eval "walls=\$${var}_walls cpus=\$${var}_cpus peak=\$${var}_peak"
  wall=$(printf "%s\n" $walls | median)
  cpu=$(printf "%s\n" $cpus | median)
  printf "%-34s %8.2f s %8.2f s CPU %8.1f MiB peak\n" "$name" "$wall" "$cpu" "$(echo "$peak / 1024" | bc -l)"
  eval "${var}_wall=$wall ${var}_cpu=$cpu"
}
timed() {  # variable, name, command...: median wall and CPU seconds (into variable_wall, _cpu), peak RSS
  local var=$1 name=$2 i
  shift 2
  for ((i = 0; i < runs; i++)); do run_once "$var" "$@"; done
  report "$var" "$name"
}

# A stage alone and as its -mpi binary at P = 1, 2 and 4 (four processes on
# two cores: for the memory per process, not the speed), its input split in
# 1, 2 and 4 parts as PARTS1.ndjson ...: into the variables PREFIXsingle_*,
# PREFIX1_* ...; the speed-ups at P = 2 and the ratios to rp-cat -z's wall.
stage_at() {  # prefix stage input parts cat_wall
  local v=$1 stage=$2 input=$3 parts=$4 cat_wall=$5 p i
  # In turn, run after run (one process, P = 1, 2, 4, then again), so that
  # the machine's drift moves every row of the stage alike.
  for ((i = 0; i < runs; i++)); do
    run_once ${v}single $stage "$input" -o "$work/out/${v}single.ndjson"
    for p in 1 2 4; do
      run_once $v$p "${mpirun_[@]}" -np $p $stage-mpi "$parts$p.ndjson" -o "$work/out/$v$p.ndjson"
    done
  done
  report ${v}single "$stage, one process"
  for p in 1 2 4; do report $v$p "$stage-mpi, P=$p"; done
  local single=${v}single_wall one=${v}1_wall two=${v}2_wall
  printf "%s-mpi speed-up at P=2: %.2fx against %s, %.2fx against P=1\n" "$stage" \
    "$(echo "${!single} / ${!two}" | bc -l)" "$stage" "$(echo "${!one} / ${!two}" | bc -l)"
  printf "against rp-cat -z on one core: %s %.2f, %s-mpi P=1 %.2f, P=2 %.2f (wall)\n" "$stage" \
    "$(echo "${!single} / $cat_wall" | bc -l)" "$stage" "$(echo "${!one} / $cat_wall" | bc -l)" \
    "$(echo "${!two} / $cat_wall" | bc -l)"
}

echo "== measured on $(nproc) cores, $records records, 64 ranks, median of $runs (commit $(git rev-parse --short HEAD))"
"$bin/tests/synth/gen_halo" --ranks 64 --events "$records" -o "$work/halo.ndjson"
rp-cat --split 1 "$work/halo.ndjson" -o "$work/s1.ndjson"
rp-cat --split 2 "$work/halo.ndjson" -o "$work/s2.ndjson"
rp-cat --split 4 "$work/halo.ndjson" -o "$work/s4.ndjson"
n=$(grep -c . "$work/halo.ndjson")
timed cat "rp-cat -z (read, write zstd)" taskset -c 0 rp-cat -z "$work/halo.ndjson" -o "$work/out/cat.ndjson.zst"
if want phases; then
  stage_at p rp-phases "$work/halo.ndjson" "$work/s" "$cat_wall"
  # CPU per record of one process: the compute term of the model.
  c=$(echo "$p1_cpu / $n" | bc -l)
fi
if want cpath; then
  # rp-cpath-mpi on the same trace (the graph split by ranks).
  stage_at c rp-cpath "$work/halo.ndjson" "$work/s" "$cat_wall"
  cc=$(echo "$c1_cpu / $n" | bc -l)
fi
rm -f "$work"/s1* "$work"/s2* "$work"/s4*
if want repr; then
  # rp-repr-mpi on rp-phases' output of the same trace, split.
  rp-phases "$work/halo.ndjson" -o "$work/phased.ndjson" 2>/dev/null
  for parts in 1 2 4; do rp-cat --split $parts "$work/phased.ndjson" -o "$work/r$parts.ndjson"; done
  timed rcat "rp-cat -z on rp-phases' output" taskset -c 0 rp-cat -z "$work/phased.ndjson" \
    -o "$work/out/rcat.ndjson.zst"
  stage_at r rp-repr "$work/phased.ndjson" "$work/r" "$rcat_wall"
  rm -f "$work"/phased.ndjson "$work"/r1* "$work"/r2* "$work"/r4*
fi
if want diagnose; then
  # rp-diagnose-mpi on rp-cpath's output of the same trace (phased), split.
  rp-phases "$work/halo.ndjson" 2>/dev/null | rp-cpath -o "$work/cpath.ndjson" 2>/dev/null
  for parts in 1 2 4; do rp-cat --split $parts "$work/cpath.ndjson" -o "$work/d$parts.ndjson"; done
  timed dcat "rp-cat -z on rp-cpath's output" taskset -c 0 rp-cat -z "$work/cpath.ndjson" \
    -o "$work/out/dcat.ndjson.zst"
  stage_at d rp-diagnose "$work/cpath.ndjson" "$work/d" "$dcat_wall"
  rm -f "$work"/cpath.ndjson "$work"/d1* "$work"/d2* "$work"/d4*
fi
rm -f "$work"/halo.ndjson
if want clocksync; then
  # rp-clocksync-mpi on the same run with local clocks: offsets, drifts and
  # measurement errors that leave receives to repair.
  "$bin/tests/synth/gen_halo" --ranks 64 --events "$records" --clock-offset 50000 --clock-drift 20 \
    --clock-error 3000 -o "$work/local.ndjson"
  rp-cat --split 1 "$work/local.ndjson" -o "$work/s1.ndjson"
  rp-cat --split 2 "$work/local.ndjson" -o "$work/s2.ndjson"
  rp-cat --split 4 "$work/local.ndjson" -o "$work/s4.ndjson"
  stage_at s rp-clocksync "$work/local.ndjson" "$work/s" "$cat_wall"
  sn=$(grep -c . "$work/local.ndjson")
  sc=$(echo "$s1_cpu / $sn" | bc -l)  # CPU per record of rp-clocksync-mpi on one process
  rm -f "$work"/local.ndjson "$work"/s1* "$work"/s2* "$work"/s4*
fi
# The simulated run and the model need every stage's figures.
[ -z "$only" ] || exit 0

echo
echo "== simulated: 4096 ranks, few records each, 8 processes on $(nproc) cores"
sim_ranks=4096
"$bin/tests/synth/gen_halo" --ranks $sim_ranks --events 2000000 --sync-every 2 -o "$work/many.ndjson"
rp-cat --split 8 "$work/many.ndjson" -o "$work/m8.ndjson"
/usr/bin/time -f "%e %U %S" -o "$work/simtime" "${mpirun_[@]}" -np 8 rp-phases-mpi -v "$work/m8.ndjson" \
  -o "$work/mout.ndjson" 2>"$work/log"
sim_records=$(grep -c . "$work/many.ndjson")
rp-phases "$work/many.ndjson" | cmp - <(rp-cat "$work/mout.ndjson") && echo "output: rp-phases' byte for byte"
phases=$(grep -m1 -o '[0-9]* phases named' "$work/log" | cut -d' ' -f1)
received=$(grep -m1 -o '[0-9]* received' "$work/log" | cut -d' ' -f1)
exchanges=$(grep -m1 -o '[0-9]* exchanges' "$work/log" | cut -d' ' -f1)
# Each process receives every phase once, added up by an all-reduce (72
# bytes, whatever the processes and ranks), the progress once a round (an
# all-reduce of 40 bytes; the exchanges counted include the last, which is
# not a round) and the last exchange's 48 per process.
model=$(echo "$phases * 72 + ($exchanges - 1) * 40 + 48 * 8" | bc)
printf "phases %d, exchanges %d; bytes received per process: measured %d, formula %d (%.1f%%)\n" \
  "$phases" "$exchanges" "$received" "$model" "$(echo "100 * ($received - $model) / $model" | bc -l)"
# Time: the model's compute term with the 8 processes on this machine's
# cores (N*c/cores), plus what starting 8 processes costs (MPI_Init, the
# options: --version), against the run's wall.
/usr/bin/time -f "%e" -o "$work/starttime" "${mpirun_[@]}" -np 8 rp-phases-mpi --version >/dev/null 2>&1
read -r start <"$work/starttime"
read -r sim_wall sim_user sim_sys <"$work/simtime"
printf "time: measured %.2f s wall; model %.2f s start-up + %.2f s computation on %d cores = %.2f s\n" \
  "$sim_wall" "$start" "$(echo "$sim_records * $c / $(nproc)" | bc -l)" "$(nproc)" \
  "$(echo "$start + $sim_records * $c / $(nproc)" | bc -l)"

# A stage's -mpi binary on the simulated run's 8-part split, with -v (its
# log in $work/PREFIXlog, its wall in PREFIXsim_wall), checked against the
# stage on the whole stream; process 0's figures printed.
simulate() {  # prefix stage split whole
  local v=$1 stage=$2 split=$3 whole=$4
  /usr/bin/time -f "%e" -o "$work/${v}simtime" "${mpirun_[@]}" -np 8 $stage-mpi -v "$split" \
    -o "$work/${v}out.ndjson" 2>"$work/${v}log"
  $stage "$whole" 2>/dev/null | cmp - <(rp-cat "$work/${v}out.ndjson") && echo "$stage-mpi output: $stage's byte for byte"
  read -r "${v}sim_wall" <"$work/${v}simtime"
  grep "process 0 of" "$work/${v}log" | sed 's/.*debug: //'
}

# rp-cpath-mpi on the simulated run: what crosses between processes.
simulate c rp-cpath "$work/m8.ndjson" "$work/many.ndjson"
match=$(grep -m1 -o '[0-9]* match bytes' "$work/clog" | cut -d' ' -f1)
windows=$(grep -m1 -o '[0-9]* windows' "$work/clog" | cut -d' ' -f1)
printf "rp-cpath-mpi: %.2f s wall on 8 processes; match: %.0f bytes sent per window per process, %.1f per record\n" \
  "$csim_wall" "$(echo "$match / $windows" | bc -l)" "$(echo "$match * 8 / $sim_records" | bc -l)"
# Its replay rounds (the path's and the what-ifs'): an MPI_Alltoall each,
# and an MPI_Alltoallv when values travel.
path_rounds=$(grep -m1 -o 'paths: [0-9]* rounds' "$work/clog" | grep -o '[0-9]*')
zero_rounds=$(grep -m1 -o 'what-ifs: [0-9]* rounds' "$work/clog" | grep -o '[0-9]*')
crounds=$(echo "($path_rounds + $zero_rounds) / $windows" | bc -l)
printf "  rounds: %.1f a window (%d windows)\n" "$crounds" "$windows"
# rp-clocksync-mpi on the simulated run: the same match, then the repair's rounds.
simulate s rp-clocksync "$work/m8.ndjson" "$work/many.ndjson"
smatch=$(grep -m1 -o '[0-9]* match bytes' "$work/slog" | cut -d' ' -f1)
srepair=$(grep -m1 -o 'rounds, [0-9]* bytes' "$work/slog" | grep -o '[0-9]*')
printf "rp-clocksync-mpi: %.2f s wall on 8 processes; per record: match %.1f bytes, repair %.1f bytes sent\n" \
  "$ssim_wall" "$(echo "$smatch * 8 / $sim_records" | bc -l)" "$(echo "$srepair * 8 / $sim_records" | bc -l)"
# rp-repr-mpi on the simulated run: the match, the path sets' rounds, and
# every rank's k heads to every process each window.
rp-phases "$work/many.ndjson" -o "$work/manyp.ndjson" 2>/dev/null
rp-cat --split 8 "$work/manyp.ndjson" -o "$work/mp8.ndjson"
simulate r rp-repr "$work/mp8.ndjson" "$work/manyp.ndjson"
rwindows=$(grep -m1 -o '[0-9]* windows' "$work/rlog" | cut -d' ' -f1)
rmatch=$(grep -m1 -o '[0-9]* match bytes' "$work/rlog" | cut -d' ' -f1)
rsets=$(grep -m1 -o 'rounds, [0-9]* bytes sent; heads' "$work/rlog" | grep -o '[0-9]* bytes' | cut -d' ' -f1)
rheads=$(grep -m1 -o '[0-9]* bytes received' "$work/rlog" | cut -d' ' -f1)
rpaths=$(grep -m1 -o 'paths: [0-9]* bytes' "$work/rlog" | grep -o '[0-9]*')
printf "rp-repr-mpi: %.2f s wall on 8 processes; per record: match %.1f, path sets %.1f, paths %.1f bytes sent;\n" \
  "$rsim_wall" "$(echo "$rmatch * 8 / $sim_records" | bc -l)" "$(echo "$rsets * 8 / $sim_records" | bc -l)" \
  "$(echo "$rpaths * 8 / $sim_records" | bc -l)"
rhead_rank=$(echo "$rheads / ($rwindows * $sim_ranks)" | bc -l)  # bytes a rank a window
printf "  heads received per process: %.0f bytes a window (%d windows), %.0f a rank a window\n" \
  "$(echo "$rheads / $rwindows" | bc -l)" "$rwindows" "$rhead_rank"

echo
echo "== model: P processes, N records, R ranks; a phase per 100 records a rank"
echo "   compute N*c/P (c = $(printf "%.0f" "$(echo "$c * 10^9" | bc -l)") ns a record, measured above); per phase every"
echo "   process receives 72 bytes, per exchange 40 (two all-reduces); 5 us per collective step, log2(P) steps;"
echo "   10 GB/s"
printf "%6s %8s %8s %12s %14s %12s\n" P N R compute "recv/process" exchange
for N in 1e9 1e10 1e11; do
  for P in 64 256 1024 4096; do
    awk -v P=$P -v N=$N -v c="$c" 'BEGIN {
      R = 65536; phases = N / (R * 100); lines_per_exchange = 4096;
      compute = N * c / P;
      exchanges = N / P / lines_per_exchange;
      recv = phases * 72 + exchanges * 40;
      ex = 2 * exchanges * 5e-6 * log(P) / log(2) + recv / 1e10;
      printf "%6d %8.0e %8d %10.1f s %11.1f MB %10.1f s\n", P, N, R, compute, recv / 1e6, ex }'
  done
done
echo
echo "== model of rp-cpath-mpi's exchange: every call of a world collective goes to every process"
echo "   as a ghost (~130 bytes), so each process receives about R calls a global synchronization:"
echo "   N/100 calls over the run, whatever P; messages between processes add their two events."
echo "   Collectives: a window per 100 records a rank, each 14 collectives (the cut, the match, the"
echo "   sums, the writer's) and two a replay round ($(printf "%.1f" "$crounds") rounds a window, the simulated run's),"
echo "   5 us per collective step, log2(P) steps"
printf "%6s %8s %8s %12s %16s %12s\n" P N R compute "ghosts/process" collectives
for N in 1e9 1e10 1e11; do
  for P in 64 1024 4096; do
    awk -v P=$P -v N=$N -v c="$cc" -v rounds="$crounds" 'BEGIN { R = 65536; windows = N / (R * 100);
      printf "%6d %8.0e %8d %10.1f s %13.1f GB %10.1f s\n", P, N, R, N * c / P, N / 100 * 130 / 1e9,
        windows * (14 + 2 * rounds) * 5e-6 * log(P) / log(2) }'
  done
done
echo
echo "== model of rp-clocksync-mpi: compute N*c/P (c = $(printf "%.0f" "$(echo "$sc * 10^9" | bc -l)") ns a record, measured above); sent per"
echo "   process per record as measured on the simulated run (match and repair), at 10 GB/s; the match's"
echo "   world-collective ghosts, as rp-cpath-mpi's, N/100 calls a process whatever P"
srepair_rec=$(echo "$srepair * 8 / $sim_records" | bc -l)
printf "%6s %8s %12s %16s %12s\n" P N compute "sent/process" exchange
for N in 1e9 1e10 1e11; do
  for P in 64 1024 4096; do
    awk -v P=$P -v N=$N -v c="$sc" -v r="$srepair_rec" 'BEGIN {
      sent = N / P * r + N / 100 * 130;
      printf "%6d %8.0e %10.1f s %13.1f GB %10.1f s\n", P, N, N * c / P, sent / 1e9, sent / 1e10 }'
  done
done
echo "   memory per process: the phases in flight for its ranks (a window), about"
echo "   the same as one process's rp-phases per rank, with blocks of 128 KiB per part read"

echo
echo "== model of rp-repr-mpi: compute N*c/P (c = $(printf "%.0f" "$(echo "$r1_cpu / $n * 10^9" | bc -l)") ns a record at P = 1, measured above);"
echo "   received per process, whatever P: the world collectives' ghosts (as rp-cpath-mpi's, N/100 calls of"
echo "   ~130 bytes) and every rank's k heads each window ($(printf "%.0f" "$rhead_rank") bytes a rank, the simulated run's), a"
echo "   window per 100 records a rank: N/100 heads; at 10 GB/s"
printf "%6s %8s %12s %16s %12s\n" P N compute "recv/process" exchange
for N in 1e9 1e10 1e11; do
  for P in 64 1024 4096; do
    awk -v P=$P -v N=$N -v c="$(echo "$r1_cpu / $n" | bc -l)" -v h="$rhead_rank" 'BEGIN {
      recv = N / 100 * (130 + h);
      printf "%6d %8.0e %10.1f s %13.1f GB %10.1f s\n", P, N, N * c / P, recv / 1e9, recv / 1e10 }'
  done
done
