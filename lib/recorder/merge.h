// The merge behind rp-record: turns a directory of per-rank collector files
// into one rp-trace/1 stream, in this order (deterministic for given files):
//   header; rank records by rank; comm records (ids unified across ranks by
//   membership and creation order, world = 0); site records (call sites and
//   sample frames, by module and address); clock measurements by rank; then
//   mpi and sample records merged by start time (ties: rank, then file
//   order), with per-rank seq numbers. With MergeOptions::online the
//   events make way for the online answer's records; with
//   MergeOptions::split they go to part files, named by part records.
// Two passes over the files: the first collects dictionaries and checks
// completeness, the second streams events, so memory does not grow with the
// number of events.
#ifndef RP_LIB_RECORDER_MERGE_H_
#define RP_LIB_RECORDER_MERGE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/trace/split.h"
#include "lib/trace/writer.h"

namespace rp::recorder {

struct MergeReport {
  int world_size = 0;
  int64_t events = 0;
  int64_t samples = 0;
  int64_t sites = 0;
  int64_t comms = 0;
  int parts = 0;  // files of a split trace
  // Everything that makes the trace incomplete, one line each: missing
  // ranks, torn or corrupt files, ranks that never reached MPI_Finalize.
  std::vector<std::string> problems;
  // With MergeOptions::online: what the online answer says of itself.
  int64_t online_piggybacks = 0, online_piggyback_bytes = 0, online_skipped_calls = 0;
};

struct MergeOptions {
  // The recorded command (rp-record's), for the header; when empty, rank
  // 0's own command line is used.
  std::vector<std::string> argv;
  // Write rank 0's online critical path (rp-record --online) instead of
  // the events: the dictionaries, then its cp_summary and cp_profile.
  bool online = false;
  // Split the events into this many files of contiguous rank groups,
  // balanced by their records (at most one per rank); the writer given to
  // Merge gets the prelude and a part record per file: the index. 0 or 1:
  // one stream.
  int split = 0;
  // The index's path, whose parts lie beside it (trace::PartPath), and how
  // to open a part.
  std::string split_index;
  trace::PartOpener open_part;
};

// Fails (exit 2) only when nothing can be merged; partial data is written
// and its gaps listed in the report.
Expected<MergeReport> Merge(const std::string& dir, const MergeOptions& options,
                            trace::Writer& writer);

// The collector files in `dir` ("rank-<R>.rpraw"), by rank.
std::vector<std::pair<int, std::string>> RankFiles(const std::string& dir);

}  // namespace rp::recorder

#endif  // RP_LIB_RECORDER_MERGE_H_
