#!/usr/bin/env bash
# Records an MPI test application with rp-record and checks the trace:
# valid (rp-cat --validate), complete, and exactly what the application
# expected call by call (check_trace.py, expectations from expect.h).
#   run_app_test.sh NP APP [ARGS...]
set -euo pipefail
np=$1
app=$2
shift 2
root=$(pwd)
export PATH="$root/cmd/rp-record:$root/cmd/rp-cat:$PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI puts unix sockets under TMPDIR; Bazel's is too long for them.
export TMPDIR=/tmp
work=$(mktemp -d /tmp/rp-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
export RP_EXPECT_DIR=$work
rp-record -o "$work/trace.ndjson" -- mpirun -np "$np" --oversubscribe --mca btl self,vader \
  -x RP_EXPECT_DIR "$root/$app" "$@"
rp-cat --validate "$work/trace.ndjson"
python3 "$root/tests/mpi/check_trace.py" "$work/trace.ndjson" "$work"
