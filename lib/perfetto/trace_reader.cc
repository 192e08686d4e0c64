#include "lib/perfetto/trace_reader.h"

#include <zlib.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "lib/perfetto/proto.h"
#include "lib/perfetto/trace_writer.h"

namespace rp::perfetto {
namespace {

using namespace fields;  // NOLINT: the protos' field numbers

struct Location {
  std::string file, function;
  int64_t line = -1;
};

struct SequenceState {
  uint32_t clock = 0;       // default timestamp clock
  uint64_t track = 0;       // default track
  int64_t last = 0;         // incremental clock: time of the previous event
  int64_t to_boot = 0;      // BOOTTIME minus the sequence clock
  std::unordered_map<uint64_t, std::string> names, arg_names;
  std::unordered_map<uint64_t, Location> locations;
};

class Decoder {
 public:
  Status Trace(std::string_view bytes, size_t base, bool bundle);
  DecodedTrace Finish();

 private:
  Status Packet(std::string_view packet, size_t offset);
  Status Event(std::string_view event, SequenceState& seq, int64_t ts, size_t offset);
  static Status Error(size_t offset, const std::string& what) {
    return InputError("perfetto trace, byte " + std::to_string(offset) + ": " + what);
  }

  DecodedTrace out_;
  std::unordered_map<uint32_t, SequenceState> sequences_;
  std::map<uint64_t, std::vector<Slice>> open_;  // by track
};

Status Inflate(std::string_view in, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, 32 + MAX_WBITS) != Z_OK) return InputError("zlib: cannot inflate");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  out->clear();
  int rc = Z_OK;
  while (rc == Z_OK) {
    const size_t have = out->size();
    out->resize(have + (size_t{1} << 20));
    z.next_out = reinterpret_cast<Bytef*>(out->data() + have);
    z.avail_out = 1u << 20;
    rc = inflate(&z, Z_NO_FLUSH);
    out->resize(out->size() - z.avail_out);
    if (rc == Z_BUF_ERROR && z.avail_in > 0) rc = Z_OK;
  }
  inflateEnd(&z);
  return rc == Z_STREAM_END ? OkStatus() : InputError("compressed_packets: not a complete zlib stream");
}

Status Decoder::Trace(std::string_view bytes, size_t base, bool bundle) {
  ProtoReader r(bytes);
  ProtoReader::Field f;
  while (r.Next(&f)) {
    const size_t offset = base + static_cast<size_t>(f.bytes.data() - bytes.data());
    if (f.number != kTracePacket || f.type != kLength) return Error(offset, "not a Trace.packet field");
    RP_RETURN_IF_ERROR(Packet(f.bytes, bundle ? base : offset));
  }
  if (!r.ok()) return Error(base, "truncated or malformed protobuf");
  return OkStatus();
}

Status Decoder::Packet(std::string_view packet, size_t offset) {
  ++out_.packets;
  ProtoReader r(packet);
  ProtoReader::Field f;
  uint32_t sequence = 0;
  bool has_ts = false;
  uint64_t raw_ts = 0;
  uint32_t clock = 0;
  std::string_view event, defaults, interned, snapshot, descriptor;
  bool cleared = false;
  while (r.Next(&f)) {
    switch (f.number) {
      case kSequenceId: sequence = static_cast<uint32_t>(f.value); break;
      case kTimestamp: has_ts = true, raw_ts = f.value; break;
      case kTimestampClockId: clock = static_cast<uint32_t>(f.value); break;
      case kSequenceFlags: cleared = (f.value & kSeqIncrementalStateCleared) != 0; break;
      case kTrackEvent: event = f.bytes; break;
      case kPacketDefaults: defaults = f.bytes; break;
      case kInternedData: interned = f.bytes; break;
      case kClockSnapshot: snapshot = f.bytes; break;
      case kTrackDescriptor: descriptor = f.bytes; break;
      case kCompressedPackets: {
        ++out_.bundles;
        std::string inflated;
        RP_RETURN_IF_ERROR(Inflate(f.bytes, &inflated));
        RP_RETURN_IF_ERROR(Trace(inflated, offset, true));
        break;
      }
      default: break;
    }
  }
  if (!r.ok()) return Error(offset, "malformed TracePacket");
  SequenceState& seq = sequences_[sequence];
  if (cleared) seq = SequenceState{};
  if (!defaults.empty()) {
    ProtoReader d(defaults);
    while (d.Next(&f)) {
      if (f.number == kTimestampClockId) seq.clock = static_cast<uint32_t>(f.value);
      if (f.number == kTrackEventDefaults) {
        ProtoReader e(f.bytes);
        ProtoReader::Field g;
        while (e.Next(&g)) {
          if (g.number == kTrackUuid) seq.track = g.value;
        }
      }
    }
  }
  if (!interned.empty()) {
    ProtoReader d(interned);
    while (d.Next(&f)) {
      if (f.type != kLength) continue;
      ProtoReader e(f.bytes);
      ProtoReader::Field g;
      uint64_t iid = 0;
      std::string name;
      Location loc;
      while (e.Next(&g)) {
        if (g.number == kIid) iid = g.value;
        if (f.number == kSourceLocations) {
          if (g.number == kFileName) loc.file = std::string(g.bytes);
          if (g.number == kFunctionName) loc.function = std::string(g.bytes);
          if (g.number == kLineNumber) loc.line = static_cast<int64_t>(g.value);
        } else if (g.number == kInternedName) {
          name = std::string(g.bytes);
        }
      }
      if (f.number == kEventNames) seq.names[iid] = name;
      if (f.number == kAnnotationNames) seq.arg_names[iid] = name;
      if (f.number == kSourceLocations) seq.locations[iid] = loc;
    }
  }
  if (!snapshot.empty()) {
    int64_t boot = 0, own = 0;
    ProtoReader d(snapshot);
    while (d.Next(&f)) {
      if (f.number != kClocks) continue;
      ProtoReader e(f.bytes);
      ProtoReader::Field g;
      uint32_t id = 0;
      int64_t t = 0;
      while (e.Next(&g)) {
        if (g.number == kClockId) id = static_cast<uint32_t>(g.value);
        if (g.number == kClockTimestamp) t = static_cast<int64_t>(g.value);
      }
      if (id == kBootTime) boot = t;
      if (id == kSequenceClock) own = t;
    }
    seq.last = own;
    seq.to_boot = boot - own;
    return OkStatus();
  }
  if (!descriptor.empty()) {
    Track t;
    ProtoReader d(descriptor);
    while (d.Next(&f)) {
      if (f.number == kUuid) t.uuid = f.value;
      if (f.number == kParentUuid) t.parent = f.value;
      if (f.number == kTrackName) t.name = std::string(f.bytes);
      if (f.number == kChildOrdering) t.explicit_children = f.value == kOrderingExplicit;
      if (f.number == kSiblingOrderRank) t.order = static_cast<int32_t>(f.value);
    }
    out_.tracks.push_back(std::move(t));
  }
  if (event.empty()) return OkStatus();
  if (!has_ts) return Error(offset, "track event without a timestamp");
  if (clock == 0) clock = seq.clock;
  int64_t ts = static_cast<int64_t>(raw_ts);
  if (clock == kSequenceClock) {
    seq.last += ts;
    ts = seq.last + seq.to_boot;
  }
  return Event(event, seq, ts, offset);
}

Status Decoder::Event(std::string_view event, SequenceState& seq, int64_t ts, size_t offset) {
  ProtoReader r(event);
  ProtoReader::Field f;
  Slice s;
  s.track = seq.track;
  s.ts = ts;
  uint64_t type = 0;
  while (r.Next(&f)) {
    switch (f.number) {
      case kType: type = f.value; break;
      case kTrackUuid: s.track = f.value; break;
      case kNameIid: s.name = seq.names[f.value]; break;
      case kSourceLocationIid: {
        const Location& l = seq.locations[f.value];
        s.file = l.file, s.function = l.function, s.line = l.line;
        break;
      }
      case kDebugAnnotations: {
        ProtoReader a(f.bytes);
        ProtoReader::Field g;
        std::pair<std::string, int64_t> arg;
        while (a.Next(&g)) {
          if (g.number == kAnnotationNameIid) arg.first = seq.arg_names[g.value];
          if (g.number == kIntValue) arg.second = static_cast<int64_t>(g.value);
        }
        s.args.push_back(std::move(arg));
        break;
      }
      case kFlowIds: s.flows.push_back(f.value); break;
      case kTerminatingFlowIds: s.terminating_flows.push_back(f.value); break;
      default: break;
    }
  }
  if (!r.ok()) return Error(offset, "malformed TrackEvent");
  std::vector<Slice>& open = open_[s.track];
  if (type == kSliceBegin) {
    s.depth = static_cast<int32_t>(open.size());
    open.push_back(std::move(s));
  } else if (type == kSliceEnd) {
    if (open.empty()) return Error(offset, "slice end on track " + std::to_string(s.track) + " with no slice open");
    Slice done = std::move(open.back());
    open.pop_back();
    done.dur = ts - done.ts;
    out_.slices.push_back(std::move(done));
  }
  return OkStatus();
}

DecodedTrace Decoder::Finish() {
  for (auto& [track, open] : open_) out_.unterminated += static_cast<int64_t>(open.size());
  std::sort(out_.slices.begin(), out_.slices.end(), [](const Slice& a, const Slice& b) {
    if (a.track != b.track) return a.track < b.track;
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.depth < b.depth;
  });
  return std::move(out_);
}

}  // namespace

Expected<DecodedTrace> DecodeTrace(std::string_view bytes) {
  Decoder d;
  RP_RETURN_IF_ERROR(d.Trace(bytes, 0, false));
  return d.Finish();
}

}  // namespace rp::perfetto
