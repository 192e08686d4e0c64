// Perfetto's binary trace format (protos/perfetto/trace/trace.proto), as
// the Perfetto UI and trace_processor read it: custom tracks
// (TrackDescriptor) holding track-event slices (TrackEvent
// TYPE_SLICE_BEGIN/END) with interned names, source locations and integer
// arguments, and flows (flow_ids / terminating_flow_ids) between slices.
//
// Compact as the Perfetto SDK writes it: each sequence (one per rank)
// declares a sequence-scoped incremental clock (ClockSnapshot clock 64,
// is_incremental) and a default track (TracePacketDefaults), so that an
// event carries the time since its sequence's previous event and no track;
// names are interned per sequence (InternedData); and packets go out in
// deflate-compressed bundles (TracePacket.compressed_packets, zlib format,
// < 512 KB each; libdeflate, several times faster than zlib at the same
// size), which the UI and trace_processor inflate.
//
//   TraceWriter w(std::move(sink));
//   uint64_t track = w.Track("rank 0", /*parent=*/0, /*order=*/0, false);
//   w.Begin(/*sequence=*/1, track, t0, {.name = w.Name("MPI_Send")});
//   w.End(1, track, t1);
//   RP_RETURN_IF_ERROR(w.Close());
#ifndef RP_LIB_PERFETTO_TRACE_WRITER_H_
#define RP_LIB_PERFETTO_TRACE_WRITER_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/base/status.h"
#include "lib/trace/io.h"

struct libdeflate_compressor;

namespace rp::perfetto {

// The field numbers used, from Perfetto's protos (protos/perfetto/trace/).
namespace fields {
inline constexpr uint32_t kTracePacket = 1;  // Trace.packet
// TracePacket
inline constexpr uint32_t kClockSnapshot = 6, kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11,
                          kInternedData = 12, kSequenceFlags = 13, kCompressedPackets = 50,
                          kPacketDefaults = 59, kTrackDescriptor = 60;
inline constexpr uint32_t kTimestampClockId = 58;  // TracePacket and TracePacketDefaults
inline constexpr uint32_t kTrackEventDefaults = 11;  // TracePacketDefaults
inline constexpr uint32_t kSeqIncrementalStateCleared = 1;  // sequence_flags
// ClockSnapshot.clocks, ClockSnapshot.Clock
inline constexpr uint32_t kClocks = 1, kClockId = 1, kClockTimestamp = 2, kClockIncremental = 3;
inline constexpr uint32_t kBootTime = 6, kSequenceClock = 64;
// TrackDescriptor
inline constexpr uint32_t kUuid = 1, kTrackName = 2, kParentUuid = 5, kChildOrdering = 11, kSiblingOrderRank = 12;
inline constexpr uint32_t kOrderingExplicit = 3;
// TrackEvent (and TrackEventDefaults.track_uuid)
inline constexpr uint32_t kDebugAnnotations = 4, kType = 9, kNameIid = 10, kTrackUuid = 11,
                          kSourceLocationIid = 34, kFlowIds = 47, kTerminatingFlowIds = 48;
inline constexpr uint32_t kSliceBegin = 1, kSliceEnd = 2;
// DebugAnnotation
inline constexpr uint32_t kAnnotationNameIid = 1, kIntValue = 4;
// InternedData, and its EventName / DebugAnnotationName / SourceLocation
inline constexpr uint32_t kEventNames = 2, kAnnotationNames = 3, kSourceLocations = 4;
inline constexpr uint32_t kIid = 1, kInternedName = 2, kFileName = 2, kFunctionName = 3, kLineNumber = 4;
}  // namespace fields

class TraceWriter {
 public:
  explicit TraceWriter(std::unique_ptr<trace::ByteSink> sink);
  ~TraceWriter();

  // Ids of strings (slice and argument names) and source locations, the
  // same on every sequence; each is interned on a sequence when first used.
  int32_t Name(std::string_view name);
  int32_t Location(std::string_view file, std::string_view function, int64_t line);

  // A track under `parent` (0: a root), at `order` among its siblings when
  // the parent orders its children explicitly. Returns its uuid.
  uint64_t Track(std::string_view name, uint64_t parent, int32_t order, bool explicit_children);

  struct Arg {
    int32_t name;
    int64_t value;
  };
  struct Slice {
    int32_t name = -1;
    int32_t location = -1;
    std::span<const uint64_t> flows;              // started here
    std::span<const uint64_t> terminating_flows;  // ended here
    std::span<const Arg> args;
  };
  // The track the events of `sequence` are on unless they say otherwise;
  // without it, the track of the sequence's first event.
  void DefaultTrack(uint32_t sequence, uint64_t track);
  // Events of `sequence` (>= 1). Times
  // are ns; a sequence's events should come in time order (an earlier one
  // is right, but costs ten bytes).
  void Begin(uint32_t sequence, uint64_t track, int64_t ts, const Slice& slice);
  void End(uint32_t sequence, uint64_t track, int64_t ts);

  // Writes what is pending and closes the sink.
  Status Close();

  int64_t packets() const { return packets_; }
  int64_t bytes_in() const { return bytes_in_; }  // before compression

 private:
  struct Sequence {
    bool started = false;
    uint64_t track = 0;  // default
    int64_t last = 0;    // time of its previous event
    std::vector<bool> names, arg_names, locations;  // interned here, by id
  };
  struct Location_ {
    std::string file, function;
    int64_t line;
  };
  Sequence& StartSequence(uint32_t sequence, uint64_t track, int64_t ts);
  // Opens an event packet of `s`: timestamp, sequence id, interned data.
  size_t OpenEvent(uint32_t sequence, Sequence& s, int64_t ts, const Slice* slice);
  void ClosePacket(size_t packet);
  Status Flush();  // the pending packets as one compressed bundle

  static constexpr size_t kBundle = size_t{256} << 10;  // packets' bytes per bundle
  std::unique_ptr<trace::ByteSink> sink_;
  ::libdeflate_compressor* compressor_;
  std::string pending_, compressed_, out_;
  Status status_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, int32_t> name_ids_;
  std::vector<Location_> locations_;
  std::unordered_map<std::string, int32_t> location_ids_;
  std::vector<Sequence> sequences_;
  uint64_t next_uuid_ = 1;
  int64_t packets_ = 0, bytes_in_ = 0;
};

}  // namespace rp::perfetto

#endif  // RP_LIB_PERFETTO_TRACE_WRITER_H_
