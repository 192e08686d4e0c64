#!/usr/bin/env bash
# rp-cat --from otf2 on a real Score-P archive (testdata/otf2/ping-pong,
# two ranks, written by Score-P 7.1, not by rp): the calls against
# otf2-print's, the critical path through the stages; then damaged
# archives: a clear message and exit 2, never a crash.
set -euo pipefail
root=$(pwd)
export PATH="$root/cmd/rp-cat:$root/cmd/rp-clocksync:$root/cmd/rp-phases:$root/cmd/rp-cpath:$PATH"
work=$(mktemp -d /tmp/rp-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
archive=$root/testdata/otf2/ping-pong

rp-cat --from otf2 "$archive" -o "$work/pp.ndjson" 2>"$work/notes"
cat "$work/notes"
grep -q "2 ranks, 36 mpi records" "$work/notes" || fail "conversion summary"
rp-cat --validate "$work/pp.ndjson"
rp-cat --from otf2 "$archive/traces.otf2" | cmp - "$work/pp.ndjson" || fail "the anchor file and its directory differ"
rp-clocksync -q "$work/pp.ndjson" | rp-phases | rp-cpath -q --no-passthrough -o "$work/cp.ndjson"
# A Score-P trace splits (rp-cat --split) and reads back byte for byte, and
# the stages give the same answers on it.
rp-cat --split 2 "$work/pp.ndjson" -o "$work/pp-split.ndjson" || fail "rp-cat --split of the Score-P trace"
cmp "$work/pp.ndjson" <(rp-cat "$work/pp-split.ndjson") || fail "the split Score-P trace reads differently"
cmp <(rp-clocksync -q "$work/pp.ndjson" | rp-phases | rp-cpath -q --no-passthrough) \
    <(rp-clocksync -q "$work/pp-split.ndjson" | rp-phases | rp-cpath -q --no-passthrough) ||
  fail "the stages differ on the split Score-P trace"
python3 "$root/tests/otf2/check_scorep.py" "$archive" "$work/pp.ndjson" "$work/cp.ndjson"

# Damaged archives.
expect_error() {  # NAME PATTERN: rp-cat exits 2 and says PATTERN
  local status=0
  rp-cat --from otf2 "$work/$1" >/dev/null 2>"$work/err" || status=$?
  [ $status -eq 2 ] || fail "$1: exit $status, expected 2: $(cat "$work/err")"
  grep -q "$2" "$work/err" || fail "$1: expected \"$2\" in: $(cat "$work/err")"
  echo "$1: $(cat "$work/err")"
}
copy() {
  cp -rL "$archive" "$work/$1"
  chmod -R u+w "$work/$1"
}
copy no-evt && rm "$work/no-evt/traces/1.evt"
expect_error no-evt "cannot open the events of location 1 (traces/1.evt)"
copy short-def && head -c 3000 "$archive/traces.def" >"$work/short-def/traces.def"
expect_error short-def "the global definitions (traces.def) are damaged"
copy short-evt && head -c 400 "$archive/traces/0.evt" >"$work/short-evt/traces/0.evt"
expect_error short-evt "the events are damaged or missing"
copy no-anchor && rm "$work/no-anchor/traces.otf2"
expect_error no-anchor "cannot read the OTF2 anchor file"
mkdir "$work/not-otf2" && echo '{"type":"header"}' >"$work/not-otf2/traces.otf2"
expect_error not-otf2 "not an OTF2 archive"
echo "PASS"
