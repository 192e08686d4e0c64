// Clock offsets for traces without ping-pong measurements, from the gaps
// between the exits of global synchronizations (diagnosis paper §4.1 and
// §4.1.1): everyone leaves a global synchronization at about the same time,
// so for rank r and rank 0 the gap between their exits of the same instance
// is r's clock offset — provided that gap is constant (up to a linear drift)
// across the instances of one pair of call sites. Pairs of sites (one on
// rank 0, one on rank r) are tried, so programs running different code on
// different ranks (MPMD) are handled too; the pair with the most instances
// whose gaps lie on a line within the tolerance wins. A rank descheduled at
// an exit makes one gap an outlier: the line is refitted without the
// instances off by more than the tolerance, as long as 80% of them remain.
#ifndef RP_LIB_CLOCK_GAPS_H_
#define RP_LIB_CLOCK_GAPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/clock/linear.h"

namespace rp::clock {

struct SyncExit {
  int64_t site;  // call site, -1 unknown
  int64_t exit;  // local time the rank left the synchronization
};

struct GapsFit {
  std::vector<LinearClock> clocks;     // by rank; identity where nothing fit
  std::vector<bool> fitted;            // by rank
  std::vector<int64_t> instances;      // instances the fit used, by rank
  std::vector<int64_t> residual;       // ns, largest distance of a kept instance, by rank
};

// `exits[r][k]`: rank r's k-th global synchronization. `tolerance` bounds
// the residual gap (ns) for a pair of sites to count as constant.
GapsFit FitGaps(const std::vector<std::vector<SyncExit>>& exits, int64_t tolerance);

}  // namespace rp::clock

#endif  // RP_LIB_CLOCK_GAPS_H_
