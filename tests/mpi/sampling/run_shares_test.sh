#!/usr/bin/env bash
# Records tests/mpi/sampling/shares on 2 ranks at 200 Hz and checks the
# sampled shares of its three functions (50% compute, 30% sleep, 20% poll).
set -euo pipefail
source tests/mpi/testenv.sh
app=$1
rp-record --sample-hz 200 -o "$work/trace.ndjson" -- \
  "${MPIRUN[@]}" -np 2 "$root/$app" 20
rp-cat --validate "$work/trace.ndjson"
python3 "$root/tests/mpi/sampling/check_shares.py" "$work/trace.ndjson" 0.04 \
  compute_work=0.5 sleep_work=0.3 syscall_work=0.2
