// The merge's second pass: every rank's events and samples, read again
// from its file and merged into one stream by time (ties: rank, then file
// order), as mpi and sample records with per-rank seq numbers.
#ifndef RP_LIB_RECORDER_EVENTS_H_
#define RP_LIB_RECORDER_EVENTS_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "lib/base/status.h"
#include "lib/recorder/rank_info.h"
#include "lib/trace/writer.h"

namespace rp::recorder {

struct EventCounts {
  int64_t events = 0;
  int64_t samples = 0;
};

// Where a rank's record at `time` (mpi t0, sample t) is written: the
// trace, or the file of its rank group (trace::SplitWriter::For).
using EventRoute = std::function<Expected<trace::Writer*>(int64_t rank, int64_t time)>;

// `ranks` after the first pass and the dictionaries (site_of, comm_global).
Expected<EventCounts> WriteEvents(std::vector<RankInfo>& ranks, const EventRoute& route);

}  // namespace rp::recorder

#endif  // RP_LIB_RECORDER_EVENTS_H_
