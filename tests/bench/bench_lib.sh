# Shared by the benchmarks: run NAME COMMAND... times the command
# $runs times and prints one row: the median wall seconds, $records per
# wall second and per CPU second (user + sys), the slowest and fastest
# run's records per CPU second, and the peak RSS. Needs $runs, $records
# and $work (a scratch directory) set.
at_least_tick() { awk '{print ($1 < 0.01) ? 0.01 : $1}'; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
run() {  # $1 name, rest: command (stdout discarded)
  local name=$1 walls="" cpus="" peak=0 i wall user sys kb
  shift
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null
    read -r wall user sys kb <"$work/time"
    # /usr/bin/time counts in hundredths: a run too short to count takes one
    walls+="$(echo "$wall" | at_least_tick)"$'\n'
    cpus+="$(echo "$user + $sys" | bc -l | at_least_tick)"$'\n'
    ((kb > peak)) && peak=$kb
  done
  wall=$(printf "%s" "$walls" | median)
  local cpu slowest fastest
  cpu=$(printf "%s" "$cpus" | median)
  slowest=$(printf "%s" "$cpus" | sort -g | tail -1)
  fastest=$(printf "%s" "$cpus" | sort -g | head -1)
  printf "%-22s %10d %8.2f %12.0f %12.0f %9.2fM..%6.2fM %10.1f\n" "$name" "$records" "$wall" \
    "$(echo "$records / $wall" | bc -l)" "$(echo "$records / $cpu" | bc -l)" \
    "$(echo "$records / $slowest / 1000000" | bc -l)" "$(echo "$records / $fastest / 1000000" | bc -l)" \
    "$(echo "$peak / 1024" | bc -l)"
}
