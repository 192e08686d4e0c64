// rp-clocksync's window steps (clocksync.h's step 2), shared by the one-
// process stage and rp-clocksync-mpi (parallel.h): map a window's times,
// account its matching and repair, write its records sorted by their new
// times; and what the run adds up (Tally), written and warned of at the
// end.
#ifndef RP_LIB_CLOCKSYNC_SYNCHRONIZER_H_
#define RP_LIB_CLOCKSYNC_SYNCHRONIZER_H_

#include <spdlog/spdlog.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/clock/gaps.h"
#include "lib/clock/repair.h"
#include "lib/clocksync/clocks.h"
#include "lib/clocksync/clocksync.h"
#include "lib/dist/comm.h"
#include "lib/match/match.h"
#include "lib/trace/writer.h"
#include "lib/window/window.h"

namespace rp::clocksync::internal {

struct RankSummary {
  int64_t first_local = INT64_MIN;
  int64_t moved = 0;
  int64_t max_shift = 0;
  int64_t backwards = 0;  // events whose local start precedes the previous one's
  int64_t last_t0 = INT64_MIN;
  bool seen = false;
};

// What the run adds up, for the clock records and the warnings: every
// rank's summary, what matching and repair found wrong, the violations.
struct Tally {
  std::vector<RankSummary> ranks;
  int64_t unmatched_sends = 0, unmatched_receives = 0, unresolved = 0, mismatched = 0, incomplete = 0, cycles = 0;
  int64_t unknown_rank_events = 0, first_unknown_rank = -1;  // of ranks no record names
  std::vector<std::string> examples;
  clock::Violations mapped, final;

  void Add(const match::Matching& m);
  void Add(const clock::RepairResult& r);
  // Another process's tally (its ranks' summaries, its counts) into this.
  void Pack(dist::Packer* out) const;
  Status AddPacked(dist::Unpacker* in);
};

// Method::kGaps's first pass: every rank's exits of global
// synchronizations, read through `windows` (not started), by rank.
Expected<std::vector<std::vector<clock::SyncExit>>> CollectExits(window::WindowReader& windows);

class Synchronizer {
 public:
  Synchronizer(const Config& config, const window::Dictionary& dict, Clocks clocks);

  // The window's events on rank 0's clock, ghosts too; the summaries of
  // the ranks this process reads.
  void MapTimes(window::Window& w);
  // The mapped times so far must span less than 2^61 ns (the repair adds
  // their differences): an error names the farthest event of `w`.
  Status CheckSpan(const window::Window& w) const;
  int64_t earliest() const { return earliest_; }
  int64_t latest() const { return latest_; }
  void SetSpan(int64_t earliest, int64_t latest) { earliest_ = earliest, latest_ = latest; }

  const Config& config() const { return config_; }
  // Violations are counted only to be printed (--report, or -v).
  bool count_violations() const { return count_violations_; }
  const clock::RepairOptions& repair_options() const { return repair_; }
  std::vector<int64_t>& carried_shift() { return carried_shift_; }
  clock::Constraints& constraints() { return constraints_; }
  Tally& tally() { return tally_; }

  // The window's records by their new times; records of no rank first.
  Status WriteSorted(const window::Window& w, trace::Writer& out);
  // What WriteSorted wrote last: its lines, and its first and last timed
  // record's (time, rank) (none: time INT64_MIN).
  struct Written {
    int64_t lines = 0;
    int64_t first_time = INT64_MIN, first_rank = -1, last_time = INT64_MIN, last_rank = -1;
  };
  const Written& written() const { return written_; }
  // The clock record of every rank, from the tally.
  Status WriteSummaries(trace::Writer& out) const;
  // Warnings from the tally; exit 1 when no rank had an mpi record.
  Status Warn() const;

 private:
  int64_t OffsetAtStart(int64_t r) const;
  void ReportGroups() const;

  const Config& config_;
  const window::Dictionary& dict_;
  const Clocks clocks_;
  const int64_t ranks_;
  Tally tally_;
  std::vector<int64_t> carried_shift_;  // repair shifts go on across windows
  clock::RepairOptions repair_;
  clock::Constraints constraints_;
  const spdlog::level::level_enum level_;
  const bool count_violations_;
  int64_t earliest_ = INT64_MAX, latest_ = INT64_MIN;  // mapped times, over the run
  Written written_;
  // Where a window's record goes in the output: by new time, then rank,
  // then input order.
  struct OutputKey {
    int64_t time;
    int32_t rank;
    uint32_t index;
    bool operator<(const OutputKey& o) const {
      if (time != o.time) return time < o.time;
      if (rank != o.rank) return rank < o.rank;
      return index < o.index;
    }
  };
  Status WriteRecord(const window::Window& w, const OutputKey& key, trace::Writer& out) const;
  std::vector<OutputKey> untimed_, order_, scratch_;
};

}  // namespace rp::clocksync::internal

#endif  // RP_LIB_CLOCKSYNC_SYNCHRONIZER_H_
