#include "lib/graph/alternatives.h"

#include <algorithm>

namespace rp::graph {
namespace {

Segment Make(const window::Event& ev, SegmentKind kind, int64_t t0, int64_t t1) {
  Segment s;
  s.rank = ev.rank;
  s.site = ev.site;
  s.fn = ev.fn;
  s.phase = ev.phase;
  s.kind = kind;
  s.t0 = t0;
  s.t1 = t1;
  s.length = kind == SegmentKind::kWait || kind == SegmentKind::kRp ? 0 : t1 - t0;
  return s;
}

// When a call's application time ends: at its entry for MPI_Finalize (and
// MPI_Init), which are outside it; before the collector's own work for
// the others.
int64_t ApplicationEnd(const window::Event& ev) { return ev.bounds_application() ? ev.t0 : ev.t1 - ev.rp; }

}  // namespace

std::vector<Segment> BackwardReplay(const std::vector<const Graph*>& graphs, int64_t run_start) {
  std::vector<Segment> path;
  size_t k = graphs.size();
  while (k > 0 && graphs[k - 1]->nodes() == 0) --k;
  if (k == 0) return path;
  --k;
  // The call whose application time ended last.
  const window::Window& last = graphs[k]->window();
  uint32_t end = 0;
  for (uint32_t e = 1; e < last.events.size(); ++e) {
    if (ApplicationEnd(last.events[e]) > ApplicationEnd(last.events[end])) end = e;
  }
  uint32_t node = Exit(end);
  auto add = [&](const window::Event& ev, SegmentKind kind, int64_t t0, int64_t t1, int32_t peer) {
    if (t1 <= t0) return;
    path.push_back(Make(ev, kind, t0, t1));
    path.back().peer = peer;
  };
  for (;;) {
    const Graph& g = *graphs[k];
    const uint32_t e = EventOf(node);
    const window::Event& ev = g.window().events[e];
    if (IsExit(node)) {
      if (ev.bounds_application()) {  // outside the application's time
        node = Entry(e);
        continue;
      }
      add(ev, SegmentKind::kRp, ev.t1 - ev.rp, ev.t1, window::kNone);
      const uint32_t partner = g.latest_partner(e);
      if (partner != kNoNode && g.wait(e) > 0) {  // it waited: the partner was late
        add(ev, SegmentKind::kTransfer, g.time(partner), ev.t1 - ev.rp, g.event(partner).rank);
        node = partner;
      } else {
        add(ev, SegmentKind::kMpi, ev.t0, ev.t1 - ev.rp, window::kNone);
        node = Entry(e);
      }
      continue;
    }
    const uint32_t before = g.previous(node);
    if (before != kNoNode) {
      add(ev, SegmentKind::kCompute, g.time(before), ev.t0, window::kNone);
      node = before;
      continue;
    }
    // The rank's previous call is in an earlier window, if any.
    size_t earlier = k;
    while (earlier > 0 && graphs[earlier - 1]->last_event(ev.rank) == kNoNode) --earlier;
    if (earlier == 0) {
      add(ev, SegmentKind::kCompute, run_start, ev.t0, window::kNone);
      break;
    }
    k = earlier - 1;
    const uint32_t previous = graphs[k]->last_event(ev.rank);
    add(ev, SegmentKind::kCompute, graphs[k]->window().events[previous].t1, ev.t0, window::kNone);
    node = Exit(previous);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

void TopologicalHeuristic::AddWindow(const Graph& g, std::vector<Segment>* out) {
  struct Interval {
    int64_t start, end;
    int32_t rank;
    uint32_t event;   // the call it leads to
    uint32_t before;  // the call it follows, kNoNode before the window
  };
  const window::Window& w = g.window();
  std::vector<Interval> intervals;
  if (rank_time_.size() < w.by_rank.size()) rank_time_.resize(w.by_rank.size(), INT64_MIN);
  for (size_t rank = 0; rank < w.by_rank.size(); ++rank) {
    uint32_t before = kNoNode;
    for (uint32_t e : w.by_rank[rank]) {
      const int64_t start = before != kNoNode ? w.events[before].t1
                                              : (rank_time_[rank] != INT64_MIN ? rank_time_[rank] : run_start_);
      if (w.events[e].t0 > start) intervals.push_back({start, w.events[e].t0, static_cast<int32_t>(rank), e, before});
      before = e;
      const window::Event& ev = w.events[e];
      const int64_t end = ApplicationEnd(ev);
      if (!any_call_ || end > final_call_.t1) final_call_ = Make(ev, SegmentKind::kMpi, ev.t0, end), any_call_ = true;
    }
    if (before != kNoNode) rank_time_[rank] = w.events[before].t1;
  }
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) {
    return a.start != b.start ? a.start < b.start : a.rank < b.rank;
  });
  auto keep = [&](const Interval& c) {
    const window::Event& ev = w.events[c.event];
    if (c.start > last_end_) {
      // Communication between the two kept edges: the call before this one,
      // but for the collector's own work at its end.
      const window::Event& call = c.before != kNoNode ? w.events[c.before] : ev;
      const int64_t mpi_end = std::max(last_end_, c.start - (c.before != kNoNode ? call.rp : 0));
      Segment gap = Make(call, SegmentKind::kMpi, last_end_, mpi_end);
      gap.rank = c.rank;
      gap.peer = last_rank_ != c.rank ? last_rank_ : window::kNone;
      if (mpi_end > last_end_) out->push_back(gap);
      if (c.start > mpi_end) {
        Segment own = Make(call, SegmentKind::kRp, mpi_end, c.start);
        own.rank = c.rank;
        out->push_back(own);
      }
    }
    out->push_back(Make(ev, SegmentKind::kCompute, std::max(c.start, last_end_), c.end));
    last_end_ = std::max(last_end_, c.end);
    last_rank_ = c.rank;
  };
  size_t i = 0;
  while (i < intervals.size()) {
    size_t longest = i;
    int64_t group_end = intervals[i].end;
    size_t j = i + 1;
    for (; j < intervals.size() && intervals[j].start < group_end; ++j) {
      group_end = std::max(group_end, intervals[j].end);
      const int64_t length = intervals[j].end - intervals[j].start;
      if (length > intervals[longest].end - intervals[longest].start) longest = j;
    }
    if (intervals[longest].end > last_end_) keep(intervals[longest]);
    i = j;
  }
}

void TopologicalHeuristic::Finish(std::vector<Segment>* out) {
  if (!any_call_ || final_call_.t1 <= last_end_) return;
  Segment s = final_call_;
  s.t0 = last_end_;
  s.length = s.t1 - s.t0;
  s.peer = last_rank_ != s.rank ? last_rank_ : window::kNone;
  out->push_back(s);
}

}  // namespace rp::graph
