#!/usr/bin/env bash
# rp -> Perfetto on traces of tests/mpi/online/patterns (one run per way of
# writing the messages), of LAMMPS, and of the Score-P archive: protoc and
# rp's reader decode the same slices and flows, and they are the stream's
# calls, messages and critical path (check_perfetto.py); a phase and a time
# window keep what they should; bad requests exit 2.
set -euo pipefail
source tests/mpi/testenv.sh
app=$root/$1
dump=$root/$2
here=$root/tests/perfetto
check() {  # STREAM TRACE [window options]
  local stream=$1 trace=$2
  shift 2
  "$dump" "$trace" >"$trace.dump" || fail "perfetto_dump $trace"
  python3 "$here/check_perfetto.py" "$stream" "$trace" "$trace.dump" "$here/perfetto_subset.proto" "$@"
}
for mode in blocking nonblocking waitany sendrecv anysource probe persistent bcast; do
  rp-record -q --sample-hz 1000 -o "$work/$mode.raw.ndjson" -- "${MPIRUN[@]}" -np 4 "$app" -m $mode -n 3 >/dev/null
  rp-clocksync -q "$work/$mode.raw.ndjson" | rp-phases | rp-cpath -o "$work/$mode.ndjson"
  rp-cat -q --to perfetto "$work/$mode.pftrace" "$work/$mode.ndjson"
  echo -n "$mode: "
  check "$work/$mode.ndjson" "$work/$mode.pftrace"
done
# One phase, and a time window from the middle of the run.
rp-cat -q --to perfetto "$work/phase.pftrace" --phase 2 "$work/nonblocking.ndjson"
echo -n "nonblocking --phase 2: "
check "$work/nonblocking.ndjson" "$work/phase.pftrace" --phase 2
read -r begin end < <(python3 -c '
import json, sys
t = sorted(r["t0"] for r in map(json.loads, open(sys.argv[1])) if r["type"] == "mpi")
print(t[len(t) // 3], t[2 * len(t) // 3])' "$work/nonblocking.ndjson")
rp-cat -q --to perfetto "$work/window.pftrace" --begin "$begin" --end "$end" "$work/nonblocking.ndjson"
echo -n "nonblocking --begin $begin --end $end: "
check "$work/nonblocking.ndjson" "$work/window.pftrace" --begin "$begin" --end "$end"
# A real application, and a trace Score-P wrote.
cp /usr/share/lammps/examples/melt/in.melt "$work/"
(cd "$work" && rp-record -q -o lammps.raw.ndjson -- "${MPIRUN[@]}" -np 4 /usr/bin/lmp -in in.melt -log none \
  -screen none)
rp-clocksync -q "$work/lammps.raw.ndjson" | rp-phases | rp-cpath -o "$work/lammps.ndjson"
rp-cat -q --to perfetto "$work/lammps.pftrace" "$work/lammps.ndjson"
echo -n "LAMMPS: "
check "$work/lammps.ndjson" "$work/lammps.pftrace"
grep -q '"slice":"rank 0 code"' "$work/lammps.pftrace.dump" || fail "LAMMPS: no sampled code on rank 0"
rp-cat -q --from otf2 "$root/testdata/otf2/ping-pong" | rp-clocksync -q | rp-phases | rp-cpath -o "$work/scorep.ndjson"
rp-cat -q --to perfetto "$work/scorep.pftrace" "$work/scorep.ndjson"
echo -n "Score-P ping-pong: "
check "$work/scorep.ndjson" "$work/scorep.pftrace"
# Bad requests.
expect_2() {  # MESSAGE-PATTERN COMMAND...
  local pattern=$1 status=0
  shift
  "$@" 2>"$work/err" >/dev/null || status=$?
  [ $status -eq 2 ] && grep -q "$pattern" "$work/err" || fail "$* gave $status: $(cat "$work/err")"
}
expect_2 "go with --to perfetto" rp-cat --to otf2 "$work/x.otf2" --phase 1 "$work/bcast.ndjson"
expect_2 "is after --end" rp-cat --to perfetto "$work/x.pftrace" --begin 10 --end 5 "$work/bcast.ndjson"
expect_2 "not one of otf2, perfetto" rp-cat --to vampir "$work/x" "$work/bcast.ndjson"
expect_2 "both input and output" rp-cat --to perfetto "$work/bcast.ndjson" "$work/bcast.ndjson"
echo 'not a trace' >"$work/bad.ndjson"
expect_2 "bad.ndjson:1" rp-cat --to perfetto "$work/bad.pftrace" "$work/bad.ndjson"
[ ! -e "$work/bad.pftrace" ] || fail "a failed conversion left its output"
echo "PASS"
