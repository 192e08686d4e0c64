#include "lib/clock/gaps.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace rp::clock {

GapsFit FitGaps(const std::vector<std::vector<SyncExit>>& exits, int64_t tolerance) {
  const size_t ranks = exits.size();
  GapsFit fit;
  fit.clocks.resize(ranks);
  fit.fitted.assign(ranks, ranks > 0);
  fit.instances.assign(ranks, 0);
  fit.residual.assign(ranks, 0);
  if (ranks == 0) return fit;
  fit.instances[0] = static_cast<int64_t>(exits[0].size());
  for (size_t r = 1; r < ranks; ++r) {
    fit.fitted[r] = false;
    const size_t n = std::min(exits[0].size(), exits[r].size());
    // Instances by pair of call sites.
    std::map<std::pair<int64_t, int64_t>, std::vector<OffsetMeasurement>> pairs;
    for (size_t k = 0; k < n; ++k) {
      pairs[{exits[0][k].site, exits[r][k].site}].push_back(
          OffsetMeasurement{exits[r][k].exit, exits[0][k].exit - exits[r][k].exit});
    }
    size_t best = 0;
    for (const auto& [sites, points] : pairs) {
      if (points.size() < 2 || points.size() <= best) continue;
      const LinearClock line = FitOffsets(points);
      int64_t residual = 0;
      for (const OffsetMeasurement& p : points) {
        residual = std::max(residual, std::abs(line.OffsetAt(p.local) - p.offset));
      }
      if (residual > tolerance) continue;
      best = points.size();
      fit.clocks[r] = line;
      fit.fitted[r] = true;
      fit.instances[r] = static_cast<int64_t>(points.size());
      fit.residual[r] = residual;
    }
  }
  return fit;
}

}  // namespace rp::clock
