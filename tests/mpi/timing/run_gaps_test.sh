#!/usr/bin/env bash
# Event times are right under both timers: TSC ticks converted by the merge,
# and CLOCK_MONOTONIC directly.
#   run_gaps_test.sh APP tsc|monotonic
set -euo pipefail
source tests/mpi/testenv.sh
app=$1
timer=$2
RP_EXPECT_DIR=$work RP_TIMER=$timer rp-record -o "$work/trace.ndjson" -- \
  "${MPIRUN[@]}" -np 2 -x RP_EXPECT_DIR -x RP_TIMER "$root/$app"
rp-cat --validate "$work/trace.ndjson"
python3 "$root/tests/mpi/timing/check_gaps.py" "$work/trace.ndjson" "$work" 2
