// A path's tasks as the representative paths paper's path summary (§5,
// Figure 4(c), rp_updatePathSum): consecutive tasks on one rank are one
// interval, rank r: [first, last] by the calls that end them, so a path
// that stays on a rank costs one entry. Both rp-repr and a collector
// keeping paths during the run can use it.
#ifndef RP_LIB_REPR_PATH_SUMMARY_H_
#define RP_LIB_REPR_PATH_SUMMARY_H_

#include <cstdint>
#include <vector>

namespace rp::repr {

struct Interval {
  int32_t rank = 0;
  int64_t first = 0, last = 0;  // the seq of the calls ending its first and last task
  int64_t t0 = 0, t1 = 0;       // from its first task's start to its last task's end
  int64_t cost = 0;             // what its tasks add to the path's cost
  int64_t tasks = 0;
};

// Extends `i` by `next`, the tasks right after it on its rank.
inline void Join(Interval* i, const Interval& next) {
  i->last = next.last;
  i->t1 = next.t1;
  i->cost += next.cost;
  i->tasks += next.tasks;
}

// Appends `next` (a task, or an interval), merging it into the last
// interval when both are on one rank.
inline void Push(std::vector<Interval>* summary, const Interval& next) {
  if (!summary->empty() && summary->back().rank == next.rank) return Join(&summary->back(), next);
  summary->push_back(next);
}

}  // namespace rp::repr

#endif  // RP_LIB_REPR_PATH_SUMMARY_H_
