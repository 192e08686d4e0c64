#include "lib/clock/gaps.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace rp::clock {
namespace {

// Theil-Sen: the median of the pairwise slopes and the median intercept,
// a line that up to ~29% of outliers cannot drag (on at most 200 points).
LinearClock RobustLine(const std::vector<OffsetMeasurement>& all) {
  std::vector<OffsetMeasurement> points;
  const size_t step = std::max<size_t>(1, all.size() / 200);
  for (size_t i = 0; i < all.size(); i += step) points.push_back(all[i]);
  std::vector<double> slopes;
  for (size_t i = 0; i < points.size(); ++i) {
    for (size_t j = i + 1; j < points.size(); ++j) {
      if (points[j].local == points[i].local) continue;
      slopes.push_back(static_cast<double>(points[j].offset - points[i].offset) /
                       static_cast<double>(points[j].local - points[i].local));
    }
  }
  LinearClock line;
  line.reference = points.front().local;
  if (!slopes.empty()) {
    std::nth_element(slopes.begin(), slopes.begin() + slopes.size() / 2, slopes.end());
    line.drift = slopes[slopes.size() / 2];
  }
  std::vector<int64_t> intercepts;
  for (const OffsetMeasurement& p : points) {
    intercepts.push_back(p.offset - static_cast<int64_t>(std::llround(line.drift * (p.local - line.reference))));
  }
  std::nth_element(intercepts.begin(), intercepts.begin() + intercepts.size() / 2, intercepts.end());
  line.offset = intercepts[intercepts.size() / 2];
  return line;
}

}  // namespace

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
    for (const auto& [sites, all] : pairs) {
      if (all.size() < 2 || all.size() <= best) continue;
      std::vector<OffsetMeasurement> kept = all;
      LinearClock line = RobustLine(all);
      for (int round = 0; round < 3; ++round) {
        std::vector<OffsetMeasurement> inliers;
        for (const OffsetMeasurement& p : all) {
          if (std::abs(line.OffsetAt(p.local) - p.offset) <= tolerance) inliers.push_back(p);
        }
        if (inliers.size() < 2 || inliers.size() * 5 < all.size() * 4) {
          kept.clear();
          break;
        }
        if (inliers.size() == kept.size()) break;
        kept = std::move(inliers);
        line = FitOffsets(kept);
      }
      if (kept.size() < 2 || kept.size() <= best) continue;
      int64_t residual = 0;
      for (const OffsetMeasurement& p : kept) residual = std::max(residual, std::abs(line.OffsetAt(p.local) - p.offset));
      if (residual > tolerance) continue;
      best = kept.size();
      fit.clocks[r] = line;
      fit.fitted[r] = true;
      fit.instances[r] = static_cast<int64_t>(kept.size());
      fit.residual[r] = residual;
    }
  }
  return fit;
}

}  // namespace rp::clock
