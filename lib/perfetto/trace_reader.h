// Reads back what TraceWriter writes (and the same subset of any Perfetto
// trace): tracks, and slices with their names, times, source locations,
// arguments and flows, resolving sequences' interned data, packet defaults
// and incremental clocks, and inflating compressed bundles. For tests and
// for checking a converted file; it is not a general Perfetto importer.
#ifndef RP_LIB_PERFETTO_TRACE_READER_H_
#define RP_LIB_PERFETTO_TRACE_READER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/base/status.h"

namespace rp::perfetto {

struct Track {
  uint64_t uuid = 0, parent = 0;
  std::string name;
  int32_t order = 0;
  bool explicit_children = false;
};

struct Slice {
  uint64_t track = 0;
  std::string name;
  int64_t ts = 0, dur = 0;
  int32_t depth = 0;  // slices open on its track when it began
  std::string file, function;
  int64_t line = -1;
  std::vector<std::pair<std::string, int64_t>> args;
  std::vector<uint64_t> flows, terminating_flows;
};

struct DecodedTrace {
  std::vector<Track> tracks;   // in file order
  std::vector<Slice> slices;   // by track, then begin time, then depth
  int64_t packets = 0, bundles = 0;
  int64_t unterminated = 0;    // begins without an end
};

// `bytes`: a whole trace file. An error names the byte offset of what is
// malformed.
Expected<DecodedTrace> DecodeTrace(std::string_view bytes);

}  // namespace rp::perfetto

#endif  // RP_LIB_PERFETTO_TRACE_READER_H_
