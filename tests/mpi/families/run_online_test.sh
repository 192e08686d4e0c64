#!/usr/bin/env bash
# Every MPI call family under rp-record --online --trace: the trace is
# still exactly what the application expects (the online work changes no
# record), the job neither hangs nor crashes, and the online critical path
# equals rp-cpath's on the same run but for the calls the collector had to
# leave local (check_online.py).
set -euo pipefail
source tests/mpi/testenv.sh
app=$root/$1
export RP_EXPECT_DIR=$work
rp-record --online --online-zeroing --trace "$work/trace.ndjson" -o "$work/online.ndjson" -- \
  "${MPIRUN[@]}" -np 4 -x RP_EXPECT_DIR "$app" 2>"$work/log"
cat "$work/log"
rp-cat --validate "$work/trace.ndjson"
rp-cat --validate "$work/online.ndjson"
python3 "$root/tests/mpi/check_trace.py" "$work/trace.ndjson" "$work"
rp-clocksync -q "$work/trace.ndjson" | rp-cpath -q --no-passthrough -o "$work/exact.ndjson"
python3 "$root/tests/mpi/families/check_online.py" "$work/trace.ndjson" "$work/online.ndjson" "$work/exact.ndjson" \
  "$work/log"
