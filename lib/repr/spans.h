// Where a phase ends and the time it spans (rp-repr's and rp-repr-mpi's).
// Each phase's time and the run's, as far as the windows read so far show
// it: from the earliest of its first tasks' starts to its last call's end
// (its entry for MPI_Finalize), the span its paths can cover and their
// share is of. Over a window split between processes each notes its own
// ranks; the spans of a phase then add up (Span::Add: the least start,
// the greatest end).
//
//   Spans spans;
//   spans.Note(w, run_carried, run_start, phased);   // each window
//   Span s = spans.Take(phase);                      // as it ends
//   LastExits(&g, phase, &nodes, &here);             // where, in its last window
#ifndef RP_LIB_REPR_SPANS_H_
#define RP_LIB_REPR_SPANS_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "lib/repr/path_sets.h"
#include "lib/window/window.h"

namespace rp::repr {

struct Span {
  int64_t start = INT64_MAX, end = INT64_MIN;
  void Add(const Span& o) { start = std::min(start, o.start), end = std::max(end, o.end); }
};

// Where `phase` (window::kNone: the run) ends in window graph `g` (null
// when none of its calls is there): each rank's last exit of it, into
// *nodes, and which ranks have one (*here, as far as it is long).
void LastExits(const graph::Graph* g, int32_t phase, std::vector<uint32_t>* nodes, std::vector<bool>* here);

class Spans {
 public:
  // The window's calls (of the ranks it holds); `carried`: the whole
  // run's path sets where each rank's last window ended.
  void Note(const window::Window& w, const std::vector<RankSet>& carried, int64_t run_start, bool phased);
  // A phase's span so far, forgotten here.
  Span Take(int32_t phase);
  // The run's, starting at `run_start`.
  Span run(int64_t run_start) const { return {run_start, run_end_}; }

 private:
  std::map<int32_t, Span> phases_;  // until taken
  int64_t run_end_ = INT64_MIN;
};

}  // namespace rp::repr

#endif  // RP_LIB_REPR_SPANS_H_
