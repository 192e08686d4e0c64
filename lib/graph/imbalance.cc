#include "lib/graph/imbalance.h"

#include <algorithm>

namespace rp::graph {

std::vector<CallTimes> SplitCalls(const Graph& g, const match::Matching& matching) {
  const window::Window& w = g.window();
  std::vector<CallTimes> times(w.events.size());
  // The collector's own work in a call is neither waiting nor execution.
  for (uint32_t e = 0; e < w.events.size(); ++e) {
    const window::Event& ev = w.events[e];
    times[e] = CallTimes{g.wait(e), 0, std::max<int64_t>(ev.t1 - ev.t0 - g.wait(e) - ev.rp, 0)};
  }
  for (const match::Collective& c : matching.collectives) {
    if (c.kind != mpi::Collective::kAll || mpi::kFunctions[c.fn].nonblocking) {
      continue;
    }
    // A member's MPI part ends before the collector's own work (rp).
    auto mpi_end = [&](uint32_t e) { return w.events[e].t1 - w.events[e].rp; };
    int64_t start_max = INT64_MIN, end_min = INT64_MAX;
    for (size_t i = 0; i < c.entries.size(); ++i) {
      start_max = std::max(start_max, w.events[c.entries[i]].t0);
      end_min = std::min(end_min, mpi_end(c.entries[i]));
    }
    for (uint32_t e : c.entries) {
      const window::Event& ev = w.events[e];
      const int64_t duration = mpi_end(e) - ev.t0;
      CallTimes& t = times[e];
      t.wait_before = std::clamp<int64_t>(start_max - ev.t0, 0, duration);
      t.wait_after = std::clamp<int64_t>(mpi_end(e) - std::max(end_min, start_max), 0, duration - t.wait_before);
      t.execution = duration - t.wait_before - t.wait_after;
    }
  }
  return times;
}

}  // namespace rp::graph
