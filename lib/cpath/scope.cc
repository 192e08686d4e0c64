#include "lib/cpath/scope.h"

#include <algorithm>

namespace rp::cpath {

void Scope::AddSegment(const graph::Segment& s) {
  length += s.length;
  ++segments;
  by_kind[static_cast<int>(s.kind)] += s.length == 0 ? s.t1 - s.t0 : s.length;
  last_rank = s.rank;
  Rank(s.rank).cp += s.length;
  SiteStats& site = sites[s.site];
  if (site.fn < 0) site.fn = s.fn;
  if (s.kind == graph::SegmentKind::kCompute) site.cp_compute += s.length;
  else site.cp_mpi += s.length;
}

void Scope::AddCall(const window::Event& e, int64_t compute_before, const graph::CallTimes& t) {
  RankStats& rank = Rank(e.rank);
  const bool outside = e.bounds_application();
  if (outside) {
    const bool is_init = e.category() == mpi::Category::kInit;
    int64_t& longest = is_init ? init : finalize;
    longest = std::max(longest, e.t1 - e.t0 - e.rp);
    rank.rp_setup += e.rp;
    if (is_init) return;  // before the application's time: nothing of it counts
  }
  start = std::min(start, e.t0 - compute_before);
  end = std::max(end, outside ? e.t0 : e.t1);  // the application ends as MPI_Finalize is called
  SiteStats& site = sites[e.site];
  if (site.fn < 0) site.fn = e.fn;
  site.time_compute += compute_before;
  ++site.calls;
  rank.compute += compute_before;
  if (outside) return;
  site.time_mpi += e.t1 - e.t0 - e.rp;
  rp_all += e.rp;
  site.wait_before += t.wait_before;
  site.wait_after += t.wait_after;
  site.execution += t.execution;
  rank.wait_before += t.wait_before;
  rank.wait_after += t.wait_after;
  rank.execution += t.execution;
}

RankStats Scope::program() const {
  RankStats p;
  for (const RankStats& r : ranks) {
    p.compute += r.compute, p.wait_before += r.wait_before;
    p.wait_after += r.wait_after, p.execution += r.execution;
  }
  return p;
}

int64_t Scope::rp_setup() const {
  int64_t longest = 0;
  for (const RankStats& r : ranks) longest = std::max(longest, r.rp_setup);
  return longest;
}

int64_t Scope::total_time() const {
  int64_t total = 0;
  for (const auto& [id, s] : sites) total += s.time();
  return total;
}

std::vector<int32_t> Scope::ProfileOrder() const {
  std::vector<int32_t> order;
  for (const auto& [site, s] : sites) order.push_back(site);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return sites.at(a).cp() > sites.at(b).cp(); });
  return order;
}

}  // namespace rp::cpath
