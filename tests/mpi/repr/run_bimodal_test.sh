#!/usr/bin/env bash
# rp-repr on tests/mpi/repr/bimodal: 5 ranks, 20 ms of base_cells a phase,
# 4 ms more of extra_cells on ranks 0 and 1, 40 phases, 200 Hz samples.
set -euo pipefail
source tests/mpi/testenv.sh
app=$root/$1
rp-record -o "$work/trace.ndjson" -- "${MPIRUN[@]}" -np 5 "$app" -n 40 -b 20000 -w "$work/compute"
rp-clocksync "$work/trace.ndjson" | rp-phases -o "$work/phased.ndjson"
rp-repr --no-passthrough -k 5 "$work/phased.ndjson" -o "$work/repr.ndjson"
rp-repr --format text "$work/phased.ndjson"
python3 "$root/tests/mpi/repr/check_bimodal.py" "$work/repr.ndjson" 40 20000 "$work/compute" 5
