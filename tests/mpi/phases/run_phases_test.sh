#!/usr/bin/env bash
# rp-phases on runs of tests/mpi/phases/structure with known phases.
#   run_phases_test.sh APP spmd|mpmd|none
set -euo pipefail
source tests/mpi/testenv.sh
app=$root/$1
case $2 in
  spmd) run=("${MPIRUN[@]}" -np 4 "$app"); want=(20 1,3,12,3,1) ;;
  mpmd) run=("${MPIRUN[@]}" -np 2 "$app" : -np 2 "$app" B); want=(20 1,3,12,3,1) ;;
  none) run=("${MPIRUN[@]}" -np 4 "$app" none); want=(1 1 run) ;;
esac
rp-record -o "$work/trace.ndjson" -- "${run[@]}"
rp-clocksync "$work/trace.ndjson" | rp-phases -o "$work/phased.ndjson"
rp-cat --validate "$work/phased.ndjson"
python3 "$root/tests/mpi/phases/check_phases.py" "$work/phased.ndjson" "${want[@]}"
