#include "lib/clock/linear.h"

#include <algorithm>

namespace rp::clock {

LinearClock FitOffsets(std::vector<OffsetMeasurement> m) {
  LinearClock clock;
  if (m.empty()) return clock;
  std::sort(m.begin(), m.end(), [](const OffsetMeasurement& a, const OffsetMeasurement& b) { return a.local < b.local; });
  clock.reference = m.front().local;
  clock.offset = m.front().offset;
  if (m.back().local == m.front().local) {
    // All at one time: their mean (a second measurement is not dropped).
    double sum = 0;
    for (const OffsetMeasurement& p : m) sum += static_cast<double>(p.offset - clock.offset);
    clock.offset += static_cast<int64_t>(std::llround(sum / static_cast<double>(m.size())));
    return clock;
  }
  // Least squares of offset against local time, around the first point.
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(m.size());
  for (const OffsetMeasurement& p : m) {
    const double x = static_cast<double>(p.local - clock.reference);
    const double y = static_cast<double>(p.offset - clock.offset);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double denominator = n * sxx - sx * sx;
  if (denominator == 0) return clock;
  clock.drift = (n * sxy - sx * sy) / denominator;
  const double intercept = (sy - clock.drift * sx) / n;
  clock.offset += static_cast<int64_t>(std::llround(intercept));
  return clock;
}

}  // namespace rp::clock
