#include "lib/cpath/scope.h"

#include <algorithm>

namespace rp::cpath {

void Scope::AddSegment(const graph::Segment& s) {
  length += s.length;
  ++segments;
  by_kind[static_cast<int>(s.kind)] += s.length == 0 ? s.t1 - s.t0 : s.length;
  if (s.t0 >= last_time) last_rank = s.rank, last_time = s.t0;  // the path's order, however they are added
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

void Problems::Count(const graph::GraphProblems& g, const match::Matching& m) {
  graph.Add(g);
  unmatched_sends += m.unmatched_sends;
  unmatched_receives += m.unmatched_receives;
  unresolved_receives += m.unresolved_receives;
  for (const std::string& e : m.examples) {
    if (examples.size() < 3) examples.push_back(e);
  }
}

int64_t AddCalls(const graph::Graph& g, const std::vector<graph::CallTimes>& times, int64_t run_start,
                 std::vector<int64_t>* last_exit, Scope* run, std::map<int64_t, Scope>* phases) {
  const window::Window& w = g.window();
  int64_t max_phase = window::kNone;
  if (last_exit->size() < w.by_rank.size()) last_exit->resize(w.by_rank.size(), INT64_MIN);
  for (size_t rank = 0; rank < w.by_rank.size(); ++rank) {
    for (uint32_t e : w.by_rank[rank]) {
      const window::Event& ev = w.events[e];
      int64_t compute = g.compute(e);
      if (g.previous(graph::Entry(e)) == graph::kNoNode) {
        const int64_t before = (*last_exit)[rank];
        compute = std::max<int64_t>(ev.t0 - (before != INT64_MIN ? before : run_start), 0);
      }
      run->AddCall(ev, compute, times[e]);
      if (ev.phase != window::kNone && phases != nullptr) {
        (*phases)[ev.phase].AddCall(ev, compute, times[e]);
        max_phase = std::max<int64_t>(max_phase == window::kNone ? ev.phase : max_phase, ev.phase);
      }
    }
    if (!w.by_rank[rank].empty()) (*last_exit)[rank] = w.events[w.by_rank[rank].back()].t1;
  }
  return max_phase;
}

void Scope::Add(const Scope& o) {
  start = std::min(start, o.start);
  end = std::max(end, o.end);
  length += o.length;
  segments += o.segments;
  for (int k = 0; k < graph::kSegmentKinds; ++k) by_kind[k] += o.by_kind[k];
  if (o.last_time > last_time) last_time = o.last_time, last_rank = o.last_rank;
  rp_all += o.rp_all;
  init = std::max(init, o.init);
  finalize = std::max(finalize, o.finalize);
  for (const auto& [id, theirs] : o.sites) {
    SiteStats& s = sites[id];
    if (s.fn < 0) s.fn = theirs.fn;
    s.cp_compute += theirs.cp_compute, s.cp_mpi += theirs.cp_mpi;
    s.time_compute += theirs.time_compute, s.time_mpi += theirs.time_mpi, s.calls += theirs.calls;
    s.wait_before += theirs.wait_before, s.wait_after += theirs.wait_after, s.execution += theirs.execution;
  }
  if (ranks.size() < o.ranks.size()) ranks.resize(o.ranks.size());
  for (size_t r = 0; r < o.ranks.size(); ++r) {
    RankStats& mine = ranks[r];
    const RankStats& theirs = o.ranks[r];
    mine.cp += theirs.cp, mine.compute += theirs.compute, mine.wait_before += theirs.wait_before;
    mine.wait_after += theirs.wait_after, mine.execution += theirs.execution, mine.rp_setup += theirs.rp_setup;
  }
}

void Scope::Pack(dist::Packer* out) const {
  for (int64_t v : {start, end, length, segments, int64_t{last_rank}, last_time, rp_all, init, finalize}) out->Put(v);
  for (int64_t v : by_kind) out->Put(v);
  out->Put<uint64_t>(sites.size());
  for (const auto& [id, s] : sites) {
    out->Put(id);
    out->Put(s);
  }
  out->Put<uint64_t>(ranks.size());
  for (const RankStats& r : ranks) out->Put(r);
}

Expected<Scope> Scope::Unpack(dist::Unpacker* in) {
  Scope s;
  for (int64_t* v : {&s.start, &s.end, &s.length, &s.segments}) *v = in->Get<int64_t>();
  s.last_rank = static_cast<int32_t>(in->Get<int64_t>());
  for (int64_t* v : {&s.last_time, &s.rp_all, &s.init, &s.finalize}) *v = in->Get<int64_t>();
  for (int64_t& v : s.by_kind) v = in->Get<int64_t>();
  for (uint64_t n = in->Get<uint64_t>(); n > 0 && !in->bad(); --n) {
    const int32_t id = in->Get<int32_t>();
    s.sites[id] = in->Get<SiteStats>();
  }
  const uint64_t ranks = in->Get<uint64_t>();
  if (in->bad() || ranks > (uint64_t{1} << 32)) return InputError("a damaged scope from another process");
  s.ranks.resize(ranks);
  for (RankStats& r : s.ranks) r = in->Get<RankStats>();
  if (in->bad()) return InputError("a damaged scope from another process");
  return s;
}

}  // namespace rp::cpath
