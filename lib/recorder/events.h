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

// Where a group of ranks' records go: the whole trace (one part of all
// ranks), or one file of a split trace. WriteEvents fills in what the
// index's part record says of it.
struct PartOut {
  trace::Writer* writer = nullptr;
  int first_rank = 0, last_rank = 0;
  int64_t records = 0;
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;  // least and greatest order time (mpi t0, sample t)
};

// `ranks` after the first pass and the dictionaries (site_of, comm_global);
// `parts` cover every rank. Each part gets the merged sequence restricted
// to its ranks, so merging the parts again by (time, rank) gives the
// sequence one part of all ranks gets.
Expected<EventCounts> WriteEvents(std::vector<RankInfo>& ranks, std::vector<PartOut>& parts);

}  // namespace rp::recorder

#endif  // RP_LIB_RECORDER_EVENTS_H_
