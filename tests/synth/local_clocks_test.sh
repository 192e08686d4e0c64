#!/usr/bin/env bash
# The generator's traces on each rank's own clock (gen_halo --clock-*), known
# by construction: with exact ping-pong measurements rp-clocksync must give
# back the trace on one clock, every time within rounding, for offsets up to
# 0.5 s and drift up to 100 ppm (far beyond the window of a few
# iterations, so ranks run whole windows ahead in the input). With
# measurement errors it must leave no causality violation.
set -euo pipefail
gen=$1 clocksync=$2
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/local_clocks.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$gen" --ranks 16 --events 60000 -o "$work/one.ndjson"
"$gen" --ranks 16 --events 60000 --clock-offset 500000000 --clock-drift 100 -o "$work/local.ndjson"
grep -q '"clock":"local"' "$work/local.ndjson" || fail "the local trace is not marked local"
"$clocksync" --report "$work/local.ndjson" -o "$work/synced.ndjson" 2>"$work/report"
grep -q "violations after repair: 0 message(s), 0 collective exit(s)" "$work/report" || fail "$(cat "$work/report")"

python3 - "$work/one.ndjson" "$work/local.ndjson" "$work/synced.ndjson" <<'PY'
import json, sys
def events(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        if r["type"] == "mpi":
            out[(r["rank"], r["seq"])] = (r["t0"], r["t1"])
    return out
one, local, synced = (events(p) for p in sys.argv[1:])
assert len(one) == len(local) == len(synced) > 50000, (len(one), len(local), len(synced))
moved = max(abs(local[k][0] - one[k][0]) for k in one)
assert moved > 100_000_000, f"the local clocks are hardly skewed: {moved} ns"
worst = max(max(abs(synced[k][0] - one[k][0]), abs(synced[k][1] - one[k][1])) for k in one)
print(f"{len(one)} events, local clocks off by up to {moved} ns, synchronized off by up to {worst} ns")
assert worst <= 2, f"synchronized times off by {worst} ns"
PY

"$gen" --ranks 16 --events 60000 --clock-offset 1000000 --clock-drift 10 --clock-error 3000 -o "$work/noisy.ndjson"
"$clocksync" --report "$work/noisy.ndjson" -o "$work/noisy_synced.ndjson" 2>"$work/report"
grep -E "violations after the pingpong mapping: [1-9]" "$work/report" || fail "the errors caused no violation: $(cat "$work/report")"
grep -q "violations after repair: 0 message(s), 0 collective exit(s)" "$work/report" || fail "$(cat "$work/report")"
echo PASS
