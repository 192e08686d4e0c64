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

class Timeline {
 public:
  static constexpr size_t kMostSpans = size_t{1} << 18;
  static constexpr int kBins = 240;
  static constexpr int kLanes = 64;

  // `ranks`: the run's (the spans' budget is shared among them).
  explicit Timeline(int64_t ranks = 1)
      : share_(std::max<size_t>(1, kMostSpans / static_cast<size_t>(std::max<int64_t>(1, ranks)))) {}

  // A call of `rank` in `phase` (cluster -1: none known): computation from
  // `start` to its entry t0, waiting for `wait` after it, then the call to
  // t1.
  void Call(int32_t phase, int64_t cluster, int32_t rank, int64_t start, int64_t t0, int64_t wait, int64_t t1);
  // A step of the critical path (rp-cpath's cp_segment) in `phase`.
  void Step(int32_t phase, int32_t rank, int64_t t0, int64_t t1);

  // The timeline records of `cluster`'s phase (a phase without a cluster
  // is its own; kNone: the run's only phase), if one was kept.
  Status Write(int64_t cluster, trace::Writer& out) const;

  // What processes holding disjoint ranks kept, packed by each and merged
  // into one (rp-diagnose-mpi): a cluster's spans of the phase the
  // processes drew (where they saw different phases of it, the latest
  // drawn), its path steps in time order.
  void Pack(dist::Packer* out) const;
  Status Merge(dist::Unpacker* in);

 private:
  enum State : uint8_t { kCompute, kMpi, kWait };
  struct Span {
    int32_t rank;
    State state;
    int64_t t0, t1;
  };
  struct Kept {
    int32_t phase = 0;   // the phase drawn
    int32_t latest = 0;  // the latest phase of the cluster seen
    int64_t seen = 0;    // phases of the cluster seen
    std::vector<Span> spans;
    std::vector<Span> steps;
  };
  void Add(Kept& k, int32_t rank, State state, int64_t t0, int64_t t1);

  std::map<int64_t, Kept> kept_;            // by cluster
  std::map<int32_t, int64_t> cluster_of_;  // phases kept (and replaced) -> cluster
  size_t share_;                            // spans a rank may keep
  std::vector<uint32_t> spans_;             // by rank: spans kept
};

}  // namespace rp::diagnose

#endif  // RP_LIB_DIAGNOSE_TIMELINE_H_
