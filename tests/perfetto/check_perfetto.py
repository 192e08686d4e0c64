#!/usr/bin/env python3
"""Checks a Perfetto trace written by rp-cat --to perfetto three ways.

  check_perfetto.py STREAM TRACE DUMP SCHEMA [--phase N | --begin B --end E]

STREAM: the rp stream converted; TRACE: the .pftrace; DUMP: perfetto_dump's
output (rp's own reader); SCHEMA: perfetto_subset.proto.

1. protoc decodes the file independently (each compressed bundle inflated
   with Python's zlib, then `protoc --decode_raw` and `protoc --decode`
   with the subset schema); this script resolves sequences, interned
   names, incremental timestamps and slice nesting itself.
2. Its slices and flows equal rp's reader's (DUMP).
3. They are the stream's: one slice per mpi record in the window on its
   rank's track (function, t0, t1, seq, peer/tag/bytes), one per cp_segment
   on the critical path track; every flow starts at a send to the rank
   where it ends, and every message whose two ends are in the window is a
   flow.
"""
import codecs
import json
import subprocess
import sys
import zlib

SEND_FUNCTIONS = {"MPI_Send", "MPI_Isend", "MPI_Ssend", "MPI_Issend", "MPI_Bsend", "MPI_Ibsend",
                  "MPI_Rsend", "MPI_Irsend", "MPI_Sendrecv", "MPI_Sendrecv_replace"}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def bundles(data):
    """The Trace in the file as serialized Traces: each compressed_packets
    bundle inflated; a plain packet re-framed as a Trace of one packet."""
    i = 0
    while i < len(data):
        tag, i = varint(data, i)
        if tag != (1 << 3 | 2):
            fail("top-level field %d is not Trace.packet" % (tag >> 3))
        n, i = varint(data, i)
        packet = data[i:i + n]
        i += n
        j, inner = 0, None
        while j < len(packet):
            t, j = varint(packet, j)
            wt = t & 7
            if wt == 0:
                _, j = varint(packet, j)
            elif wt == 1:
                j += 8
            elif wt == 5:
                j += 4
            elif wt == 2:
                m, j = varint(packet, j)
                if t >> 3 == 50:
                    inner = zlib.decompress(packet[j:j + m])
                j += m
            else:
                fail("wire type %d" % wt)
        yield inner if inner is not None else bytes([0x0A]) + encode_varint(n) + packet


def encode_varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def parse_text(text):
    """protoc's text format as nested lists of (field, value)."""
    root = []
    stack = [root]
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
        elif line.endswith("{"):
            child = []
            stack[-1].append((line[:-1].strip(), child))
            stack.append(child)
        else:
            key, value = line.split(": ", 1)
            if value.startswith('"'):
                value = codecs.escape_decode(value[1:-1].encode("latin-1"))[0].decode("utf-8")
            elif value in ("true", "false"):
                value = value == "true"
            else:
                value = int(value)
            stack[-1].append((key, value))
    return root


def get(msg, key, default=None):
    for k, v in msg:
        if k == key:
            return v
    return default


def get_all(msg, key):
    return [v for k, v in msg if k == key]


def protoc_slices(trace_path, schema):
    data = open(trace_path, "rb").read()
    tracks, slices, open_slices, seqs = {}, [], {}, {}
    include = schema.rsplit("/", 1)[0] if "/" in schema else "."
    for raw in bundles(data):
        r = subprocess.run(["protoc", "--decode_raw"], input=raw, capture_output=True)
        if r.returncode != 0:
            fail("protoc --decode_raw: " + r.stderr.decode()[:300])
        r = subprocess.run(["protoc", "-I", include, "--decode=rpcheck.Trace", schema], input=raw, capture_output=True)
        if r.returncode != 0:
            fail("protoc --decode: " + r.stderr.decode()[:300])
        for key, packet in parse_text(r.stdout.decode()):
            assert key == "packet"
            seq_id = get(packet, "trusted_packet_sequence_id", 0)
            if get(packet, "sequence_flags", 0) & 1:
                seqs[seq_id] = {"names": {}, "args": {}, "locs": {}}
            seq = seqs.setdefault(seq_id, {"names": {}, "args": {}, "locs": {}})
            defaults = get(packet, "trace_packet_defaults")
            if defaults is not None:
                seq["clock"] = get(defaults, "timestamp_clock_id", 0)
                seq["track"] = get(get(defaults, "track_event_defaults", []), "track_uuid", 0)
            interned = get(packet, "interned_data")
            if interned is not None:
                for e in get_all(interned, "event_names"):
                    seq["names"][get(e, "iid")] = get(e, "name")
                for e in get_all(interned, "debug_annotation_names"):
                    seq["args"][get(e, "iid")] = get(e, "name")
                for e in get_all(interned, "source_locations"):
                    seq["locs"][get(e, "iid")] = (get(e, "file_name", ""), get(e, "line_number", 0))
            snapshot = get(packet, "clock_snapshot")
            if snapshot is not None:
                clocks = {get(c, "clock_id"): get(c, "timestamp") for c in get_all(snapshot, "clocks")}
                seq["last"] = clocks[64]
                seq["to_boot"] = clocks[6] - clocks[64]
                continue
            d = get(packet, "track_descriptor")
            if d is not None:
                tracks[get(d, "uuid")] = {"track": get(d, "name"), "parent": get(d, "parent_uuid", 0),
                                          "order": get(d, "sibling_order_rank", 0),
                                          "explicit": get(d, "child_ordering", 0) == 3}
            e = get(packet, "track_event")
            if e is None:
                continue
            ts = get(packet, "timestamp")
            if ts is None:
                fail("event without timestamp")
            if seq.get("clock") == 64:
                if ts >= 1 << 63:
                    ts -= 1 << 64
                seq["last"] += ts
                ts = seq["last"] + seq["to_boot"]
            track = get(e, "track_uuid", seq.get("track", 0))
            stack = open_slices.setdefault(track, [])
            if get(e, "type") == 1:
                loc = seq["locs"].get(get(e, "source_location_iid"), ("", -1))
                args = {}
                for a in get_all(e, "debug_annotations"):
                    args[seq["args"][get(a, "name_iid")]] = get(a, "int_value", 0)
                stack.append({"track": track, "name": seq["names"][get(e, "name_iid")], "ts": ts,
                              "depth": len(stack), "args": args, "flows": get_all(e, "flow_ids"),
                              "in": get_all(e, "terminating_flow_ids"), "file": loc[0], "line": loc[1]})
            elif get(e, "type") == 2:
                if not stack:
                    fail("slice end with nothing open on track %d" % track)
                s = stack.pop()
                s["dur"] = ts - s["ts"]
                slices.append(s)
    if any(open_slices.values()):
        fail("slices never ended")
    names = {uuid: t["track"] for uuid, t in tracks.items()}
    for t in tracks.values():
        t["parent"] = names.get(t["parent"], "")
    for s in slices:
        s["slice"] = names[s.pop("track")]
    return list(tracks.values()), slices


def key(s):
    return (s["slice"], s["ts"], s["depth"], s["name"], s["dur"], json.dumps(s["args"], sort_keys=True),
            tuple(s["flows"]), tuple(s["in"]), s["file"], s["line"])


def main():
    stream, trace_path, dump, schema = sys.argv[1:5]
    opts = sys.argv[5:]
    phase = int(opts[opts.index("--phase") + 1]) if "--phase" in opts else None
    begin = int(opts[opts.index("--begin") + 1]) if "--begin" in opts else -(1 << 63)
    end = int(opts[opts.index("--end") + 1]) if "--end" in opts else (1 << 63) - 1

    tracks, slices = protoc_slices(trace_path, schema)
    mine = [json.loads(l) for l in open(dump)]
    my_tracks = [l for l in mine if "track" in l]
    my_slices = [l for l in mine if "slice" in l]
    if sorted(json.dumps(t, sort_keys=True) for t in tracks) != sorted(json.dumps(t, sort_keys=True) for t in my_tracks):
        fail("tracks differ between protoc and rp's reader")
    a, b = sorted(map(key, slices)), sorted(map(key, my_slices))
    if a != b:
        diff = [x for x in a if x not in set(b)][:3]
        fail("slices differ between protoc and rp's reader (%d vs %d): %s" % (len(a), len(b), diff))

    records = [json.loads(l) for l in open(stream)]
    def selected(r):
        if phase is not None:
            return r.get("phase") == phase
        return r["t1"] >= begin and r["t0"] <= end
    calls = sorted((r["rank"], r["seq"]) for r in records if r["type"] == "mpi" and selected(r))
    by_rank_seq = {(r["rank"], r["seq"]): r for r in records if r["type"] == "mpi"}
    call_slices = {}
    for s in slices:
        if s["slice"].startswith("rank ") and not s["slice"].endswith(" code"):
            call_slices[(int(s["slice"][5:]), s["args"]["seq"])] = s
    if sorted(call_slices) != calls:
        fail("call slices are not the stream's calls: %d slices, %d calls" % (len(call_slices), len(calls)))
    for (rank, seq), s in call_slices.items():
        r = by_rank_seq[(rank, seq)]
        if (s["name"], s["ts"], s["ts"] + s["dur"]) != (r["fn"], r["t0"], r["t1"]):
            fail("rank %d seq %d: slice %s [%d, %d] vs record %s [%d, %d]" % (
                rank, seq, s["name"], s["ts"], s["ts"] + s["dur"], r["fn"], r["t0"], r["t1"]))
        for field in ("peer", "tag", "bytes"):
            if field in r and (r[field] != 0 or field != "bytes") and s["args"].get(field) != r[field]:
                fail("rank %d seq %d: %s %s vs %s" % (rank, seq, field, s["args"].get(field), r[field]))

    # Flows: each starts once and ends once, from a send to the rank it names.
    starts, ends = {}, {}
    for (rank, seq), s in call_slices.items():
        for f in s["flows"]:
            starts.setdefault(f, []).append((rank, seq))
        for f in s["in"]:
            ends.setdefault(f, []).append((rank, seq))
    if set(starts) != set(ends) or any(len(v) != 1 for v in list(starts.values()) + list(ends.values())):
        fail("flows do not each start once and end once")
    for f, [(rank, seq)] in starts.items():
        src = by_rank_seq[(rank, seq)]
        dst_rank = ends[f][0][0]
        if src["fn"] in SEND_FUNCTIONS and src.get("peer") != dst_rank:
            fail("flow %d from rank %d %s to %d, but the send names peer %s" % (f, rank, src["fn"], dst_rank,
                                                                                src.get("peer")))
    sends = [r for r in records if r["type"] == "mpi" and r["fn"] in SEND_FUNCTIONS and r.get("peer", -1) >= 0]
    if phase is None and begin == -(1 << 63) and end == (1 << 63) - 1 and len(starts) < len(sends):
        fail("%d flows for %d blocking and nonblocking sends" % (len(starts), len(sends)))

    path = [r for r in records if r["type"] == "cp_segment"]
    if phase is not None:
        path = [r for r in path if r.get("phase") == phase]
    else:
        path = [r for r in path if r["t1"] >= begin and r["t0"] <= end]
    path_slices = sorted(s["ts"] for s in slices if s["slice"] == "critical path")
    want = sorted(max(r["t0"], begin) for r in path)
    if path_slices != want:
        fail("critical path: %d slices, %d cp_segment records" % (len(path_slices), len(want)))
    sampled = {r["rank"] for r in records if r["type"] == "sample"}
    code = {int(s["slice"].split()[1]) for s in slices if s["slice"].endswith(" code")}
    if not code <= sampled:
        fail("code tracks for ranks without samples: %s" % sorted(code - sampled))
    print("%d call slices, %d flows, %d path steps, %d code slices: protoc, rp's reader and the stream agree" % (
        len(call_slices), len(starts), len(path_slices), len(slices) - len(call_slices) - len(path_slices)))


if __name__ == "__main__":
    main()
