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
tc's tbf counted, all in the switch; no interval negative; the switch's
delay within the tbf queue's limit * 8 / rate (all but a scheduling stall:
99% within it, every one within it plus 5 ms); hop delays add up.
"""
import json
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
    waits = []
    for p in paths:
        for ns in p["link_ns"][1:] + p["device_ns"]:
            if ns < 0:
                fail(f"a negative interval: {p}")
        if p["status"] == "complete":
            waits.append(p["device_ns"][p["devices"].index(truth["switch"])])
    bound = truth["limit_bytes"] * 8 * 10**9 // truth["rate_bps"]
    waits.sort()
    p99 = waits[int(0.99 * (len(waits) - 1))]
    if p99 > bound or waits[-1] > bound + 5_000_000:
        fail(f"switch delay p99 {p99} ns, max {waits[-1]} ns; bound {bound} ns")
    check_sums(paths)
    over = sum(1 for w in waits if w > bound)
    print(f"{len(paths)} packets: {status['complete']} complete, {status['dropped']} dropped in "
          f"{truth['switch']} (tc: {truth['tc_dropped']}); switch delay p99 {p99} ns, max {waits[-1]} ns "
          f"against limit*8/rate = {bound} ns ({over} over it)")


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
