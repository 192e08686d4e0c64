#!/usr/bin/env bash
# rp-cpath names the code on the critical path: tests/mpi/cpath/kernels on
# 4 ranks, light_kernel 5 ms a rank, heavy_kernel 20 ms more on rank 3,
# before each of 40 Allreduces, sampled at rp-record's default 200 Hz.
set -euo pipefail
source tests/mpi/testenv.sh
app=$root/$1
rp-record -o "$work/trace.ndjson" -- "${MPIRUN[@]}" -np 4 "$app" -n 40 -l 5000 -x 20000 -s 3 >"$work/app.out"
rp-clocksync "$work/trace.ndjson" | rp-cpath -o "$work/cpath.ndjson"
rp-cat --validate "$work/cpath.ndjson"
rp-report "$work/cpath.ndjson"
python3 "$root/tests/mpi/cpath/check_kernels.py" "$work/app.out" "$work/cpath.ndjson" 3
