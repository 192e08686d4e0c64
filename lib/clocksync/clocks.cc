#include "lib/clocksync/clocks.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace rp::clocksync {
namespace {

using clock::LinearClock;

// Each clock group's ping-pong offset measurements (collector clock
// records), by the group's lowest rank.
std::vector<std::vector<clock::OffsetMeasurement>> PingpongMeasurements(const window::Dictionary& dict,
                                                                       const std::vector<int64_t>& group_of) {
  std::vector<std::vector<clock::OffsetMeasurement>> pingpong(group_of.size());
  const int64_t ranks = static_cast<int64_t>(group_of.size());
  for (const trace::ClockRecord& c : dict.clocks) {
    if (c.method != "pingpong" || c.rank < 0 || c.rank >= ranks || !c.has_t() || !c.has_offset()) continue;
    pingpong[group_of[c.rank]].push_back({c.t, c.offset});
  }
  return pingpong;
}

// The method that applies to this stream when `requested` is kAuto, or
// when it is one already on one clock.
Method Resolve(const window::Dictionary& dict, Method requested, bool have_pingpong) {
  // A stream rp-clocksync wrote already: its clock records hold the local
  // times the mapping was made for, not these.
  const bool global = dict.header.has_clock() && dict.header.clock == "global";
  if (global && requested == Method::kAuto) {
    spdlog::info("the trace is on one clock already (header \"clock\":\"global\"): times are not mapped again, "
                 "only violations repaired");
    return Method::kIdentity;
  }
  if (global && requested != Method::kIdentity) {
    spdlog::warn("the trace is on one clock already (header \"clock\":\"global\"): --method {} maps it again",
                 MethodName(requested));
  }
  if (requested != Method::kAuto) return requested;
  if (have_pingpong) return Method::kPingpong;
  spdlog::warn("the trace has no clock measurements (rp-record writes them at MPI_Init and MPI_Finalize): "
               "times are left as they are; --method gaps aligns the ranks on their global synchronizations");
  return Method::kIdentity;
}

// A clock that runs 1% off rank 0's is no quartz clock: the measurements
// are too close together (noise over a short run) or wrong. Its offset is
// kept, without drift, which could map times anywhere.
void DropSteepDrifts(Clocks& clocks) {
  constexpr double kMostDrift = 0.01;
  int64_t steep = 0, first_steep = -1;
  for (size_t r = 0; r < clocks.by_rank.size(); ++r) {
    LinearClock& c = clocks.by_rank[r];
    if (std::abs(c.drift) <= kMostDrift) continue;
    if (steep++ == 0) first_steep = static_cast<int64_t>(r);
    spdlog::debug("rank {}: drift {:.0f} ppm dropped", r, c.drift * 1e6);
    c.drift = 0;
  }
  if (steep > 0) {
    spdlog::warn("{} rank(s) (first: rank {}) have clock measurements implying a drift beyond {:.0f} ppm: "
                 "only their offset is used", steep, first_steep, kMostDrift * 1e6);
  }
}

}  // namespace

std::string_view MethodName(Method method) {
  switch (method) {
    case Method::kAuto: return "auto";
    case Method::kPingpong: return "pingpong";
    case Method::kGaps: return "gaps";
    case Method::kIdentity: return "identity";
  }
  return "?";
}

int64_t CountRanks(const window::Dictionary& dict) {
  // The window reader has checked rank and comm records against the run's size.
  int64_t ranks = std::max<int64_t>(dict.ranks, 1);
  for (const trace::RankRecord& r : dict.rank_records) ranks = std::max(ranks, r.rank + 1);
  for (const auto& [id, members] : dict.comm_ranks) {
    for (int64_t member : members) ranks = std::max(ranks, member + 1);
  }
  // Clock records name ranks within the header's count (or, without one,
  // the window reader's bound for rank records).
  const int64_t clock_rank_limit = dict.ranks > 0 ? dict.ranks : window::kRanksWithoutHeader;
  int64_t bad_clock_ranks = 0;
  for (const trace::ClockRecord& c : dict.clocks) {
    if (c.rank >= 0 && c.rank < clock_rank_limit) ranks = std::max(ranks, c.rank + 1);
    else ++bad_clock_ranks;
  }
  if (bad_clock_ranks > 0) {
    spdlog::warn("{} clock record(s) name a rank outside 0..{}: not used", bad_clock_ranks, clock_rank_limit - 1);
  }
  return ranks;
}

std::vector<int64_t> ClockGroups(const window::Dictionary& dict, int64_t ranks) {
  std::vector<int64_t> group_of(ranks);
  for (int64_t r = 0; r < ranks; ++r) group_of[r] = r;
  std::map<std::pair<std::string, std::string>, int64_t> lowest;  // (host, boot) -> rank
  for (const trace::RankRecord& r : dict.rank_records) {
    if (r.rank < 0 || r.rank >= ranks || !r.has_host() || !r.has_boot() || r.boot.empty()) continue;
    auto [it, added] = lowest.emplace(std::make_pair(r.host, r.boot), r.rank);
    if (!added) it->second = std::min(it->second, r.rank);
  }
  for (const trace::RankRecord& r : dict.rank_records) {
    if (r.rank < 0 || r.rank >= ranks || !r.has_host() || !r.has_boot() || r.boot.empty()) continue;
    group_of[r.rank] = lowest.at({r.host, r.boot});
  }
  return group_of;
}

Expected<Clocks> ChooseClocks(const window::Dictionary& dict, int64_t ranks, Method requested,
                              const clock::GapsFit& fit, int64_t gaps_tolerance) {
  Clocks clocks;
  clocks.by_rank.resize(ranks);
  clocks.method_of.assign(ranks, "identity");
  clocks.group_of = ClockGroups(dict, ranks);
  const std::vector<int64_t>& group_of = clocks.group_of;
  const auto pingpong = PingpongMeasurements(dict, group_of);
  const bool have_pingpong = std::any_of(pingpong.begin(), pingpong.end(), [](const auto& m) { return !m.empty(); });
  clocks.method = Resolve(dict, requested, have_pingpong);
  if (clocks.method == Method::kPingpong) {
    if (!have_pingpong) return InputError("--method pingpong: the trace has no ping-pong clock records");
    int64_t without = 0;
    for (int64_t r = 0; r < ranks; ++r) {
      const int64_t leader = group_of[r];
      // Rank 0's clock is the reference: the ranks that read it need no
      // mapping, whatever their measurements' noise says.
      if (group_of[0] == leader) continue;
      if (pingpong[leader].empty()) {
        ++without;
        continue;
      }
      clocks.by_rank[r] = leader == r ? clock::FitOffsets(pingpong[r]) : clocks.by_rank[leader];
      clocks.method_of[r] = "linear";
    }
    if (without > 0) spdlog::warn("{} rank(s) have no clock measurement: their times are left as they are", without);
  } else if (clocks.method == Method::kGaps) {
    auto fitted = [&](int64_t r) { return r < static_cast<int64_t>(fit.fitted.size()) && fit.fitted[r]; };
    // Each group's lowest fitted rank speaks for the group; rank 0's group
    // needs no mapping.
    std::map<int64_t, int64_t> speaker;  // group -> its lowest fitted rank
    for (int64_t r = ranks - 1; r >= 0; --r) {
      if (fitted(r)) speaker[group_of[r]] = r;
    }
    int64_t unfitted = 0;
    for (int64_t r = 0; r < ranks; ++r) {
      if (group_of[r] == group_of[0]) {
        clocks.method_of[r] = "gaps";
        continue;
      }
      auto it = speaker.find(group_of[r]);
      if (it == speaker.end()) {
        ++unfitted;
        continue;
      }
      clocks.by_rank[r] = fit.clocks[it->second];
      clocks.method_of[r] = "gaps";
    }
    if (unfitted > 0) {
      spdlog::warn("--method gaps: {} rank(s) have no pair of global synchronization sites whose exit gaps to "
                   "rank 0 stay within {}; their times are left as they are",
                   unfitted, Ns(gaps_tolerance));
    }
  }
  DropSteepDrifts(clocks);
  return clocks;
}

std::string RankList(const std::vector<int64_t>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(ranks[i]) + (j > i ? "-" + std::to_string(ranks[j]) : "");
    i = j + 1;
  }
  return out;
}

std::string Ns(int64_t ns) {
  char buf[32];
  if (std::llabs(ns) >= 1'000'000) std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
  else if (std::llabs(ns) >= 1'000) std::snprintf(buf, sizeof buf, "%.3f us", ns / 1e3);
  else std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
  return buf;
}

}  // namespace rp::clocksync
