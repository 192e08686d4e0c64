#!/usr/bin/env bash
# rp -> OTF2 -> rp on traces of tests/mpi/online/patterns, one run per way
# of writing the same messages: the same mpi records come back (what OTF2
# cannot carry is listed in check_roundtrip.py), otf2-print reads every
# archive, and rp-cpath gives the same answer on both streams.
set -euo pipefail
source tests/mpi/testenv.sh
app=$root/$1
for mode in blocking nonblocking waitany waitsome test persistent sendrecv anysource probe mprobe wildcard comms \
  bcast; do
  np=4
  [ "$mode" = wildcard ] && np=2
  rp-record -q -o "$work/$mode.raw.ndjson" -- "${MPIRUN[@]}" -np $np "$app" -m $mode -n 3 >/dev/null
  rp-clocksync -q "$work/$mode.raw.ndjson" -o "$work/$mode.ndjson"
  rp-cat -q --to otf2 "$work/$mode.otf2" "$work/$mode.ndjson"
  otf2-print "$work/$mode.otf2/traces.otf2" >"$work/$mode.print" 2>"$work/$mode.print.err" ||
    fail "$mode: otf2-print: $(head -3 "$work/$mode.print.err")"
  ! grep -q . "$work/$mode.print.err" || fail "$mode: otf2-print warns: $(head -3 "$work/$mode.print.err")"
  rp-cat -q --from otf2 "$work/$mode.otf2" -o "$work/$mode.back.ndjson"
  echo -n "$mode: "
  python3 "$root/tests/otf2/check_roundtrip.py" "$work/$mode.ndjson" "$work/$mode.back.ndjson"
  for s in "$mode" "$mode.back"; do
    rp-cpath -q --no-passthrough "$work/$s.ndjson" | grep '"cp_summary"' | grep -v '"phase"' |
      python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print(r["length"], r["run_time"], r["rank_share"])' \
        >"$work/$s.cp"
  done
  cmp -s "$work/$mode.cp" "$work/$mode.back.cp" ||
    fail "$mode: rp-cpath differs: $(cat "$work/$mode.cp") vs $(cat "$work/$mode.back.cp")"
done
# An existing archive is replaced only with -f; anything else is refused.
status=0
rp-cat -q --to otf2 "$work/bcast.otf2" "$work/bcast.ndjson" 2>"$work/err" || status=$?
[ $status -eq 2 ] && grep -q "an OTF2 archive; -f replaces it" "$work/err" || fail "overwrote an archive: $status"
rp-cat -q -f --to otf2 "$work/bcast.otf2" "$work/bcast.ndjson"
status=0
rp-cat -q -f --to otf2 "$work" "$work/bcast.ndjson" 2>"$work/err" || status=$?
[ $status -eq 2 ] && grep -q "not an empty directory" "$work/err" || fail "wrote into a non-empty directory"
echo "PASS"
