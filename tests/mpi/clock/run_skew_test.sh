#!/usr/bin/env bash
# Clocks skewed per rank with libfaketime (offsets up to +-0.5 s, drift up
# to 100 ppm): rp-clocksync must recover each rank's offset and drift from
# the collector's measurements, and leave no causality violation; the
# unsynchronized trace must have plenty (else the test proves nothing).
# --method gaps on the same trace without clock records must recover the
# offsets from the global synchronizations.
set -euo pipefail
source tests/mpi/testenv.sh
app=$1
# rank: offset (s) and rate
export RP_SKEWS="+0:1 +0.5:1.0001 -0.3:0.99995 +0.2:1.00002"
offsets=(0 0.5 -0.3 0.2)
drifts_ppm=(0 100 -50 20)
# libfaketime gives each rank its own clock on one host: --no-shared-clock.
RP_TIMER=monotonic rp-record --no-shared-clock -o "$work/skewed.ndjson" -- "${MPIRUN[@]}" -np 4 -x RP_SKEWS -x RP_TIMER \
  "$root/tests/mpi/clock/skewed_rank.sh" "$root/$app" -n 600 -u 4000 -r 10

before=$(python3 "$root/tests/mpi/clock/check_causality.py" "$work/skewed.ndjson")
echo "unsynchronized: $before"
[ "${before%% *}" -gt 100 ] || fail "expected many violations before synchronization"

rp-clocksync --report "$work/skewed.ndjson" -o "$work/synced.ndjson" 2>&1 | tee "$work/report"
rp-cat --validate "$work/synced.ndjson"
after=$(python3 "$root/tests/mpi/clock/check_causality.py" "$work/synced.ndjson")
echo "synchronized: $after"
[ "${after%% *}" = 0 ] || fail "violations left after rp-clocksync"

check_clocks() {  # $1 trace, $2 offset tolerance (s), $3 drift tolerance (ppm, or "-" to skip)
  python3 - "$1" "$2" "$3" "${offsets[*]}" "${drifts_ppm[*]}" <<'PY'
import json, sys
trace, off_tol, drift_tol, offsets, drifts = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4].split(), sys.argv[5].split()
bad = 0
for line in open(trace):
    r = json.loads(line)
    if r["type"] != "clock" or r["method"] == "pingpong":
        continue
    rank = r["rank"]
    want_offset = -float(offsets[rank])  # ns to add to the rank's clock
    got_offset = r["offset"] / 1e9
    err = abs(got_offset - want_offset)
    line = "rank %d: offset %.6f s (injected %.3f, residual %.1f us)" % (rank, got_offset, want_offset, err * 1e6)
    if drift_tol != "-":
        want_drift = -float(drifts[rank])
        derr = abs(r["drift"] - want_drift)
        line += ", drift %.2f ppm (injected %.0f, residual %.2f ppm)" % (r["drift"], want_drift, derr)
        bad += derr > float(drift_tol)
    print(line)
    bad += err > off_tol
sys.exit(1 if bad else 0)
PY
}
check_clocks "$work/synced.ndjson" 0.001 10 || fail "offsets or drifts not recovered"

# Without the collector's measurements: the gaps between Allreduce exits.
rp-cat -t header,rank,comm,site,mpi,sample "$work/skewed.ndjson" |
  rp-clocksync --method gaps --gaps-tolerance 500000 --report -o "$work/gaps.ndjson"
check_clocks "$work/gaps.ndjson" 0.002 - || fail "gaps method did not recover the offsets"
after=$(python3 "$root/tests/mpi/clock/check_causality.py" "$work/gaps.ndjson")
echo "gaps method: $after"
[ "${after%% *}" = 0 ] || fail "violations left after --method gaps"
echo PASS
