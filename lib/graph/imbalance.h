// Where each call's time went (mpi-graph paper §5.2): waiting for others
// before it could proceed, waiting after its own part was done, and
// execution.
//
// Blocking all-to-all collectives use the paper's formulas over the
// instance's members:
//   wait_before = t_start_max - t_start[i]
//   wait_after  = t_end[i] - t_end_min
//   execution   = t_end_min - t_start_max
// clamped so that the three add up to the call's duration, less the
// collector's own work in it (Event::rp) (a collective
// without an implicit barrier can end before the last member enters; it
// then waited for nobody after). Every other call's wait_before is its
// wait in the graph (for a late partner: sender, receiver, root, last
// member), with no wait_after.
#ifndef RP_LIB_GRAPH_IMBALANCE_H_
#define RP_LIB_GRAPH_IMBALANCE_H_

#include <cstdint>
#include <vector>

#include "lib/graph/graph.h"

namespace rp::graph {

struct CallTimes {
  int64_t wait_before = 0, wait_after = 0, execution = 0;
};

// One entry per event of the graph's window.
std::vector<CallTimes> SplitCalls(const Graph& g, const match::Matching& matching);

}  // namespace rp::graph

#endif  // RP_LIB_GRAPH_IMBALANCE_H_
