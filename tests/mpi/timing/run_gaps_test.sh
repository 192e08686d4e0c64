#!/usr/bin/env bash
# Event times are right under both timers: TSC ticks converted by the merge,
# and CLOCK_MONOTONIC directly.
#   run_gaps_test.sh APP tsc|monotonic
set -euo pipefail
app=$1
timer=$2
root=$(pwd)
export PATH="$root/cmd/rp-record:$root/cmd/rp-cat:$PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TMPDIR=/tmp
work=$(mktemp -d /tmp/rp-gaps.XXXXXX)
trap 'rm -rf "$work"' EXIT
RP_EXPECT_DIR=$work RP_TIMER=$timer rp-record -o "$work/trace.ndjson" -- \
  mpirun -np 2 --oversubscribe --mca btl self,vader -x RP_EXPECT_DIR -x RP_TIMER "$root/$app"
rp-cat --validate "$work/trace.ndjson"
python3 "$root/tests/mpi/timing/check_gaps.py" "$work/trace.ndjson" "$work" 2
