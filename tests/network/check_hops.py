"""Checks rp-hops' answer against a source's ground truth.

    check_hops.py ns3|linux TRUTH.json HOPS.ndjson

ns3: the ground truth rp-ns3-incast wrote (--truth). Every marked packet
sent is one path; the complete ones are those received, the dropped ones
dropped where the simulator dropped them (the receiver's leaf only); each
link's delay is size * 8 / rate + propagation to the nanosecond; the spines
queue at most behind one packet per other leaf; the receiver's leaf at most
(queue + 1) packets' serialisation; estimated clock offsets equal the ones
set; for every complete path the hop delays add up to its latency.

linux: what bridge_incast.sh measured. Every packet sent is one path; the
complete ones as many as the receiver got, the dropped ones as many as
tc's tbf counted, all in the switch; no interval negative; while a packet
is held in the switch no more leaves it than its tbf queue holds, and some
packet found that queue full (check_queue); hop delays add up.
"""
import bisect
import json
import re
import sys
from collections import Counter


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def read(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def check_sums(paths):
    """For every complete path, link and device delays add up to latency."""
    for p in paths:
        if p["status"] != "complete":
            continue
        total = sum(p["link_ns"]) + sum(p["device_ns"])
        if total != p["latency"]:
            fail(f"{p['src']}->{p['dst']} #{p['id']}: hops add to {total}, latency {p['latency']}")


def check_ns3(truth, records):
    links = {(r["device"], r["port"]): r for r in records if r["type"] == "link"}
    paths = [r for r in records if r["type"] == "hop_path"]
    summaries = [r for r in records if r["type"] == "hop_summary"]
    run = next(r for r in summaries if r["kind"] == "run")

    sent = sum(truth["marked_sent"].values())
    received = sum(truth["marked_received"].values())
    dropped = sum(truth["marked_dropped"].values())
    if len(paths) != sent:
        fail(f"{len(paths)} paths, {sent} marked packets sent")
    status = Counter(p["status"] for p in paths)
    if status["complete"] != received or status["dropped"] != dropped or len(status) > 2:
        fail(f"statuses {dict(status)}: truth {received} received, {dropped} dropped")
    # Per sender: complete paths = marked packets received.
    got = Counter(p["src"] for p in paths if p["status"] == "complete")
    if dict(got) != {k: v for k, v in truth["marked_received"].items() if v}:
        fail(f"complete by sender {dict(got)} != received {truth['marked_received']}")
    # Drops: only at the receiver's leaf, as many as the simulator dropped there.
    at = Counter(p.get("dropped_at") for p in paths if p["status"] == "dropped")
    if dict(at) != {k: v for k, v in truth["marked_dropped"].items() if v}:
        fail(f"drops by device {dict(at)} != {truth['marked_dropped']}")
    if set(at) - {truth["receiver_leaf"]}:
        fail(f"drops outside {truth['receiver_leaf']}: {dict(at)}")

    worst_spine = 0
    worst_leaf = 0
    for p in paths:
        devs = p["devices"]
        for i in range(1, len(devs)):
            if p["depart"][i - 1] < 0 or p["arrive"][i] < 0:
                fail(f"a hop without times in {p}")
            # The link taken: from the previous device towards this one.
            link = next(l for (d, _), l in links.items() if d == devs[i - 1] and l["peer"] == devs[i])
            expected = p["size"] * 8 * 10**9 // link["rate"] + link["delay"]
            if p["link_ns"][i] != expected:
                fail(f"{devs[i-1]}->{devs[i]}: {p['link_ns'][i]} ns, expected {expected}")
        for d, ns in zip(devs, p["device_ns"]):
            if d.startswith("spine"):
                worst_spine = max(worst_spine, ns)
            if d == truth["receiver_leaf"] and p["status"] == "complete":
                worst_leaf = max(worst_leaf, ns)
            if ns < 0:
                fail(f"negative delay in {d}: {p}")
    spine_bound = (truth["leaves"] - 1) * truth["fabric_serialisation_ns"]
    if worst_spine > spine_bound:
        fail(f"a spine held a packet {worst_spine} ns, more than {spine_bound}")
    leaf_bound = (truth["receiver_queue"] + 1) * truth["host_serialisation_ns"]
    if not 0 < worst_leaf <= leaf_bound:
        fail(f"{truth['receiver_leaf']} held a packet {worst_leaf} ns, bound {leaf_bound}")
    # The dominant device is the receiver's leaf.
    devices = [r for r in summaries if r["kind"] == "device"]
    top = max(devices, key=lambda r: r.get("share", 0))
    if top["device"] != truth["receiver_leaf"]:
        fail(f"dominant device {top['device']}, expected {truth['receiver_leaf']}")
    # Clock offsets: rp-hops reckons them from the clock furthest ahead,
    # the truth from the simulator's; their differences to h0 must agree.
    off = truth["offsets"]
    est = {r["device"]: r.get("offset", 0) for r in devices}
    for d, got in est.items():
        want = off[d] - off["h0"]
        if got - est["h0"] != want:
            fail(f"{d}: offset {got - est['h0']} from h0's, set {want}")
    if max(est.values()) != 0:
        fail(f"offsets not reckoned from the clock furthest ahead: {est}")
    if run["gaps"] or run["loops"] or run["backwards"] or run["unknown"]:
        fail(f"telemetry trouble in a clean log: {run}")
    check_sums(paths)
    print(f"{sent} packets: {received} complete, {dropped} dropped at {truth['receiver_leaf']}; "
          f"{top['device']} holds {top['share']:.1%}; leaf queueing up to {worst_leaf} ns "
          f"(bound {leaf_bound}); spines up to {worst_spine} ns (bound {spine_bound})")


def check_linux(truth, records):
    paths = [r for r in records if r["type"] == "hop_path"]
    if truth["capture_lost"]:
        fail(f"tcpdump lost {truth['capture_lost']} packets: the captures are incomplete")
    if len(paths) != truth["sent"]:
        fail(f"{len(paths)} paths, {truth['sent']} packets sent")
    status = Counter(p["status"] for p in paths)
    if status["complete"] != truth["received"] or status["dropped"] != truth["tc_dropped"] or len(status) > 2:
        fail(f"statuses {dict(status)}: {truth['received']} received, tc dropped {truth['tc_dropped']}")
    at = Counter(p.get("dropped_at") for p in paths if p["status"] == "dropped")
    if set(at) - {truth["switch"]}:
        fail(f"drops outside the switch: {dict(at)}")
    waits, held = [], []
    for p in paths:
        for ns in p["link_ns"][1:] + p["device_ns"]:
            if ns < 0:
                fail(f"a negative interval: {p}")
        if p["status"] == "complete":
            i = p["devices"].index(truth["switch"])
            waits.append(p["depart"][i] - p["arrive"][i])
            held.append((p["arrive"][i], p["depart"][i], p["size"]))
    check_queue(truth, held)
    bound = truth["limit_bytes"] * 8 * 10**9 // truth["rate_bps"]
    waits.sort()
    p99 = waits[int(0.99 * (len(waits) - 1))]
    check_sums(paths)
    over = sum(1 for w in waits if w > bound)
    print(f"{len(paths)} packets: {status['complete']} complete, {status['dropped']} dropped in "
          f"{truth['switch']} (tc: {truth['tc_dropped']}); switch delay p99 {p99} ns, max {waits[-1]} ns "
          f"against limit*8/rate = {bound} ns ({over} over it)")


def check_queue(truth, held):
    """The shaped port is a FIFO of at most limit bytes (tbf over bfifo), so
    the packets that leave the switch while one is held there were queued
    ahead of it: they and it fit in limit, give or take the one packet in
    service (dequeued but not yet stamped by the egress capture, or stamped
    on ingress but not yet enqueued). This holds whatever the CPUs' timing;
    the time bound limit*8/rate does not: the ingress stamp is taken when
    the packet enters the receiving CPU's backlog, and with the cores busy
    the bridge may reach it milliseconds later (that is printed, not
    failed). Packets tc sent that are not ours (a few bytes) may be ahead
    of any packet, so they are allowed for too."""
    ours = sum(size for _, _, size in held)
    sent = re.search(r"Sent (\d+) bytes", truth["tc"])
    unseen = int(sent.group(1)) - ours if sent else 0
    if unseen < 0:
        fail(f"tc sent {sent.group(1)} bytes, fewer than the {ours} bytes of complete paths")
    departures = sorted((d, size) for _, d, size in held)
    times = [d for d, _ in departures]
    before = [0]
    for _, size in departures:
        before.append(before[-1] + size)
    limit = truth["limit_bytes"]
    fullest = 0
    for a, d, size in held:
        ahead = before[bisect.bisect_left(times, d)] - before[bisect.bisect_right(times, a)]
        if ahead + size > limit + size + unseen:
            fail(f"{ahead} bytes left the switch while a {size}-byte packet was held there "
                 f"[{a}, {d}]: more than its queue of {limit} bytes holds")
        fullest = max(fullest, ahead + size)
    # Packets were dropped, so the queue was full at times: some packet must
    # have found it so (else the held intervals are too short).
    largest = max(size for _, _, size in held)
    if truth["tc_dropped"] and fullest <= limit - 2 * largest:
        fail(f"the fullest queue any packet saw was {fullest} bytes, yet tc dropped "
             f"{truth['tc_dropped']} packets at a limit of {limit}")
    print(f"queue at the shaped port: up to {fullest} bytes ahead of a packet and itself "
          f"(limit {limit} bytes, {unseen} bytes not ours)")


def main():
    kind, truth, hops = sys.argv[1:4]
    with open(truth) as f:
        t = json.load(f)
    if kind == "ns3":
        check_ns3(t, read(hops))
    elif kind == "linux":
        check_linux(t, read(hops))
    else:
        fail(f"unknown source {kind}")


if __name__ == "__main__":
    main()
