#include "lib/diagnose/what_if.h"

#include <algorithm>
#include <cmath>

namespace rp::diagnose {

Status BalanceWhatIf::Longest(const graph::Graph& g, int64_t run_start, graph::LongestPath* lp,
                              const graph::Zeroing* zero) {
  if (across_ != nullptr) return across_->Longest(g, ends_, run_start, lp, zero);
  lp->Run(g, ends_, run_start, zero);
  return OkStatus();
}

Status BalanceWhatIf::Window(const graph::Graph& g, int64_t run_start) { return Longest(g, run_start, &base_, nullptr); }

Expected<std::vector<int64_t>> BalanceWhatIf::Closing(const graph::Graph& g, const graph::LongestPath& lp,
                                                      const std::vector<int32_t>& phases) {
  const window::Window& w = g.window();
  std::vector<int64_t> most(phases.size(), INT64_MIN);
  for (size_t i = 0; i < phases.size(); ++i) {
    for (const auto& events : w.by_rank) {
      for (auto it = events.rbegin(); it != events.rend(); ++it) {
        if (w.events[*it].phase != phases[i]) continue;
        most[i] = std::max(most[i], lp.length(graph::Exit(*it)));
        break;
      }
    }
  }
  if (across_ != nullptr) RP_RETURN_IF_ERROR(across_->Max(&most));
  return most;
}

Expected<std::vector<int64_t>> BalanceWhatIf::Savings(const graph::Graph& g, const profile::Attribution& attribution,
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
  // Each phase's ranks' parts, and their sum and count over the processes.
  std::vector<std::vector<RankPart>> parts(phases.size());
  std::vector<__int128> sums(2 * phases.size(), 0);  // (sum, ranks) a phase
  for (size_t i = 0; i < phases.size(); ++i) {
    for (const auto& events : w.by_rank) {
      RankPart part;
      for (uint32_t e : events) {
        const window::Event& ev = w.events[e];
        if (ev.phase != phases[i] || ev.category() == mpi::Category::kInit) continue;
        const int64_t ns = ns_before(e);
        part.events.emplace_back(e, ns);
        part.total += ns;
      }
      if (part.events.empty()) continue;
      sums[2 * i] += part.total;
      sums[2 * i + 1] += 1;
      parts[i].push_back(std::move(part));
    }
  }
  if (across_ != nullptr) RP_RETURN_IF_ERROR(across_->Sum(&sums));
  for (size_t i = 0; i < phases.size(); ++i) {
    if (sums[2 * i + 1] == 0) continue;
    const int64_t mean = static_cast<int64_t>(sums[2 * i] / sums[2 * i + 1]);
    // Each rank's change, spread over its computations by the function's
    // share in each; a rank that never ran it gets it before its closing
    // call.
    for (const RankPart& p : parts[i]) {
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
  RP_RETURN_IF_ERROR(Longest(g, run_start, &changed_, &zero));
  RP_ASSIGN_OR_RETURN(const std::vector<int64_t> base, Closing(g, base_, phases));
  RP_ASSIGN_OR_RETURN(const std::vector<int64_t> changed, Closing(g, changed_, phases));
  // Savings telescope: each phase's closing carries the earlier phases'.
  std::vector<int64_t> out;
  int64_t before = 0;
  for (size_t i = 0; i < phases.size(); ++i) {
    const int64_t saved = base[i] - changed[i];
    out.push_back(saved - before);
    before = saved;
  }
  return out;
}

}  // namespace rp::diagnose
