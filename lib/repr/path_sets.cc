#include "lib/repr/path_sets.h"

#include <algorithm>
#include <tuple>

namespace rp::repr {

using graph::EventOf;
using graph::IsExit;
using graph::kNoNode;

namespace {

const RankSet* CarriedSet(const std::vector<RankSet>& carried, int32_t rank) {
  if (rank < 0 || static_cast<size_t>(rank) >= carried.size() || !carried[rank].started) return nullptr;
  return &carried[rank];
}

}  // namespace

// The program edge into `entry`: as LongestPath weighs it.
int64_t PathSets::TaskWeight(const graph::Graph& g, uint32_t entry, const std::vector<RankSet>& carried,
                             int64_t run_start) const {
  const uint32_t e = EventOf(entry);
  if (g.previous(entry) != kNoNode) return g.compute(e);
  const window::Event& ev = g.window().events[e];
  const RankSet* set = CarriedSet(carried, ev.rank);
  return std::max<int64_t>(ev.t0 - (set != nullptr ? set->time : run_start), 0);
}

void PathSets::SortByCost(std::vector<Keyed>* keyed) {
  std::sort(keyed->begin(), keyed->end(), [](const Keyed& a, const Keyed& b) {
    return a.c.cost != b.c.cost ? a.c.cost > b.c.cost : a.origin < b.origin;
  });
}

void PathSets::SortUnique(std::vector<Keyed>* keyed) {
  std::sort(keyed->begin(), keyed->end(), [](const Keyed& a, const Keyed& b) {
    return a.origin != b.origin ? a.origin < b.origin : a.c.cost > b.c.cost;
  });
  size_t unique = 0;
  for (size_t i = 0; i < keyed->size(); ++i) {
    if (unique == 0 || (*keyed)[unique - 1].origin != (*keyed)[i].origin) (*keyed)[unique++] = (*keyed)[i];
  }
  keyed->resize(unique);
  SortByCost(keyed);
}

std::pair<uint32_t, uint32_t> PathSets::Source(const graph::Graph& g, uint32_t from, uint32_t slot) const {
  if (from < Candidate::kCarried && g.is_hub(from)) {
    const Candidate& c = paths_[size_t{from} * config_.k + slot];
    return {c.from, c.slot};
  }
  return {from, slot};
}

void PathSets::Keep(uint32_t node) {
  // Each path reaches a join once: the rank's own entry and its partners'
  // are different nodes, a hub's members too, and an exit whose own entry
  // is in the hub it hears from takes the hub's paths only (Run). So no
  // duplicates to drop here, only an order to fix: the most costly first,
  // ties by where they came from (not by input order). Each run of
  // scratch_ (one node's set) is in that order already: a join of a few
  // (a rank's own set and its partners') is merged, a hub's many sorted.
  const auto before = [](const Candidate& a, const Candidate& b) { return Before(a, b); };
  if (runs_.size() > kMergeRuns) {
    std::sort(scratch_.begin(), scratch_.end(), before);
  } else {
    runs_.push_back(static_cast<uint32_t>(scratch_.size()));
    for (size_t r = 2; r < runs_.size(); ++r) {
      // scratch_[0, runs_[r - 1]) is merged; add the next run.
      merged_.resize(runs_[r]);
      std::merge(scratch_.begin(), scratch_.begin() + runs_[r - 1], scratch_.begin() + runs_[r - 1],
                 scratch_.begin() + runs_[r], merged_.begin(), before);
      std::copy(merged_.begin(), merged_.end(), scratch_.begin());
    }
  }
  Choose(config_.select, static_cast<int>(scratch_.size()), config_.k, &chosen_);
  Candidate* out = &paths_[size_t{node} * config_.k];
  for (size_t j = 0; j < chosen_.size(); ++j) out[j] = scratch_[chosen_[j]];
  count_[node] = static_cast<uint8_t>(chosen_.size());
}

void PathSets::Run(const graph::Graph& g, const std::vector<RankSet>& carried, int64_t run_start) {
  Prepare(g, carried, run_start);
  for (uint32_t node : g.order()) Visit(g, node);
}

void PathSets::Prepare(const graph::Graph& g, const std::vector<RankSet>& carried, int64_t run_start) {
  const uint32_t n = g.nodes();
  paths_.resize(size_t{n} * config_.k);
  count_.assign(n, 0);
  carried_ = carried;
  run_start_ = run_start;
  hub_of_.assign(g.events(), kNoNode);
}

void PathSets::SetGhost(uint32_t entry, const int64_t* costs, size_t count) {
  Candidate* out = &paths_[size_t{entry} * config_.k];
  for (size_t j = 0; j < count; ++j) out[j] = {costs[j], Candidate::kRemote, static_cast<uint32_t>(j)};
  count_[entry] = static_cast<uint8_t>(count);
}

void PathSets::Visit(const graph::Graph& g, uint32_t node) {
  const size_t k = config_.k;
  const std::vector<RankSet>& carried = carried_;
  const int64_t run_start = run_start_;
  const bool wall = config_.cost == Cost::kWall;
  scratch_.clear();
  runs_.clear();
  if (g.is_hub(node)) {
    for (const uint32_t* m = g.members_begin(node); m != g.members_end(node); ++m) {
      hub_of_[EventOf(*m)] = node;
      runs_.push_back(static_cast<uint32_t>(scratch_.size()));
      for (uint32_t j = 0; j < count_[*m]; ++j) scratch_.push_back({paths_[*m * k + j].cost, *m, j});
    }
    Keep(node);
    return;
  }
  const uint32_t e = EventOf(node);
  const window::Event& ev = g.window().events[e];
  if (!IsExit(node)) {
    // A task: every path the rank holds runs through it (a set's order
    // stays as it was).
    const int64_t weight = TaskWeight(g, node, carried, run_start);
    const uint32_t before = g.previous(node);
    Candidate* out = &paths_[size_t{node} * k];
    uint32_t count = 0;
    if (before != kNoNode) {
      if (!config_.reset_at_phase || g.event(before).phase == ev.phase) {
        for (uint32_t j = 0; j < count_[before]; ++j) out[count++] = {paths_[before * k + j].cost + weight, before, j};
      }
    } else if (const RankSet* set = CarriedSet(carried, ev.rank);
               set != nullptr && (!config_.reset_at_phase || set->phase == ev.phase)) {
      for (uint32_t j = 0; j < set->paths.size(); ++j) {
        out[count++] = {set->paths[j].cost + weight, Candidate::kCarried, j};
      }
    }
    if (count == 0) out[count++] = {weight, Candidate::kStart, 0};  // a new path (phase) starts here
    count_[node] = static_cast<uint8_t>(count);
    return;
  }
  // A join: the rank's own paths and each partner's. A collective whose
  // hub holds the rank's entry has already chosen among them all: its
  // members leave with the hub's paths (the paper's path all-reduce).
  bool own_in_hub = false, joins = false;
  for (const graph::CrossEdge* c = g.in_begin(node); c != g.in_end(node); ++c) {
    own_in_hub |= c->weight >= 0 && c->from == hub_of_[e];
    joins |= c->weight >= 0 && c->from != node - 1;
  }
  const int64_t local = wall ? g.local(e) : 0;
  if (!joins) {  // nothing joins: the rank's paths, in their order
    Candidate* out = &paths_[size_t{node} * k];
    for (uint32_t j = 0; j < count_[node - 1]; ++j) out[j] = {paths_[(node - 1) * k + j].cost + local, node - 1, j};
    count_[node] = count_[node - 1];
    return;
  }
  if (!own_in_hub) {
    runs_.push_back(0);
    for (uint32_t j = 0; j < count_[node - 1]; ++j) {
      scratch_.push_back({paths_[(node - 1) * k + j].cost + local, node - 1, j});
    }
  }
  for (const graph::CrossEdge* c = g.in_begin(node); c != g.in_end(node); ++c) {
    if (c->weight < 0 || c->from == node - 1) continue;  // dropped (a cycle), or its own entry
    const int64_t add = wall ? c->weight : 0;
    runs_.push_back(static_cast<uint32_t>(scratch_.size()));
    for (uint32_t j = 0; j < count_[c->from]; ++j) scratch_.push_back({paths_[c->from * k + j].cost + add, c->from, j});
  }
  Keep(node);
}

std::vector<Candidate> PathSets::Union(const graph::Graph* g, const std::vector<uint32_t>& nodes,
                                       const std::vector<Ended>& ended, std::vector<int>* positions,
                                       int* total) const {
  std::vector<Keyed> keyed;
  const size_t k = config_.k;
  for (uint32_t node : nodes) {
    for (uint32_t j = 0; j < count_[node]; ++j) {
      const Candidate& c = paths_[node * k + j];
      keyed.push_back({Source(*g, c.from, c.slot), {c.cost, node, j}});
    }
  }
  for (size_t i = 0; i < ended.size(); ++i) {
    keyed.push_back({{Candidate::kCarried, ended[i].key}, {ended[i].cost, Candidate::kCarried, static_cast<uint32_t>(i)}});
  }
  SortUnique(&keyed);
  std::vector<int> chosen;
  Choose(config_.select, static_cast<int>(keyed.size()), config_.k, &chosen);
  std::vector<Candidate> out;
  for (int i : chosen) out.push_back(keyed[i].c);
  if (positions != nullptr) *positions = chosen;
  if (total != nullptr) *total = static_cast<int>(keyed.size());
  return out;
}

void PathSets::Carry(const graph::Graph& g, std::vector<RankSet>* carried) const {
  if (carried->size() < g.ranks()) carried->resize(g.ranks());
  const size_t k = config_.k;
  for (size_t rank = 0; rank < g.ranks(); ++rank) {
    const uint32_t last = g.last_event(rank);
    if (last == kNoNode) continue;
    const uint32_t exit = graph::Exit(last);
    RankSet& set = (*carried)[rank];
    set.paths.assign(&paths_[exit * k], &paths_[exit * k] + count_[exit]);
    set.time = g.window().events[last].t1;
    set.phase = g.window().events[last].phase;
    set.started = true;
  }
}

PathSets::Origin PathSets::Tasks(const graph::Graph& g, const Candidate& path, std::vector<Task>* out) const {
  out->clear();
  Origin origin;
  const size_t k = config_.k;
  uint32_t node = path.from, slot = path.slot;
  for (;;) {
    const Candidate& c = paths_[node * k + slot];
    if (c.from == Candidate::kRemote) {  // a ghost's entry: its task is its holder's
      origin.remote = node;
      origin.remote_slot = slot;
      break;
    }
    if (!g.is_hub(node) && !IsExit(node)) {
      const uint32_t e = EventOf(node);
      const window::Event& ev = g.window().events[e];
      const uint32_t before = g.previous(node);
      const RankSet* set = CarriedSet(carried_, ev.rank);
      const int64_t start = before != kNoNode ? g.time(before) : (set != nullptr ? set->time : run_start_);
      out->push_back({e, std::min(start, ev.t0), ev.t0, TaskWeight(g, node, carried_, run_start_)});
    }
    if (c.from == Candidate::kStart) break;
    if (c.from == Candidate::kCarried) {
      origin.carried_rank = g.event(node).rank;
      origin.carried_slot = static_cast<int>(c.slot);
      break;
    }
    node = c.from;
    slot = c.slot;
  }
  std::reverse(out->begin(), out->end());
  return origin;
}

}  // namespace rp::repr
