// A timeline of one representative phase per phase cluster, for the
// report's picture: each rank's computation, MPI calls and waiting, and
// the critical path through the phase.
//
// The phase drawn is the second of its cluster (the first often warms up
// caches and connections), or the first while there is no second. Its
// spans are kept as calls are read (at most kMostSpans over all clusters,
// an equal share for each rank, taken in the rank's own order: a larger
// phase is drawn as far as each rank's share goes, alike however the
// ranks are read, one process or many), the path's steps as they are
// decided; Write draws the chosen cluster's phase into lanes of equal time
// bins, grouping ranks into at most kLanes lanes, so that a run of
// thousands of ranks gives a picture of the same size as one of four.
#ifndef RP_LIB_DIAGNOSE_TIMELINE_H_
#define RP_LIB_DIAGNOSE_TIMELINE_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "lib/base/status.h"
#include "lib/dist/comm.h"
#include "lib/trace/writer.h"

namespace rp::diagnose {

// A path record's place in its stream, the same however the stream is
// split (trace::InputSet's merge puts records of no rank right after the
// event line before them): that event line (its trace::Reader::OrderKey)
// and how many path records came since it, this one included.
struct StreamPlace {
  int64_t phase = INT64_MIN, time = INT64_MIN, rank = INT64_MIN, after = 0;
  auto operator<=>(const StreamPlace&) const = default;
};

class Timeline {
 public:
  static constexpr size_t kMostSpans = size_t{1} << 18;
  static constexpr int kBins = 240;
  static constexpr int kLanes = 64;

  // `ranks`: the run's (the spans' budget is shared among them).
  explicit Timeline(int64_t ranks = 1)
      : share_(std::max<size_t>(1, kMostSpans / static_cast<size_t>(std::max<int64_t>(1, ranks)))) {}

  // The phases a window has calls of (every rank's, ascending), before its
  // calls: each cluster's phase to draw, the same however the ranks are
  // read (cluster -1: none known).
  void See(int32_t phase, int64_t cluster);
  // A call of `rank` in `phase`: computation from `start` to its entry t0,
  // waiting for `wait` after it, then the call to t1.
  void Call(int32_t phase, int64_t cluster, int32_t rank, int64_t start, int64_t t0, int64_t wait, int64_t t1);
  // A step of the critical path (rp-cpath's cp_segment) in `phase`, and
  // where its record is in the stream (steps merged from processes are put
  // back in that order, the path's).
  void Step(int32_t phase, int32_t rank, int64_t t0, int64_t t1, const StreamPlace& place);

  // The timeline records of `cluster`'s phase (a phase without a cluster
  // is its own; kNone: the run's only phase), if one was kept.
  Status Write(int64_t cluster, trace::Writer& out) const;

  // What processes holding disjoint ranks kept, packed by each and merged
  // into one (rp-diagnose-mpi): a cluster's spans of the phase every
  // process draws, its path steps in the path's order.
  void Pack(dist::Packer* out) const;
  Status Merge(dist::Unpacker* in);

 private:
  enum State : uint8_t { kCompute, kMpi, kWait };
  struct Span {
    int32_t rank;
    State state;
    int64_t t0, t1;
  };
  struct PathStep {
    int32_t rank;
    int64_t t0, t1;
    StreamPlace place;  // its (first) record's
  };
  static int64_t KeyOf(int32_t phase, int64_t cluster);
  static void Append(std::vector<PathStep>* steps, const PathStep& s);
  struct Kept {
    int32_t phase = 0;   // the phase drawn
    int32_t latest = 0;  // the latest phase of the cluster seen
    int64_t seen = 0;    // phases of the cluster seen
    std::vector<Span> spans;
    std::vector<PathStep> steps;
  };
  void Add(Kept& k, int32_t rank, State state, int64_t t0, int64_t t1);

  std::map<int64_t, Kept> kept_;            // by cluster
  std::map<int32_t, int64_t> cluster_of_;  // phases kept (and replaced) -> cluster
  size_t share_;                            // spans a rank may keep
  std::vector<uint32_t> spans_;             // by rank: spans kept
};

}  // namespace rp::diagnose

#endif  // RP_LIB_DIAGNOSE_TIMELINE_H_
