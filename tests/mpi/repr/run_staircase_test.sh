#!/usr/bin/env bash
# rp-repr on tests/mpi/repr/staircase: 8 ranks, rank r computes (r + 1) * 5 ms
# before each of 10 Barriers.
set -euo pipefail
source tests/mpi/testenv.sh
app=$root/$1
rp-record -o "$work/trace.ndjson" -- "${MPIRUN[@]}" -np 8 "$app" -n 20 -c 5000
rp-clocksync "$work/trace.ndjson" -o "$work/synced.ndjson"
rp-phases "$work/synced.ndjson" -o "$work/phased.ndjson"
rp-repr --no-passthrough -k 5 "$work/phased.ndjson" -o "$work/repr.ndjson"
rp-repr --no-passthrough -k 4 --select topk "$work/phased.ndjson" -o "$work/topk.ndjson"
rp-repr --no-passthrough -k 5 --cost wall "$work/synced.ndjson" -o "$work/wall.ndjson"
rp-cpath --no-passthrough "$work/synced.ndjson" -o "$work/cpath.ndjson"
rp-cat --validate "$work/repr.ndjson"
python3 "$root/tests/mpi/repr/check_staircase.py" "$work/repr.ndjson" "$work/topk.ndjson" "$work/wall.ndjson" \
  "$work/cpath.ndjson" 8 5000
