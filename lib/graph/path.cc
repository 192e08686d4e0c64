#include "lib/graph/path.h"

#include <algorithm>

#include "lib/base/free_slots.h"

namespace rp::graph {

std::string_view KindName(SegmentKind kind) {
  switch (kind) {
    case SegmentKind::kCompute: return "compute";
    case SegmentKind::kMpi: return "mpi";
    case SegmentKind::kWait: return "wait";
    case SegmentKind::kTransfer: return "transfer";
    case SegmentKind::kRp: return "rp";
  }
  return "?";
}

namespace {

// Where the program edge into a rank's first call of the window starts.
int64_t EdgeStart(const RankEnd& end, int64_t run_start) { return end.started ? end.time : run_start; }

// The program edge into a rank's first call of the window: the rank's path
// length before it, and the computation on it.
struct FirstEdge {
  int64_t from, weight;
};
FirstEdge IntoFirstCall(const std::vector<RankEnd>& ends, const window::Event& ev, int64_t run_start) {
  const RankEnd& end = static_cast<size_t>(ev.rank) < ends.size() ? ends[ev.rank] : RankEnd{};
  return {end.started ? end.length : 0, std::max<int64_t>(ev.t0 - EdgeStart(end, run_start), 0)};
}

// Each rank's end past window `g`, the length at its last call's exit
// given by `length(exit node)`.
template <typename Length>
void AdvanceEnds(const Graph& g, const Length& length, std::vector<RankEnd>* ends) {
  if (ends->size() < g.ranks()) ends->resize(g.ranks());
  for (size_t rank = 0; rank < g.ranks(); ++rank) {
    const uint32_t last = g.last_event(rank);
    if (last == kNoNode) continue;
    (*ends)[rank] = RankEnd{length(Exit(last)), g.window().events[last].t1, true};
  }
}

}  // namespace

void LongestPath::Run(const Graph& g, const std::vector<RankEnd>& ends, int64_t run_start, const Zeroing* zero) {
  Prepare(g);
  for (uint32_t node : g.order()) Visit(g, node, ends, run_start, zero);
}

void LongestPath::Prepare(const Graph& g) {
  length_.resize(g.nodes());
  pred_.resize(g.nodes());
}

void LongestPath::Visit(const Graph& g, uint32_t node, const std::vector<RankEnd>& ends, int64_t run_start,
                        const Zeroing* zero) {
  if (g.is_hub(node)) {
    // The longest path among its members' (the latest of them on ties).
    int64_t best = INT64_MIN;
    uint32_t best_pred = kNoNode;
    for (const uint32_t* m = g.members_begin(node); m != g.members_end(node); ++m) {
      if (length_[*m] > best || (length_[*m] == best && g.time(*m) > g.time(best_pred))) {
        best = length_[*m], best_pred = *m;
      }
    }
    length_[node] = best;
    pred_[node] = best_pred;
    return;
  }
  const uint32_t e = EventOf(node);
  const window::Event& ev = g.window().events[e];
  const bool zeroed = zero != nullptr && zero->cut == nullptr && ev.site == zero->site;
  if (!IsExit(node)) {
    const uint32_t before = g.previous(node);
    int64_t from, weight;
    if (before != kNoNode) {
      from = length_[before];
      weight = g.compute(e);
    } else {
      const FirstEdge edge = IntoFirstCall(ends, ev, run_start);
      from = edge.from, weight = edge.weight;
    }
    if (zero != nullptr && zero->cut != nullptr) {
      weight = std::max<int64_t>(weight - zero->cut[e], 0);
    } else if (zeroed && zero->compute) {
      weight = 0;
    }
    length_[node] = from + weight;
    pred_[node] = before;
    return;
  }
  const bool mpi_zeroed = zeroed && !zero->compute;
  // Local edge first: on equal lengths the path stays on its rank, and
  // among partners it follows the latest one (as backward replay does).
  int64_t best = length_[node - 1] + (mpi_zeroed ? 0 : g.local(e));
  uint32_t best_pred = node - 1;
  int64_t best_time = INT64_MIN;
  for (const CrossEdge* c = g.in_begin(node); c != g.in_end(node); ++c) {
    if (c->weight < 0) continue;  // dropped to break a cycle
    const int64_t candidate = length_[c->from] + (mpi_zeroed ? 0 : c->weight);
    const int64_t t = g.time(c->from);
    if (candidate > best || (candidate == best && best_pred != node - 1 && t > best_time)) {
      best = candidate, best_pred = c->from, best_time = t;
    }
  }
  length_[node] = best;
  pred_[node] = best_pred;
}

void LongestPath::Advance(const Graph& g, std::vector<RankEnd>* ends) const {
  AdvanceEnds(g, [this](uint32_t node) { return length_[node]; }, ends);
}

void LongestPath::Steps(const Graph& g, uint32_t node, const std::vector<RankEnd>& ends, int64_t run_start,
                        std::vector<Segment>* out) const {
  if (g.is_hub(node)) return;  // its time is on the edge from the hub to the exit
  const uint32_t e = EventOf(node);
  const window::Event& ev = g.window().events[e];
  Segment s;
  s.rank = ev.rank;
  s.site = ev.site;
  s.fn = ev.fn;
  s.phase = ev.phase;
  auto add = [&](SegmentKind kind, int64_t t0, int64_t t1, bool counts) {
    if (t1 <= t0) return;
    s.kind = kind, s.t0 = t0, s.t1 = t1, s.length = counts ? t1 - t0 : 0;
    out->push_back(s);
  };
  if (!IsExit(node)) {
    const uint32_t before = g.previous(node);
    const RankEnd& end = static_cast<size_t>(ev.rank) < ends.size() ? ends[ev.rank] : RankEnd{};
    add(SegmentKind::kCompute, before != kNoNode ? g.time(before) : EdgeStart(end, run_start), ev.t0, true);
    return;
  }
  // MPI_Init and MPI_Finalize are outside the application's time.
  if (ev.bounds_application()) return;
  // The collector's own work ends the call, after its MPI part.
  const int64_t mpi_end = ev.t1 - ev.rp;
  const uint32_t from = pred_[node];
  if (from == node - 1) {
    const int64_t wait = g.wait(e);
    add(SegmentKind::kWait, ev.t0, ev.t0 + wait, false);
    add(SegmentKind::kMpi, ev.t0 + wait, mpi_end, true);
  } else {
    // From a partner (through a hub, from the member whose path was
    // longest): waiting until both sides were there, then the transfer.
    const uint32_t partner = g.is_hub(from) ? pred_[from] : from;
    const int64_t ready = ev.t0 + g.wait(e);
    s.peer = g.event(partner).rank;
    add(SegmentKind::kWait, g.time(partner), ready, false);
    add(SegmentKind::kTransfer, ready, mpi_end, true);
  }
  s.peer = window::kNone;
  add(SegmentKind::kRp, std::max(mpi_end, ev.t0 + g.wait(e)), ev.t1, false);
}

int32_t PathTree::Add(const Segment& s, int32_t parent) {
  const int32_t id = TakeSlot(&nodes_, &free_);
  Node& n = nodes_[id];
  n = Node{s, parent, 0, parent == kStart ? 1 : nodes_[parent].depth + 1, false};
  Retain(parent);
  return id;
}

void PathTree::Retain(int32_t node) {
  if (node != kStart) ++nodes_[node].refs;
}

void PathTree::Release(int32_t node) {
  while (node != kStart && --nodes_[node].refs == 0) {
    const int32_t parent = nodes_[node].parent;
    free_.push_back(node);
    node = parent;
  }
}

void PathTree::AddWindow(const Graph& g, const LongestPath& lp, const std::vector<RankEnd>& ends, int64_t run_start,
                         std::vector<int32_t>* refs) {
  if (refs->size() < g.ranks()) refs->resize(g.ranks(), kStart);
  memo_.assign(g.nodes(), INT32_MIN);
  std::vector<uint32_t> chain;
  std::vector<int32_t> leaves(g.ranks(), INT32_MIN);
  for (size_t rank = 0; rank < g.ranks(); ++rank) {
    const uint32_t last = g.last_event(rank);
    if (last == kNoNode) continue;
    // Walk back to a node already in the tree or to the window's start.
    chain.clear();
    uint32_t node = Exit(last);
    int32_t parent = INT32_MIN;
    while (parent == INT32_MIN) {
      if (memo_[node] != INT32_MIN) {
        parent = memo_[node];
        break;
      }
      chain.push_back(node);
      const uint32_t before = lp.predecessor(node);
      if (before == kNoNode) parent = (*refs)[g.event(node).rank];
      else node = before;
    }
    for (size_t i = chain.size(); i-- > 0;) {
      steps_.clear();
      lp.Steps(g, chain[i], ends, run_start, &steps_);
      for (const Segment& s : steps_) parent = Add(s, parent);
      memo_[chain[i]] = parent;
    }
    leaves[rank] = parent;
  }
  for (size_t rank = 0; rank < g.ranks(); ++rank) {
    if (leaves[rank] == INT32_MIN) continue;
    Retain(leaves[rank]);
    Release((*refs)[rank]);
    (*refs)[rank] = leaves[rank];
  }
}

int32_t PathTree::Common(int32_t a, int32_t b) const {
  while (a != b) {
    if (a == kStart || b == kStart) return kStart;
    if (nodes_[a].depth >= nodes_[b].depth) a = nodes_[a].parent;
    else b = nodes_[b].parent;
  }
  return a;
}

void PathTree::Chain(int32_t leaf, std::vector<int32_t>* nodes) const {
  for (int32_t n = leaf; n != kStart && !nodes_[n].taken; n = nodes_[n].parent) nodes->push_back(n);
}

void PathTree::TakeShared(const std::vector<int32_t>& leaves, std::vector<Segment>* out) {
  if (leaves.empty()) return;
  int32_t shared = leaves.front();
  for (int32_t leaf : leaves) shared = Common(shared, leaf);
  if (shared == kStart || nodes_[shared].taken) return;
  std::vector<int32_t> chain;
  Chain(shared, &chain);
  for (size_t i = chain.size(); i-- > 0;) out->push_back(nodes_[chain[i]].segment);
  // What lies above `shared` is used by no other path: forget it.
  const int32_t above = nodes_[shared].parent;
  nodes_[shared].parent = kStart;
  nodes_[shared].taken = true;
  Release(above);
}

void PathTree::TakeTo(int32_t leaf, std::vector<Segment>* out) const {
  std::vector<int32_t> chain;
  Chain(leaf, &chain);
  for (size_t i = chain.size(); i-- > 0;) out->push_back(nodes_[chain[i]].segment);
}

void CriticalPath::Add(const Graph& g, std::vector<Segment>* decided) {
  if (g.events() == 0) return;
  if (!started_) {
    started_ = true;
    run_start_ = g.application_start();
  }
  lp_.Run(g, ends_, run_start_);
  tree_.AddWindow(g, lp_, ends_, run_start_, &refs_);
  lp_.Advance(g, &ends_);
  std::vector<int32_t> leaves;
  for (size_t rank = 0; rank < ends_.size(); ++rank) {
    if (ends_[rank].started) leaves.push_back(refs_[rank]);
  }
  tree_.TakeShared(leaves, decided);
}

void CriticalPath::Finish(std::vector<Segment>* rest) {
  end_rank_ = -1;
  for (size_t rank = 0; rank < ends_.size(); ++rank) {
    if (!ends_[rank].started) continue;
    if (end_rank_ < 0 || ends_[rank].length > length_) length_ = ends_[rank].length, end_rank_ = static_cast<int32_t>(rank);
  }
  if (end_rank_ >= 0) tree_.TakeTo(refs_[end_rank_], rest);
}

void Zeroings::Add(const Graph& g, const CriticalPath& cp, const std::vector<ProcedureCuts>& procedures) {
  if (g.events() == 0) return;
  const int64_t run_start = cp.started() ? cp.run_start() : g.application_start();
  // What-ifs first seen here start from the unchanged lengths.
  Insert(FreshKeys(g, procedures), cp.ends());
  // Sites' what-ifs in batches, one pass each; procedures one by one
  // (each has its own cuts).
  const size_t sites = site_keys();
  for (size_t first = 0; first < sites; first += kBatch) {
    RunSites(g, first, std::min(kBatch, sites - first), run_start);
  }
  for (size_t i = sites; i < keys_.size(); ++i) {
    const Zeroing* zero = PrepareProcedure(g, i, procedures);
    lp_.Run(g, ends_[i], run_start, zero);
    lp_.Advance(g, &ends_[i]);
    FinishProcedure(i, procedures);
  }
}

Zeroings::Fresh Zeroings::FreshKeys(const Graph& g, const std::vector<ProcedureCuts>& procedures) {
  Fresh fresh;
  const window::Event* last = nullptr;
  for (const window::Event& e : g.window().events) {
    if (last != nullptr && e.site == last->site) continue;  // a rank's calls often repeat a site
    last = &e;
    const bool dense = e.site >= 0 && e.site < window::kDenseSites;
    if (dense && static_cast<size_t>(e.site) < known_.size() && known_[e.site]) continue;
    if (!std::binary_search(keys_.begin(), keys_.end(), Key{0, e.site})) fresh.sites.push_back(e.site);
    if (dense) {
      if (static_cast<size_t>(e.site) >= known_.size()) known_.resize(e.site + 1);
      known_[e.site] = true;
    }
  }
  for (const ProcedureCuts& p : procedures) {
    if (!std::binary_search(keys_.begin(), keys_.end(), Key{2, p.procedure})) fresh.procedures.push_back(p.procedure);
  }
  for (std::vector<int32_t>* ids : {&fresh.sites, &fresh.procedures}) {
    std::sort(ids->begin(), ids->end());
    ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  }
  return fresh;
}

void Zeroings::Insert(const Fresh& fresh, const std::vector<RankEnd>& ends) {
  std::vector<Key> keys;
  for (int32_t site : fresh.sites) keys.push_back({0, site}), keys.push_back({1, site});
  for (int32_t procedure : fresh.procedures) keys.push_back({2, procedure});
  for (const Key& key : keys) {
    const size_t at = std::lower_bound(keys_.begin(), keys_.end(), key) - keys_.begin();
    if (at < keys_.size() && keys_[at] == key) continue;
    keys_.insert(keys_.begin() + at, key);
    ends_.insert(ends_.begin() + at, ends);
  }
  for (int32_t site : fresh.sites) {
    if (site < 0 || site >= window::kDenseSites) continue;
    if (static_cast<size_t>(site) >= known_.size()) known_.resize(site + 1);
    known_[site] = true;
  }
}

size_t Zeroings::site_keys() const {
  size_t sites = 0;
  while (sites < keys_.size() && keys_[sites].kind != 2) ++sites;
  return sites;
}

const Zeroing* Zeroings::PrepareProcedure(const Graph& g, size_t i, const std::vector<ProcedureCuts>& procedures) {
  cut_.resize(g.events(), 0);
  auto it = std::lower_bound(procedures.begin(), procedures.end(), keys_[i].id,
                             [](const ProcedureCuts& p, int32_t id) { return p.procedure < id; });
  if (it != procedures.end() && it->procedure == keys_[i].id) {
    for (const Cut& c : it->cuts) cut_[c.event] += c.ns;
  }
  zero_ = Zeroing{window::kNone, true, cut_.data()};
  return &zero_;
}

void Zeroings::FinishProcedure(size_t i, const std::vector<ProcedureCuts>& procedures) {
  auto it = std::lower_bound(procedures.begin(), procedures.end(), keys_[i].id,
                             [](const ProcedureCuts& p, int32_t id) { return p.procedure < id; });
  if (it != procedures.end() && it->procedure == keys_[i].id) {
    for (const Cut& c : it->cuts) cut_[c.event] = 0;
  }
}

// LongestPath::Run and Advance for `count` site what-ifs at once: their
// lengths side by side at each node, so the graph is walked once for all.
// Only lengths: a what-if's length needs no predecessors, and the ties
// Run breaks do not change it.
void Zeroings::RunSites(const Graph& g, size_t first, size_t count, int64_t run_start) {
  PrepareSites(g, first, count);
  for (uint32_t node : g.order()) VisitSites(g, node, run_start);
  AdvanceSites(g);
}

void Zeroings::PrepareSites(const Graph& g, size_t first, size_t count) {
  first_ = first, batch_ = count;
  lengths_.resize(static_cast<size_t>(g.nodes()) * batch_);
  for (size_t k = 0; k < batch_; ++k) site_[k] = keys_[first + k].id, compute_[k] = keys_[first + k].kind == 1;
}

void Zeroings::VisitSites(const Graph& g, uint32_t node, int64_t run_start) {
  const size_t b = batch_, first = first_;
  int64_t* out = &lengths_[static_cast<size_t>(node) * b];
  if (g.is_hub(node)) {
    std::fill(out, out + b, INT64_MIN);
    for (const uint32_t* m = g.members_begin(node); m != g.members_end(node); ++m) {
      const int64_t* in = &lengths_[static_cast<size_t>(*m) * b];
      for (size_t k = 0; k < b; ++k) out[k] = std::max(out[k], in[k]);
    }
    return;
  }
  const uint32_t e = EventOf(node);
  const window::Event& ev = g.window().events[e];
  if (!IsExit(node)) {
    const uint32_t before = g.previous(node);
    for (size_t k = 0; k < b; ++k) {
      int64_t from, weight;
      if (before != kNoNode) {
        from = lengths_[static_cast<size_t>(before) * b + k];
        weight = g.compute(e);
      } else {
        const FirstEdge edge = IntoFirstCall(ends_[first + k], ev, run_start);
        from = edge.from, weight = edge.weight;
      }
      out[k] = from + (ev.site == site_[k] && compute_[k] ? 0 : weight);
    }
    return;
  }
  const int64_t local = g.local(e);
  const int64_t* prev = &lengths_[static_cast<size_t>(node - 1) * b];
  bool zeroed[kBatch];
  for (size_t k = 0; k < b; ++k) {
    zeroed[k] = ev.site == site_[k] && !compute_[k];
    out[k] = prev[k] + (zeroed[k] ? 0 : local);
  }
  for (const CrossEdge* c = g.in_begin(node); c != g.in_end(node); ++c) {
    if (c->weight < 0) continue;  // dropped to break a cycle
    const int64_t* in = &lengths_[static_cast<size_t>(c->from) * b];
    for (size_t k = 0; k < b; ++k) out[k] = std::max(out[k], in[k] + (zeroed[k] ? 0 : c->weight));
  }
}

void Zeroings::AdvanceSites(const Graph& g) {
  for (size_t k = 0; k < batch_; ++k) {
    AdvanceEnds(g, [&](uint32_t node) { return lengths_[static_cast<size_t>(node) * batch_ + k]; },
                &ends_[first_ + k]);
  }
}

std::vector<Zeroings::Result> Zeroings::Results() const {
  std::vector<Result> out;
  for (size_t i = 0; i < keys_.size(); ++i) {
    int64_t length = 0;
    for (const RankEnd& end : ends_[i]) {
      if (end.started) length = std::max(length, end.length);
    }
    Result r;
    r.length = length;
    if (keys_[i].kind == 2) {
      r.procedure = keys_[i].id;
    } else {
      r.site = keys_[i].id;
      r.compute = keys_[i].kind == 1;
    }
    out.push_back(r);
  }
  // Keys sort mpi (0) before compute (1); report compute first.
  std::stable_sort(out.begin(), out.end(), [](const Result& a, const Result& b) {
    if ((a.procedure >= 0) != (b.procedure >= 0)) return b.procedure >= 0;
    if (a.procedure >= 0) return a.procedure < b.procedure;
    return a.site != b.site ? a.site < b.site : a.compute > b.compute;
  });
  return out;
}

}  // namespace rp::graph
