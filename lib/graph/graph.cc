#include "lib/graph/graph.h"

#include <algorithm>
#include <utility>

namespace rp::graph {
namespace {

using match::kNoEvent;
using mpi::Collective;

}  // namespace

uint32_t Graph::AddHub(const std::vector<uint32_t>& entry_events) {
  Hub hub{static_cast<uint32_t>(members_.size()), 0, INT64_MIN, kNoNode};
  for (uint32_t e : entry_events) {
    members_.push_back(Entry(e));
    if (w_->events[e].t0 > hub.time) hub.time = w_->events[e].t0, hub.latest = Entry(e);
  }
  hub.end = static_cast<uint32_t>(members_.size());
  hubs_.push_back(hub);
  return static_cast<uint32_t>(hubs_.size() - 1);  // index; node id once events are known
}

Graph::Graph(const window::Window& window, const match::Matching& matching, bool distributed)
    : w_(&window), distributed_(distributed) {
  const uint32_t n = events();
  previous_exit_.assign(n, kNoNode);
  compute_.assign(n, 0);
  wait_.assign(n, 0);
  local_.assign(n, 0);
  latest_.assign(n, kNoNode);
  LinkRanks();
  Edges edges;
  for (const match::Message& m : matching.messages) AddMessage(m, &edges);
  std::vector<uint32_t> hub_edges;  // (exit, hub index) pairs, flattened
  for (const match::Collective& c : matching.collectives) AddCollective(c, &edges, &hub_edges);
  // Hub node ids follow the calls' nodes.
  for (size_t i = 0; i < hub_edges.size(); i += 2) Depend(2 * n + hub_edges[i + 1], hub_edges[i], true, &edges);
  IndexCrossEdges(&edges);
  for (uint32_t e = 0; e < n; ++e) SetWait(e);
  if (!distributed_) Sort();
}

// Program edges: each call after the previous one of its rank, with the
// computation between them.
void Graph::LinkRanks() {
  const window::Window& window = *w_;
  first_.assign(window.by_rank.size(), kNoNode);
  last_.assign(window.by_rank.size(), kNoNode);
  for (size_t rank = 0; rank < window.by_rank.size(); ++rank) {
    const std::vector<uint32_t>& events = window.by_rank[rank];
    if (events.empty()) continue;
    first_[rank] = events.front();
    last_[rank] = events.back();
    for (size_t i = 1; i < events.size(); ++i) {
      const uint32_t e = events[i], before = events[i - 1];
      previous_exit_[e] = Exit(before);
      const int64_t gap = window.events[e].t0 - window.events[before].t1;
      if (gap < 0) ++problems_.negative_compute;
      compute_[e] = std::max<int64_t>(gap, 0);
    }
  }
}

// A dependency of the exit of event `to` on node `source` (an entry, or a
// hub >= 2n), unless it would go back in time.
void Graph::Depend(uint32_t source, uint32_t to, bool causal, Edges* edges) {
  if (source == kNoNode || to == kNoEvent || source == Entry(to)) return;
  if (w_->events[to].ghost()) return;  // its own process builds it
  const uint32_t n = events();
  const int64_t source_time = source >= 2 * n ? hubs_[source - 2 * n].time : w_->events[EventOf(source)].t0;
  if (source_time > w_->events[to].t1) {
    // A receive cannot end before its send began; a send may end before
    // its receive is posted (eager: not causal, no edge, no problem).
    if (causal) ++problems_.backward_edges;
    return;
  }
  edges->emplace_back(to, source);
}

void Graph::AddMessage(const match::Message& m, Edges* edges) {
  Depend(m.send == kNoEvent ? kNoNode : Entry(m.send), m.recv_done, true, edges);
  // A late receiver: the send was still in its completing call when the
  // receive was posted.
  if (m.recv != kNoEvent && m.send_done != kNoEvent && w_->events[m.recv].t0 > w_->events[m.send_done].t0) {
    Depend(Entry(m.recv), m.send_done, false, edges);
  }
}

void Graph::AddCollective(const match::Collective& c, Edges* edges, std::vector<uint32_t>* hub_edges) {
  const window::Window& window = *w_;
  const Collective kind = c.kind;
  const size_t size = c.entries.size();
  auto is_root = [&](size_t i) { return window.events[c.entries[i]].rank == c.root; };
  switch (kind) {
    case Collective::kAll:
    case Collective::kRootIn: {
      std::vector<uint32_t> members;
      for (size_t i = 0; i < size; ++i) {
        if (kind == Collective::kAll || !is_root(i)) members.push_back(c.entries[i]);
      }
      if (members.empty()) break;
      const uint32_t hub = AddHub(members);
      for (size_t i = 0; i < size; ++i) {
        if (c.exits[i] == kNoEvent || (kind == Collective::kRootIn && !is_root(i))) continue;
        hub_edges->push_back(c.exits[i]);
        hub_edges->push_back(hub);
      }
      break;
    }
    case Collective::kRootOut:
      for (size_t i = 0; i < size; ++i) {
        if (!is_root(i)) continue;
        for (size_t j = 0; j < size; ++j) Depend(Entry(c.entries[i]), c.exits[j], true, edges);
      }
      break;
    case Collective::kPrefix: {
      uint32_t latest = kNoEvent;  // among the members before i, in communicator order
      for (size_t i = 0; i < size; ++i) {
        Depend(latest == kNoEvent ? kNoNode : Entry(latest), c.exits[i], true, edges);
        if (latest == kNoEvent || window.events[c.entries[i]].t0 > window.events[latest].t0) latest = c.entries[i];
      }
      break;
    }
    case Collective::kNeighbour:
      if (!window.events[c.entries.front()].ghost()) ++problems_.neighbour_collectives;  // counted once
      break;
    case Collective::kNone:
      break;
  }
}

// The cross edges into each exit, as compressed rows (in_start_, in_).
void Graph::IndexCrossEdges(Edges* edges) {
  std::sort(edges->begin(), edges->end());
  edges->erase(std::unique(edges->begin(), edges->end()), edges->end());
  const uint32_t n = events();
  in_start_.assign(n + 1, 0);
  for (const auto& [to, from] : *edges) ++in_start_[to + 1];
  for (uint32_t e = 0; e < n; ++e) in_start_[e + 1] += in_start_[e];
  in_.resize(edges->size());
  for (size_t i = 0; i < edges->size(); ++i) in_[i] = CrossEdge{(*edges)[i].second, 0};
}

// Wait and latest partner of a call from its cross edges still in place;
// every edge into its exit then weighs the time after it was ready.
void Graph::SetWait(uint32_t e) {
  int64_t latest_time = INT64_MIN;
  latest_[e] = kNoNode;
  for (uint32_t i = in_start_[e]; i < in_start_[e + 1]; ++i) {
    const CrossEdge& c = in_[i];
    if (c.weight < 0) continue;
    const uint32_t partner = is_hub(c.from) ? hubs_[c.from - 2 * events()].latest : c.from;
    if (time(partner) > latest_time) latest_time = time(partner), latest_[e] = partner;
  }
  const window::Event& ev = w_->events[e];
  wait_[e] = latest_[e] == kNoNode ? 0 : std::clamp<int64_t>(latest_time - ev.t0, 0, ev.t1 - ev.t0);
  local_[e] = ev.bounds_application() ? 0 : std::max<int64_t>(ev.t1 - ev.t0 - wait_[e] - ev.rp, 0);
  for (uint32_t i = in_start_[e]; i < in_start_[e + 1]; ++i) {
    if (in_[i].weight >= 0) in_[i].weight = local_[e];
  }
}

int64_t Graph::application_start() const { return window::ApplicationStart(*w_); }

void Graph::Sort() {
  order_.clear();
  order_.reserve(nodes());
  Schedule schedule(*this);
  auto placed = [this](uint32_t node) { order_.push_back(node); };
  for (;;) {
    schedule.Advance(placed);
    if (schedule.done()) break;
    schedule.BreakCycle(schedule.Victim());
  }
  schedule.PlaceLeftHubs(placed);
}

Schedule::Schedule(Graph& g) : g_(g), n_(g.events()), total_(g.nodes()) {
  const std::vector<std::vector<uint32_t>>& by_rank = g.w_->by_rank;
  // Edges by source: entries and hubs to the exits (and hubs) waiting on them.
  // Edges a cycle break dropped (weight -1) are no dependencies: a graph
  // scheduled again (a distributed what-if pass) is not stuck on them.
  out_start_.assign(total_ + 1, 0);
  for (const CrossEdge& c : g.in_) {
    if (c.weight >= 0) ++out_start_[c.from + 1];
  }
  for (uint32_t m : g.members_) ++out_start_[m + 1];
  for (uint32_t i = 0; i < total_; ++i) out_start_[i + 1] += out_start_[i];
  out_.resize(out_start_[total_]);
  {
    std::vector<uint32_t> fill(out_start_.begin(), out_start_.end() - 1);
    for (uint32_t to = 0; to < n_; ++to) {
      for (uint32_t i = g.in_start_[to]; i < g.in_start_[to + 1]; ++i) {
        if (g.in_[i].weight >= 0) out_[fill[g.in_[i].from]++] = Exit(to);
      }
    }
    for (size_t h = 0; h < g.hubs_.size(); ++h) {
      for (uint32_t i = g.hubs_[h].begin; i < g.hubs_[h].end; ++i) out_[fill[g.members_[i]]++] = 2 * n_ + static_cast<uint32_t>(h);
    }
  }
  // Unmet dependencies of each exit (indexed by event) and hub.
  waiting_.assign(n_ + g.hubs_.size(), 0);
  for (uint32_t e = 0; e < n_; ++e) {
    for (uint32_t i = g.in_start_[e]; i < g.in_start_[e + 1]; ++i) waiting_[e] += g.in_[i].weight >= 0;
  }
  for (size_t h = 0; h < g.hubs_.size(); ++h) waiting_[n_ + h] = g.hubs_[h].end - g.hubs_[h].begin;
  done_.assign(total_, 0);
  cursor_.assign(by_rank.size(), 0);
  blocked_.assign(by_rank.size(), 0);
  for (size_t r = by_rank.size(); r-- > 0;) {
    if (!by_rank[r].empty()) ready_.push_back(static_cast<uint32_t>(r));
    own_calls_ += 2 * by_rank[r].size();
  }
}

uint32_t Schedule::Victim() const {
  const std::vector<std::vector<uint32_t>>& by_rank = g_.w_->by_rank;
  uint32_t victim = kNoNode;
  for (size_t r = 0; r < by_rank.size(); ++r) {
    if (!blocked_[r]) continue;
    const uint32_t node = Exit(by_rank[r][cursor_[r] / 2]);
    if (victim == kNoNode || g_.time(node) < g_.time(victim) || (g_.time(node) == g_.time(victim) && node < victim)) {
      victim = node;
    }
  }
  return victim;
}

void Schedule::BreakCycle(uint32_t victim) {
  const uint32_t e = EventOf(victim);
  for (uint32_t i = g_.in_start_[e]; i < g_.in_start_[e + 1]; ++i) {
    if (!done_[g_.in_[i].from]) {
      g_.in_[i].weight = -1;
      ++g_.problems_.cycle_edges;
    }
  }
  g_.SetWait(e);
  waiting_[e] = 0;
  const uint32_t rank = static_cast<uint32_t>(g_.w_->events[e].rank);
  blocked_[rank] = 0;
  ready_.push_back(rank);
}

WindowExtent WindowExtent::Of(const Graph& g) {
  WindowExtent mine;
  for (const window::Event& e : g.window().events) {
    mine.entry = std::min(mine.entry, e.t0);
    if (e.category() == mpi::Category::kInit) mine.init_exit = std::min(mine.init_exit, e.t1);
  }
  mine.events = g.events();
  mine.ranks = static_cast<int64_t>(g.ranks());
  return mine;
}

}  // namespace rp::graph
