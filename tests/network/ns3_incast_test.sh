#!/bin/bash
# rp-hops on ns-3's incast (cmd/rp-ns3-incast) against what the simulator
# knows: every marked packet accounted for, drops where the small queue is,
# link delays as configured, clock offsets as set, hop delays adding up.
set -euo pipefail
here=tests/network
out=${TEST_TMPDIR:-$(mktemp -d)}
ns3=cmd/rp-ns3-incast/rp-ns3-incast
hops=cmd/rp-hops/rp-hops

run() {  # name, then rp-ns3-incast's options
  local name=$1
  shift
  "$ns3" "$@" --truth "$out/$name.truth.json" -o "$out/$name.ndjson"
  "$hops" "$out/$name.ndjson" -o "$out/$name.hops.ndjson"
  python3 "$here/check_hops.py" ns3 "$out/$name.truth.json" "$out/$name.hops.ndjson"
  echo "ok $name"
}

# The incast as set up: drop tuples logged, clocks agreeing.
run plain
# Drops only as missing tuples, clocks off by up to 10 us, 4-bit ids that
# repeat every 16 marked packets of a sender.
run hard --no-drop-tuples --clock-offset 2000 --id-bits 4 --seed 7
# More senders and a deeper queue.
run wide --leaves 4 --hosts-per-leaf 6 --receiver-queue 64 --sender-rate 100Mbps --seed 3
