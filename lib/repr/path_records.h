// A kept path as records: its `path` record (order, percentile, cost,
// share, ranks, tasks) followed by its summary's `path_interval` records.
// rp-repr writes them for each phase and for the run, and rp-record
// --online for the paths kept during the run, so both read alike.
#ifndef RP_LIB_REPR_PATH_RECORDS_H_
#define RP_LIB_REPR_PATH_RECORDS_H_

#include <cstdint>
#include <vector>

#include "lib/base/status.h"
#include "lib/repr/path_summary.h"
#include "lib/repr/select.h"
#include "lib/trace/writer.h"

namespace rp::repr {

struct PathPlace {
  int32_t phase = -1;    // -1: the whole run's path
  int64_t cluster = -1;  // -1: none
  int order = 0;         // 0 for the most costly kept
  double percentile = 100;
  int64_t cost = 0;
  int64_t length = 0;  // the phase's (or run's) time, for the share; 0: none
};

// An interval with rank kRestRank holds the rest of a path whose summary
// overflowed (lib/online's PathSet): not one rank, so not in `ranks`.
inline constexpr int32_t kRestRank = -1;

Status WritePath(const PathPlace& place, const std::vector<Interval>& summary, trace::Writer& out);

// The percentile a kept path stands for: with repr and all k kept, the
// nominal one (select.h); otherwise (fewer candidates, or topk) its place
// `position` among the `total` final candidates.
double Percentile(Select select, int k, int j, int position, int total, int kept);

}  // namespace rp::repr

#endif  // RP_LIB_REPR_PATH_RECORDS_H_
