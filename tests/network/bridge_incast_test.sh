#!/bin/bash
# rp-hops on real Linux networking (bridge_incast.sh): every packet
# accounted for, drops as tc counted them, the shaped port holding no more
# than its queue's limit ahead of any packet, no negative interval. Skips
# where network namespaces cannot be made.
set -euo pipefail
out=${TEST_TMPDIR:-$(mktemp -d)}
export RP_PCAP=$PWD/cmd/rp-pcap/rp-pcap
status=0
tests/network/bridge_incast.sh "$out" || status=$?
if [ "$status" = 77 ]; then
  echo "SKIPPED: no network namespaces here (needs root and ip netns)"
  exit 0
fi
[ "$status" = 0 ] || exit "$status"
# The shaped port holds up to 30 KB at 20 Mb/s: 12 ms; the window must be longer.
cmd/rp-hops/rp-hops --calibrate 0 --window 50000000 "$out/net.ndjson" -o "$out/hops.ndjson"
python3 tests/network/check_hops.py linux "$out/truth.json" "$out/hops.ndjson"
