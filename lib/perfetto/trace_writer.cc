#include "lib/perfetto/trace_writer.h"

#include <libdeflate.h>

#include "lib/perfetto/proto.h"

namespace rp::perfetto {

using namespace fields;  // NOLINT: the protos' field numbers

// Level 1: the packets are small integers and repeated tags, which the
// fastest level already packs several times over.
TraceWriter::TraceWriter(std::unique_ptr<trace::ByteSink> sink)
    : sink_(std::move(sink)), compressor_(libdeflate_alloc_compressor(1)) {}

TraceWriter::~TraceWriter() {
  if (compressor_ != nullptr) libdeflate_free_compressor(compressor_);
}

int32_t TraceWriter::Name(std::string_view name) {
  auto [it, added] = name_ids_.try_emplace(std::string(name), static_cast<int32_t>(names_.size()));
  if (added) names_.emplace_back(name);
  return it->second;
}

int32_t TraceWriter::Location(std::string_view file, std::string_view function, int64_t line) {
  std::string key = std::string(file) + '\0' + std::string(function) + '\0' + std::to_string(line);
  auto [it, added] = location_ids_.try_emplace(std::move(key), static_cast<int32_t>(locations_.size()));
  if (added) locations_.push_back(Location_{std::string(file), std::string(function), line});
  return it->second;
}

uint64_t TraceWriter::Track(std::string_view name, uint64_t parent, int32_t order, bool explicit_children) {
  const uint64_t uuid = next_uuid_++;
  ProtoWriter w(&pending_);
  const size_t packet = w.Open(kTracePacket);
  const size_t track = w.Open(kTrackDescriptor);
  w.Varint(kUuid, uuid);
  if (parent != 0) w.Varint(kParentUuid, parent);
  w.Bytes(kTrackName, name);
  if (explicit_children) w.Varint(kChildOrdering, kOrderingExplicit);
  w.Varint(kSiblingOrderRank, static_cast<uint32_t>(order));  // int32 as protobuf encodes it
  w.Close(track);
  ClosePacket(packet);
  return uuid;
}

void TraceWriter::DefaultTrack(uint32_t sequence, uint64_t track) {
  if (sequence >= sequences_.size()) sequences_.resize(sequence + 1);
  if (!sequences_[sequence].started) sequences_[sequence].track = track;
}

TraceWriter::Sequence& TraceWriter::StartSequence(uint32_t sequence, uint64_t track, int64_t ts) {
  if (sequence >= sequences_.size()) sequences_.resize(sequence + 1);
  Sequence& s = sequences_[sequence];
  if (s.started) return s;
  s.started = true;
  if (s.track == 0) s.track = track;
  s.last = ts;
  // The sequence's first packet: fresh incremental state, its defaults,
  // and its incremental clock, starting at `ts` on BOOTTIME (the clock
  // trace_processor takes as the trace's when a snapshot names it).
  ProtoWriter w(&pending_);
  const size_t packet = w.Open(kTracePacket);
  w.Varint(kSequenceId, sequence);
  w.Varint(kSequenceFlags, kSeqIncrementalStateCleared);
  const size_t defaults = w.Open(kPacketDefaults);
  w.Varint(kTimestampClockId, kSequenceClock);
  const size_t event_defaults = w.Open(kTrackEventDefaults);
  w.Varint(kTrackUuid, s.track);
  w.Close(event_defaults);
  w.Close(defaults);
  const size_t snapshot = w.Open(kClockSnapshot);
  const size_t boot = w.Open(kClocks);
  w.Varint(kClockId, kBootTime);
  w.Varint(kClockTimestamp, static_cast<uint64_t>(ts));
  w.Close(boot);
  const size_t own = w.Open(kClocks);
  w.Varint(kClockId, kSequenceClock);
  w.Varint(kClockTimestamp, static_cast<uint64_t>(ts));
  w.Varint(kClockIncremental, 1);
  w.Close(own);
  w.Close(snapshot);
  ClosePacket(packet);
  return s;
}

size_t TraceWriter::OpenEvent(uint32_t sequence, Sequence& s, int64_t ts, const Slice* slice) {
  ProtoWriter w(&pending_);
  const size_t packet = w.Open(kTracePacket);
  // The time since the sequence's previous event; an earlier time is a
  // negative delta, which trace_processor reads as the int64 it is.
  w.Varint(kTimestamp, static_cast<uint64_t>(ts) - static_cast<uint64_t>(s.last));
  s.last = ts;
  w.Varint(kSequenceId, sequence);
  if (slice == nullptr) return packet;
  auto fresh = [](std::vector<bool>& interned, int32_t id) {
    if (id < 0) return false;
    if (static_cast<size_t>(id) >= interned.size()) interned.resize(id + 1);
    if (interned[id]) return false;
    interned[id] = true;
    return true;
  };
  size_t interned = 0;
  auto open_interned = [&] {
    if (interned == 0) interned = w.Open(kInternedData);
  };
  auto intern_name = [&](uint32_t field, std::vector<bool>& interned_here, int32_t id) {
    if (!fresh(interned_here, id)) return;
    open_interned();
    const size_t entry = w.Open(field);
    w.Varint(kIid, static_cast<uint64_t>(id) + 1);
    w.Bytes(kInternedName, names_[id]);
    w.Close(entry);
  };
  // Slice and argument names share one id space but have a table each.
  intern_name(kEventNames, s.names, slice->name);
  for (const Arg& arg : slice->args) intern_name(kAnnotationNames, s.arg_names, arg.name);
  if (fresh(s.locations, slice->location)) {
    open_interned();
    const Location_& l = locations_[slice->location];
    const size_t entry = w.Open(kSourceLocations);
    w.Varint(kIid, static_cast<uint64_t>(slice->location) + 1);
    w.Bytes(kFileName, l.file);
    w.Bytes(kFunctionName, l.function);
    w.Varint(kLineNumber, static_cast<uint64_t>(l.line));
    w.Close(entry);
  }
  if (interned != 0) w.Close(interned);
  return packet;
}

void TraceWriter::Begin(uint32_t sequence, uint64_t track, int64_t ts, const Slice& slice) {
  Sequence& s = StartSequence(sequence, track, ts);
  const size_t packet = OpenEvent(sequence, s, ts, &slice);
  ProtoWriter w(&pending_);
  const size_t event = w.Open(kTrackEvent);
  w.Varint(kType, kSliceBegin);
  if (track != s.track) w.Varint(kTrackUuid, track);
  w.Varint(kNameIid, static_cast<uint64_t>(slice.name) + 1);
  if (slice.location >= 0) w.Varint(kSourceLocationIid, static_cast<uint64_t>(slice.location) + 1);
  for (const Arg& arg : slice.args) {
    const size_t annotation = w.Open(kDebugAnnotations);
    w.Varint(kAnnotationNameIid, static_cast<uint64_t>(arg.name) + 1);
    w.Varint(kIntValue, static_cast<uint64_t>(arg.value));
    w.Close(annotation);
  }
  for (uint64_t id : slice.flows) w.Fixed64(kFlowIds, id);
  for (uint64_t id : slice.terminating_flows) w.Fixed64(kTerminatingFlowIds, id);
  w.Close(event);
  ClosePacket(packet);
}

void TraceWriter::End(uint32_t sequence, uint64_t track, int64_t ts) {
  Sequence& s = StartSequence(sequence, track, ts);
  const size_t packet = OpenEvent(sequence, s, ts, nullptr);
  ProtoWriter w(&pending_);
  const size_t event = w.Open(kTrackEvent);
  w.Varint(kType, kSliceEnd);
  if (track != s.track) w.Varint(kTrackUuid, track);
  w.Close(event);
  ClosePacket(packet);
}

void TraceWriter::ClosePacket(size_t packet) {
  ProtoWriter(&pending_).Close(packet);
  ++packets_;
  if (pending_.size() >= kBundle && status_.ok()) status_ = Flush();
}

Status TraceWriter::Flush() {
  if (pending_.empty()) return OkStatus();
  if (compressor_ == nullptr) return InputError("libdeflate: out of memory");
  bytes_in_ += static_cast<int64_t>(pending_.size());
  compressed_.resize(libdeflate_zlib_compress_bound(compressor_, pending_.size()));
  const size_t n = libdeflate_zlib_compress(compressor_, pending_.data(), pending_.size(), compressed_.data(),
                                            compressed_.size());
  if (n == 0) return InputError("libdeflate: compression failed");
  compressed_.resize(n);
  pending_.clear();
  out_.clear();
  ProtoWriter w(&out_);
  const size_t packet = w.Open(kTracePacket);
  w.Bytes(kCompressedPackets, compressed_);
  w.Close(packet);
  return sink_->Write(out_);
}

Status TraceWriter::Close() {
  RP_RETURN_IF_ERROR(status_);
  RP_RETURN_IF_ERROR(Flush());
  return sink_->Close();
}

}  // namespace rp::perfetto
