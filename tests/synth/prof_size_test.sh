#!/usr/bin/env bash
# rp-repr --space prof's size follows the code, not the run: gen_halo's
# sampled trace with twice the events, and with twice the ranks, must give
# path profiles no more than 5% larger (rows come and go with the samples:
# a function the call sites name before a rank's first sample), and under
# 100 KB at k = 8.
set -euo pipefail
gen=$1 phases=$2 repr=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
size() {  # ranks events
  "$gen" --ranks "$1" --events "$2" --sample-hz 200 -o "$work/t.ndjson"
  "$phases" "$work/t.ndjson" -o "$work/p.ndjson"
  "$repr" -k 8 --space prof --no-passthrough "$work/p.ndjson" 2>/dev/null | wc -c
}
base=$(size 32 200000) longer=$(size 32 400000) wider=$(size 64 400000)
echo "path profiles, k = 8: $base bytes; twice the events: $longer; twice the ranks too: $wider"
for s in "$longer" "$wider"; do
  if ((s * 100 > base * 105)); then echo "FAIL: $s bytes is more than 5% above $base"; exit 1; fi
done
((base < 100000)) || { echo "FAIL: $base bytes, not under 100 KB"; exit 1; }
echo ok
