#!/usr/bin/env bash
# Records tests/mpi/sampling/shares on 2 ranks at 200 Hz and checks the
# sampled shares of its three functions (50% compute, 30% sleep, 20% poll).
set -euo pipefail
app=$1
root=$(pwd)
export PATH="$root/cmd/rp-record:$root/cmd/rp-cat:$PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TMPDIR=/tmp
work=$(mktemp -d /tmp/rp-shares.XXXXXX)
trap 'rm -rf "$work"' EXIT
rp-record --sample-hz 200 -o "$work/trace.ndjson" -- \
  mpirun -np 2 --oversubscribe --mca btl self,vader "$root/$app" 20
rp-cat --validate "$work/trace.ndjson"
python3 "$root/tests/mpi/sampling/check_shares.py" "$work/trace.ndjson" 0.04 \
  compute_work=0.5 sleep_work=0.3 syscall_work=0.2
