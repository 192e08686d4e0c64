#!/bin/bash
# Incast through a real Linux bridge, captured at every interface and
# turned into rp-hops' input: hosts h1..hN and the receiver r are network
# namespaces joined by veth pairs to a bridge "switch" sw (in its own
# namespace); the bridge port towards r is shaped by a token bucket (tbf:
# RATE, queue LIMIT bytes), so that is where packets queue and are dropped.
# Every sender marks its UDP packets with DSCP 10 (their IPv4 ids tell them
# apart); tcpdump records each port and direction with nanosecond stamps
# from the one kernel clock; rp-pcap turns the captures into net records.
#
#   tests/network/bridge_incast.sh OUT [SENDERS [PPS [SECONDS [RATE [LIMIT]]]]]
#
# Writes OUT/net.ndjson (link and net records), OUT/truth.json (tbf's
# settings and `tc -s` counters, packets sent and received, capture
# losses) and the captures. Needs root and `ip netns`; exits 77 when
# namespaces cannot be made. Binaries from RP_PCAP (default: on PATH).
set -euo pipefail
out=$1
senders=${2:-3}
pps=${3:-1500}
seconds=${4:-1}
rate=${5:-20mbit}
limit=${6:-30000}
pcap_bin=${RP_PCAP:-rp-pcap}
mkdir -p "$out"

tag="rp$$"
sw="$tag-sw"
nss=("$sw")
cleanup() {
  for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
  for ns in "${nss[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'echo "bridge_incast: line $LINENO: \"$BASH_COMMAND\" failed" >&2' ERR

if ! ip netns add "$sw" 2>/dev/null; then
  echo "bridge_incast: cannot make network namespaces here (needs root and ip netns): skipped" >&2
  nss=()
  exit 77
fi
quiet_ns() {  # no IPv6 (router solicitations, MLD): only our packets on the wire
  ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
}
quiet_ns "$sw"
ip -n "$sw" link add br0 type bridge
hosts=(r)
for i in $(seq 1 "$senders"); do hosts+=("h$i"); done
declare -A ip_of mac_of
for i in "${!hosts[@]}"; do
  h=${hosts[$i]}
  ns="$tag-$h"
  nss+=("$ns")
  ip netns add "$ns"
  quiet_ns "$ns"
  # r is on bridge port p0, hI on pI.
  ip -n "$ns" link add eth0 type veth peer name "p$i" netns "$sw"
  ip_of[$h]="10.77.0.$((i + 1))"
  ip -n "$ns" addr add "${ip_of[$h]}/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  mac_of[$h]=$(ip -n "$ns" -o link show eth0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
  ip -n "$sw" link set "p$i" master br0
  ip -n "$sw" link set "p$i" up
  # Known addresses: no ARP, no flooding.
  bridge -n "$sw" fdb replace "${mac_of[$h]}" dev "p$i" master static
done
ip -n "$sw" link set br0 up
for h in "${hosts[@]:1}"; do
  ip -n "$tag-$h" neigh replace "${ip_of[r]}" lladdr "${mac_of[r]}" dev eth0 nud permanent
done
tc -n "$sw" qdisc add dev p0 root tbf rate "$rate" burst 10kb limit "$limit"

# Captures: each port, one direction each.
caps=()
specs=()
capture() {  # namespace, interface, direction, file, rp-pcap spec
  ip netns exec "$1" tcpdump -i "$2" -Q "$3" -w "$out/$4" --time-stamp-precision=nano -B 16384 -s 96 -U -nn \
    udp 2> "$out/$4.log" &
  caps+=("$!")
  specs+=("$5=$out/$4")
}
capture "$tag-r" eth0 in r.in.pcap "nic_rx+host_recv@r:0"
capture "$sw" p0 out sw0.out.pcap "switch_out@sw:0"
for i in $(seq 1 "$senders"); do
  capture "$tag-h$i" eth0 out "h$i.out.pcap" "host_send+nic_tx@h$i:0"
  capture "$sw" "p$i" in "sw$i.in.pcap" "switch_in@sw:$i"
done
for _ in $(seq 1 50); do  # until every tcpdump listens
  n=$( (cat "$out"/*.pcap.log 2>/dev/null || true) | grep -c "listening on" || true)
  [ "$n" -ge "${#caps[@]}" ] && break
  sleep 0.1
done

# The receiver counts what arrives; each sender sends pps packets a second.
ip netns exec "$tag-r" python3 - "${ip_of[r]}" "$out/received" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 9000))
s.settimeout(2.0)
n = 0
try:
    while True:
        s.recv(2048)
        n += 1
except socket.timeout:
    pass
open(sys.argv[2], "w").write(str(n))
PY
receiver=$!
sleep 0.3
sender_pids=()
for i in $(seq 1 "$senders"); do
  ip netns exec "$tag-h$i" python3 - "${ip_of[r]}" "$pps" "$seconds" "$out/sent.h$i" <<'PY' &
import socket, sys, time
dst, pps, seconds, record = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 10 << 2)  # DSCP 10: marked
s.connect((dst, 9000))
payload = bytes(1000)
n = int(pps * seconds)
start = time.perf_counter()
for k in range(n):
    while time.perf_counter() < start + k / pps:
        pass
    s.send(payload)
open(record, "w").write(str(n))
PY
  sender_pids+=("$!")
done
for p in "${sender_pids[@]}"; do wait "$p"; done
wait "$receiver"
sleep 0.3
stats=$(tc -n "$sw" -s qdisc show dev p0)
for p in "${caps[@]}"; do kill -INT "$p"; done
for p in "${caps[@]}"; do wait "$p" || true; done
lost=0
for f in "$out"/*.pcap.log; do
  n=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel.*/\1/p' "$f")
  lost=$((lost + ${n:-0}))
done
sent=0
for i in $(seq 1 "$senders"); do sent=$((sent + $(cat "$out/sent.h$i"))); done
dropped=$(echo "$stats" | sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -1)
tc_sent=$(echo "$stats" | sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -1)
rate_bps=$(python3 -c "
import re,sys
m=re.match(r'([0-9.]+)([kmg]?)bit', sys.argv[1].lower()); print(int(float(m[1])*{'':1,'k':1e3,'m':1e6,'g':1e9}[m[2]]))" "$rate")
cat > "$out/truth.json" <<JSON
{"switch": "sw", "receiver": "r", "rate_bps": $rate_bps, "limit_bytes": $limit, "tc_dropped": $dropped,
 "tc_sent": $tc_sent, "sent": $sent, "received": $(cat "$out/received"), "capture_lost": $lost,
 "tc": $(python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))' <<< "$stats")}
JSON
links=(--link r:0=sw:0)
names=(--name "${ip_of[r]}=r")
for i in $(seq 1 "$senders"); do
  links+=(--link "h$i:0=sw:$i")
  names+=(--name "${ip_of[h$i]}=h$i")
done
"$pcap_bin" "${links[@]}" "${names[@]}" "${specs[@]}" -o "$out/net.ndjson"
