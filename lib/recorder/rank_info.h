// What rp-record's merge knows of one rank's collector file after its
// first pass (merge.cc), for the dictionaries and the event pass
// (events.cc): communicators, clock measurements, call-site addresses,
// the tick-to-nanosecond map of its times, and whether it is complete.
#ifndef RP_LIB_RECORDER_RANK_INFO_H_
#define RP_LIB_RECORDER_RANK_INFO_H_

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "collector/raw_format.h"

namespace rp::recorder {

struct RawComm {
  int32_t local_id;
  int32_t parent;
  int32_t kind;
  std::vector<int32_t> members, remote;
};

// Converts a rank's event times to nanoseconds: identity for ranks that
// recorded nanoseconds; for time-stamp counter ticks, piecewise linear
// through the (ticks, ns) pairs the collector wrote with its buffers.
class TimeMap {
 public:
  void SetTicks(bool ticks) { ticks_ = ticks; }
  void Add(int64_t ticks, int64_t ns) { points_.emplace_back(ticks, ns); }
  void Finish() {
    std::sort(points_.begin(), points_.end());
    points_.erase(std::unique(points_.begin(), points_.end(),
                              [](const auto& a, const auto& b) { return a.first == b.first; }),
                  points_.end());
  }
  bool usable() const { return !ticks_ || points_.size() >= 2; }
  bool ticks() const { return ticks_; }
  // Ns per tick over the whole calibration, 0 when unknown.
  double Rate() const {
    if (points_.size() < 2) return 0;
    return static_cast<double>(points_.back().second - points_.front().second) /
           static_cast<double>(points_.back().first - points_.front().first);
  }
  // A rank with a single pair borrows the rate of another rank on its host,
  // which reads the same counter.
  void Borrow(double rate) {
    if (points_.size() != 1 || rate <= 0) return;
    const auto [t, n] = points_.front();
    points_.emplace_back(t + 1'000'000'000, n + static_cast<int64_t>(std::llround(1e9 * rate)));
  }
  // How far this map's pairs lie from `other`, the median of their
  // distances in ns: a pair read while the rank was descheduled between
  // its two clock reads strays far, but only that one.
  int64_t MedianDistance(const TimeMap& other) const {
    std::vector<int64_t> distances;
    for (const auto& [t, n] : points_) distances.push_back(std::llabs(other.ToNs(t) - n));
    if (distances.empty()) return 0;
    std::nth_element(distances.begin(), distances.begin() + distances.size() / 2, distances.end());
    return distances[distances.size() / 2];
  }
  // A duration in timer units, in ns at the average rate.
  int64_t Duration(int64_t t) const {
    return ticks_ && points_.size() >= 2 ? std::llround(static_cast<double>(t) * Rate()) : t;
  }
  int64_t ToNs(int64_t t) const {
    if (!ticks_ || points_.size() < 2) return t;
    auto after = std::upper_bound(points_.begin(), points_.end(), std::make_pair(t, INT64_MAX));
    if (after == points_.begin()) ++after;
    if (after == points_.end()) --after;
    const auto& [t1, n1] = *after;
    const auto& [t0, n0] = *(after - 1);
    const double slope = static_cast<double>(n1 - n0) / static_cast<double>(t1 - t0);
    return n0 + static_cast<int64_t>(std::llround(static_cast<double>(t - t0) * slope));
  }

 private:
  bool ticks_ = false;
  std::vector<std::pair<int64_t, int64_t>> points_;
};

struct RankInfo {
  int rank = -1;
  std::string path;
  raw::FileHeader header{};
  std::vector<RawComm> comms;
  std::vector<raw::ClockRecord> clocks;
  std::unordered_set<uint64_t> addresses;
  // address -> first site id and number of inline levels
  std::unordered_map<uint64_t, std::pair<int64_t, int64_t>> site_of;
  std::vector<int64_t> comm_global;               // local comm id -> global id
  std::string cmdline;
  std::string online;  // rank 0's online answer (a raw kOnline record), if any
  TimeMap time;
  bool has_end = false;
  raw::EndRecord end{};
  int64_t events = 0;
  int64_t samples = 0;
  int64_t last_time = INT64_MIN;
  bool time_ordered = true;  // events and samples in time order in the file
  std::string problem;

  std::string host() const { return {header.host, strnlen(header.host, sizeof header.host)}; }
  std::string boot_id() const { return {header.boot_id, strnlen(header.boot_id, sizeof header.boot_id)}; }
};

}  // namespace rp::recorder

#endif  // RP_LIB_RECORDER_RANK_INFO_H_
