#!/usr/bin/env bash
# rp-diagnose --format html rendered in headless Chromium: the hand-worked
# trace (3 ranks: a late sender, critical computations, lanes one per rank) and
# a generated 1,024-rank halo exchange with one slow rank (lanes grouping
# 16 ranks each); and rp-hops --format html on ns-3's incast (a heat map
# row per sender, the stacked bars).
set -euo pipefail
root=$(pwd)
export PATH="$root/cmd/rp-phases:$root/cmd/rp-diagnose:$PATH"
work=$(mktemp -d /tmp/rp-html.XXXXXX)
trap 'rm -rf "$work"' EXIT
check=$root/tests/report/check_html.py
failed=0
rp-phases testdata/traces/cpath.ndjson | rp-diagnose --format html -o "$work/small.html"
python3 "$check" "$work/small.html" late_sender critical_computation --lanes 3 || failed=1
tests/synth/gen_halo --ranks 1024 --events 300000 --slow-rank 700 --slow-ns 200000 --sample-hz 200 -o "$work/big.ndjson"
rp-phases "$work/big.ndjson" | rp-diagnose --format html -o "$work/big.html"
python3 "$check" "$work/big.html" load_imbalance --lanes 64 || failed=1
cmd/rp-ns3-incast/rp-ns3-incast | cmd/rp-hops/rp-hops --format html -o "$work/network.html"
python3 "$check" "$work/network.html" --network 11 || failed=1
exit $failed
