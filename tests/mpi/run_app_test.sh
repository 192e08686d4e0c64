#!/usr/bin/env bash
# Records an MPI test application with rp-record and checks the trace:
# valid (rp-cat --validate), complete, and exactly what the application
# expected call by call (check_trace.py, expectations from expect.h).
#   run_app_test.sh NP APP [ARGS...]
set -euo pipefail
source tests/mpi/testenv.sh
np=$1
app=$2
shift 2
export RP_EXPECT_DIR=$work
rp-record -o "$work/trace.ndjson" -- "${MPIRUN[@]}" -np "$np" \
  -x RP_EXPECT_DIR "$root/$app" "$@"
rp-cat --validate "$work/trace.ndjson"
python3 "$root/tests/mpi/check_trace.py" "$work/trace.ndjson" "$work"
