#include "lib/diagnose/what_if.h"

#include <algorithm>
#include <cmath>

namespace rp::diagnose {

void BalanceWhatIf::Window(const graph::Graph& g, int64_t run_start) { base_.Run(g, ends_, run_start); }

int64_t BalanceWhatIf::Closing(const graph::Graph& g, const graph::LongestPath& lp, int32_t phase) {
  const window::Window& w = g.window();
  int64_t most = INT64_MIN;
  for (const auto& events : w.by_rank) {
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
      if (w.events[*it].phase != phase) continue;
      most = std::max(most, lp.length(graph::Exit(*it)));
      break;
    }
  }
  return most;
}

std::vector<int64_t> BalanceWhatIf::Savings(const graph::Graph& g, const profile::Attribution& attribution,
                                            const Share& share, const std::vector<int32_t>& phases,
                                            int32_t function, int64_t run_start) {
  const window::Window& w = g.window();
  cut_.assign(w.events.size(), 0);
  // The function's ns in the computation before each call.
  auto ns_before = [&](uint32_t e) {
    const profile::Attribution::Computation c = attribution.Before(e);
    const window::Event& ev = w.events[e];
    return std::llround(static_cast<double>(c.t1 - c.t0) * share(ev.rank, ev.site, function));
  };
  struct RankPart {
    std::vector<std::pair<uint32_t, int64_t>> events;  // (event, the function's ns before it)
    int64_t total = 0;
  };
  for (int32_t phase : phases) {
    std::vector<RankPart> parts;
    for (const auto& events : w.by_rank) {
      RankPart part;
      for (uint32_t e : events) {
        const window::Event& ev = w.events[e];
        if (ev.phase != phase || ev.category() == mpi::Category::kInit) continue;
        const int64_t ns = ns_before(e);
        part.events.emplace_back(e, ns);
        part.total += ns;
      }
      if (!part.events.empty()) parts.push_back(std::move(part));
    }
    if (parts.empty()) continue;
    __int128 sum = 0;
    for (const RankPart& p : parts) sum += p.total;
    const int64_t mean = static_cast<int64_t>(sum / static_cast<__int128>(parts.size()));
    // Each rank's change, spread over its computations by the function's
    // share in each; a rank that never ran it gets it before its closing
    // call.
    for (const RankPart& p : parts) {
      const int64_t change = p.total - mean;  // > 0: shorter
      if (p.total == 0) {
        cut_[p.events.back().first] += change;
        continue;
      }
      profile::Apportion apportion(change, p.total);
      for (const auto& [e, ns] : p.events) cut_[e] += apportion.Next(ns);
    }
  }
  const graph::Zeroing zero{window::kNone, true, cut_.data()};
  changed_.Run(g, ends_, run_start, &zero);
  // Savings telescope: each phase's closing carries the earlier phases'.
  std::vector<int64_t> out;
  int64_t before = 0;
  for (int32_t phase : phases) {
    const int64_t saved = Closing(g, base_, phase) - Closing(g, changed_, phase);
    out.push_back(saved - before);
    before = saved;
  }
  return out;
}

}  // namespace rp::diagnose
