// The merge's second pass: every rank's events and samples, read again
// from its file and merged into one stream by time (ties: rank, then file
// order), as mpi and sample records with per-rank seq numbers.
#ifndef RP_LIB_RECORDER_EVENTS_H_
#define RP_LIB_RECORDER_EVENTS_H_

#include <cstdint>
#include <vector>

#include "lib/base/status.h"
#include "lib/recorder/rank_info.h"
#include "lib/trace/writer.h"

namespace rp::recorder {

struct EventCounts {
  int64_t events = 0;
  int64_t samples = 0;
};

// `ranks` after the first pass and the dictionaries (site_of, comm_global).
Expected<EventCounts> WriteEvents(std::vector<RankInfo>& ranks, trace::Writer& writer);

}  // namespace rp::recorder

#endif  // RP_LIB_RECORDER_EVENTS_H_
