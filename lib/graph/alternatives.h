// Two other ways to a critical path, to check and to compare the exact
// longest path with.
//
// BackwardReplay (the Scalasca-style walk): start at the call that ended
// last; on each call, if it waited for a partner that arrived later than it
// (a late sender, a late receiver, the last to enter a collective), jump to
// that partner's entry; otherwise step back on the rank through the call
// and the computation before it. Needs every window at once: for tests and
// small traces.
//
// TopologicalHeuristic (mpi-graph paper §4.5, "topological sorting"): sort
// the program edges (computation between calls) by start time, group the
// ones that overlap, keep the longest of each group, and connect them; the
// time between two kept edges is communication. No message edges at all,
// so clocks and matching cannot break it, but it only sees computation.
#ifndef RP_LIB_GRAPH_ALTERNATIVES_H_
#define RP_LIB_GRAPH_ALTERNATIVES_H_

#include <cstdint>
#include <vector>

#include "lib/graph/path.h"

namespace rp::graph {

// The path ending at the exit of the latest call of the last window with
// calls, in time order. `graphs` are all windows of the run, in order.
std::vector<Segment> BackwardReplay(const std::vector<const Graph*>& graphs, int64_t run_start);

class TopologicalHeuristic {
 public:
  explicit TopologicalHeuristic(int64_t run_start) : run_start_(run_start), last_end_(run_start) {}
  // Appends the path through window `g` (groups never span a clean
  // global synchronization, so windows are independent).
  void AddWindow(const Graph& g, std::vector<Segment>* out);
  // Appends the communication after the last kept edge, to the run's end.
  void Finish(std::vector<Segment>* out);

 private:
  std::vector<int64_t> rank_time_;  // each rank's last exit so far
  int64_t run_start_;
  int64_t last_end_;                // end of the last kept edge
  int32_t last_rank_ = window::kNone;
  Segment final_call_;              // the call that ended last so far
  bool any_call_ = false;
};

}  // namespace rp::graph

#endif  // RP_LIB_GRAPH_ALTERNATIVES_H_
