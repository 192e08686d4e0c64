// A rank's clock as a line through rank 0's: global = local + offset +
// drift * (local - reference). Fitted from the collector's ping-pong
// measurements (papers: mpi-graph §time synchronisation, diagnosis §4.1),
// or from the gaps between global synchronizations (gaps.h).
#ifndef RP_LIB_CLOCK_LINEAR_H_
#define RP_LIB_CLOCK_LINEAR_H_

#include <cmath>
#include <cstdint>
#include <vector>

namespace rp::clock {

// std::llround, inline (llround is a call into libm, made twice per event):
// x - trunc(x) is exact, so the halfway cases round away from zero as
// llround's do. |x| must be below 2^63.
[[gnu::always_inline]] inline int64_t RoundHalfAway(double x) {
  int64_t whole = static_cast<int64_t>(x);
  const double fraction = x - static_cast<double>(whole);
  if (fraction >= 0.5) ++whole;
  if (fraction <= -0.5) --whole;
  return whole;
}

struct LinearClock {
  int64_t reference = 0;  // local time at which `offset` holds
  int64_t offset = 0;     // ns to add to the local time at `reference`
  double drift = 0;       // change of the offset per ns of local time (1e-6 = 1 ppm)

  [[gnu::always_inline]] int64_t ToGlobal(int64_t local) const {  // twice per event
    if (drift == 0) return local + offset;
    return local + offset + RoundHalfAway(drift * static_cast<double>(local - reference));
  }
  // The offset at local time t.
  int64_t OffsetAt(int64_t local) const { return ToGlobal(local) - local; }
  bool identity() const { return offset == 0 && drift == 0; }
};

struct OffsetMeasurement {
  int64_t local;   // local time of the measurement
  int64_t offset;  // rank 0's time minus local time
};

// The line through the measurements: exact through two, least squares
// through more, constant for one, identity for none.
LinearClock FitOffsets(std::vector<OffsetMeasurement> measurements);

}  // namespace rp::clock

#endif  // RP_LIB_CLOCK_LINEAR_H_
