#!/usr/bin/env bash
# rp-cpath on tests/mpi/cpath/planted: 8 ranks, rank 5 computes 20 ms more
# than the others before each of 30 Allreduces (600 ms planted in all).
set -euo pipefail
source tests/mpi/testenv.sh
app=$root/$1
iterations=30 base_us=3000 slow=5 extra_us=20000
rp-record -o "$work/trace.ndjson" -- "${MPIRUN[@]}" -np 8 "$app" -n $iterations -u $base_us -s $slow -x $extra_us \
  >"$work/app.out"
rp-clocksync "$work/trace.ndjson" | rp-phases -o "$work/phased.ndjson"
rp-cpath -o "$work/j1.ndjson" "$work/phased.ndjson"
rp-cpath -j 2 -o "$work/j2.ndjson" "$work/phased.ndjson"
cmp "$work/j1.ndjson" "$work/j2.ndjson" || fail "-j1 and -j2 outputs differ"
rp-cat --validate "$work/j1.ndjson"
rp-cpath --algo replay --no-passthrough -o "$work/replay.ndjson" "$work/phased.ndjson"
rp-cpath --algo heuristic --no-passthrough -o "$work/heuristic.ndjson" "$work/phased.ndjson"
rp-cpath --format text "$work/phased.ndjson"
python3 "$root/tests/mpi/cpath/check_planted.py" "$work/app.out" "$work/j1.ndjson" "$work/replay.ndjson" \
  "$work/heuristic.ndjson" $iterations $slow $extra_us
