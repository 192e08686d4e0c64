#include "lib/graph/distributed_path.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>

#include "lib/base/free_slots.h"

namespace rp::graph {
namespace {

// The kinds of record a round carries.
enum Kind : int64_t {
  kAsk,     // child, rank, seq: which node is your event's entry? (a chain's bottom)
  kAnswer,  // child, id: it is node id
  kChild,   // id: you have a child
  kBelow,   // id, count: a child's count
  kCollect  // id: collect the rest of the path from node id up
};

// The longest path's end: the longest, the lowest rank on ties.
struct End {
  int64_t length = INT64_MIN, rank = INT64_MAX;
  void Add(const End& o) {
    if (o.length > length || (o.length == length && o.rank < rank)) *this = o;
  }
};

}  // namespace

int32_t DistributedPath::NewNode() {
  const int32_t id = TakeSlot(&nodes_, &free_);
  nodes_[id] = Node{};
  nodes_[id].live = true;
  return id;
}

void DistributedPath::FreeNode(int32_t id) {
  nodes_[id].live = false;
  nodes_[id].steps.clear();
  free_.push_back(id);
}

Expected<bool> DistributedPath::Round(std::vector<std::string>* in) {
  int64_t sent = 0;
  std::vector<std::string> bytes = dist::TakeBytes(out_, &sent);
  stats_.bytes_sent += sent;
  ++stats_.rounds;
  std::vector<int64_t> sums{sent};
  RP_ASSIGN_OR_RETURN(*in, comm_.ExchangeAndSum(bytes, &sums));
  return sums[0] > 0;
}

int32_t DistributedPath::Walk(const Graph& g, uint32_t node) {
  const int me = comm_.rank();
  std::vector<uint32_t> chain;
  Ref parent;
  bool ask = false;
  int64_t ask_rank = 0, ask_seq = 0;
  for (uint32_t at = node;;) {
    if (memo_[at] >= 0) {
      parent = Ref{me, memo_[at]};
      break;
    }
    chain.push_back(at);
    const uint32_t before = lp_.predecessor(at);
    if (before == kNoNode) {
      // A rank's first entry in the window: its latest node before.
      if (!g.is_hub(at)) {
        const size_t rank = static_cast<size_t>(g.event(at).rank);
        if (rank < refs_.size()) parent = refs_[rank];
      }
      break;
    }
    if (!g.is_hub(before) && g.event(before).ghost()) {
      ask = true;
      ask_rank = g.event(before).rank, ask_seq = g.event(before).seq;
      break;
    }
    at = before;
  }
  int32_t below = -1;
  for (size_t i = chain.size(); i-- > 0;) {
    const int32_t id = NewNode();
    Node& n = nodes_[id];
    lp_.Steps(g, chain[i], *steps_ends_, run_start_, &n.steps);
    n.time = g.time(chain[i]);
    n.parent = below >= 0 ? Ref{me, below} : parent;
    if (below < 0 && ask) {
      const int owner = owners_->Of(ask_rank);
      requests_[owner].push_back({id, ask_rank, ask_seq});
    }
    memo_[chain[i]] = id;
    below = id;
  }
  return memo_[node];
}

Status DistributedPath::WalkAll(const Graph& g, const match::Ghosts& ghosts) {
  const int me = comm_.rank(), processes = comm_.size();
  memo_.assign(g.nodes(), -1);
  requests_.assign(processes, {});
  if (refs_.size() < g.ranks()) refs_.resize(g.ranks());
  std::vector<std::pair<size_t, int32_t>> leaves;
  for (size_t rank = 0; rank < g.ranks(); ++rank) {
    const uint32_t last = g.last_event(rank);
    if (last != kNoNode) leaves.emplace_back(rank, Walk(g, Exit(last)));
  }
  for (;;) {
    for (int p = 0; p < processes; ++p) {
      for (const Request& r : requests_[p]) {
        out_[p].Put<int64_t>(kAsk);
        out_[p].Put<int64_t>(r.child);
        out_[p].Put<int64_t>(r.rank);
        out_[p].Put<int64_t>(r.seq);
      }
      requests_[p].clear();
    }
    std::vector<std::string> in;
    RP_ASSIGN_OR_RETURN(bool any, Round(&in));
    if (!any) break;
    for (int p = 0; p < processes; ++p) {
      dist::Unpacker from(in[p]);
      while (!from.done() && !from.bad()) {
        const int64_t kind = from.Get<int64_t>(), child = from.Get<int64_t>();
        if (kind == kAsk) {
          const int64_t rank = from.Get<int64_t>(), seq = from.Get<int64_t>();
          const uint32_t e = match::LocalEvent(g.window(), rank, seq);
          if (e == match::kNoEvent) return InputError("process " + std::to_string(p) + " asked for an event not here");
          const int32_t id = Walk(g, Entry(e));
          out_[p].Put<int64_t>(kAnswer);
          out_[p].Put<int64_t>(child);
          out_[p].Put<int64_t>(id);
        } else if (kind == kAnswer) {
          nodes_[child].parent = Ref{p, static_cast<int32_t>(from.Get<int64_t>())};
        } else {
          return InputError("process " + std::to_string(p) + " sent a damaged walk");
        }
      }
      if (from.bad()) return InputError("process " + std::to_string(p) + " sent a damaged walk");
    }
  }
  for (const auto& [rank, leaf] : leaves) refs_[rank] = Ref{me, leaf};
  (void)ghosts;
  return OkStatus();
}

Status DistributedPath::Count() {
  const int processes = comm_.size();
  for (Node& n : nodes_) {
    n.leaves = n.children = n.waiting = 0;
    n.below = n.most_below_child = 0;
  }
  for (size_t rank = 0; rank < ends_.size(); ++rank) {
    if (ends_[rank].started && !refs_[rank].start()) ++nodes_[refs_[rank].id].leaves;
  }
  // Children, told to their parents.
  for (const Node& n : nodes_) {
    if (!n.live || n.parent.start()) continue;
    if (n.parent.process == comm_.rank()) {
      ++nodes_[n.parent.id].children;
    } else {
      out_[n.parent.process].Put<int64_t>(kChild);
      out_[n.parent.process].Put<int64_t>(n.parent.id);
    }
  }
  std::vector<std::string> in;
  RP_RETURN_IF_ERROR(Round(&in).status());
  for (int p = 0; p < processes; ++p) {
    dist::Unpacker from(in[p]);
    while (!from.done() && !from.bad()) {
      if (from.Get<int64_t>() != kChild) return InputError("process " + std::to_string(p) + " sent a damaged count");
      ++nodes_[from.Get<int64_t>()].children;
    }
  }
  // Counts from the leaves up.
  std::vector<int32_t> ready;
  for (int32_t id = 0; id < static_cast<int32_t>(nodes_.size()); ++id) {
    Node& n = nodes_[id];
    if (!n.live) continue;
    n.waiting = n.children;
    n.below = n.leaves;
    if (n.waiting == 0) ready.push_back(id);
  }
  for (;;) {
    while (!ready.empty()) {
      const Node& n = nodes_[ready.back()];
      ready.pop_back();
      if (n.parent.start()) continue;
      if (n.parent.process == comm_.rank()) {
        Node& up = nodes_[n.parent.id];
        up.below += n.below;
        up.most_below_child = std::max(up.most_below_child, n.below);
        if (--up.waiting == 0) ready.push_back(n.parent.id);
      } else {
        out_[n.parent.process].Put<int64_t>(kBelow);
        out_[n.parent.process].Put<int64_t>(n.parent.id);
        out_[n.parent.process].Put<int64_t>(n.below);
      }
    }
    RP_ASSIGN_OR_RETURN(bool any, Round(&in));
    if (!any) break;
    for (int p = 0; p < processes; ++p) {
      dist::Unpacker from(in[p]);
      while (!from.done() && !from.bad()) {
        if (from.Get<int64_t>() != kBelow) return InputError("process " + std::to_string(p) + " sent a damaged count");
        const int32_t id = static_cast<int32_t>(from.Get<int64_t>());
        const int64_t below = from.Get<int64_t>();
        Node& up = nodes_[id];
        up.below += below;
        up.most_below_child = std::max(up.most_below_child, below);
        if (--up.waiting == 0) ready.push_back(id);
      }
    }
  }
  return OkStatus();
}

Status DistributedPath::Decide(std::vector<Segment>* decided) {
  dist::Sum mine;
  for (const RankEnd& end : ends_) mine.value += end.started;
  RP_ASSIGN_OR_RETURN(dist::Sum leaves, dist::AllreduceValue(comm_, mine));
  for (int32_t id = 0; id < static_cast<int32_t>(nodes_.size()); ++id) {
    Node& n = nodes_[id];
    if (!n.live) continue;
    if (n.below == 0) {  // on no rank's path any more
      FreeNode(id);
      continue;
    }
    if (n.below != leaves.value) continue;
    // On every rank's path: decided.
    if (!n.taken) decided->insert(decided->end(), n.steps.begin(), n.steps.end());
    if (n.most_below_child == leaves.value) {
      FreeNode(id);  // a decided node below it is the root now
    } else {
      n.taken = true;
      n.parent = Ref{};
      n.steps.clear();
    }
  }
  return OkStatus();
}

Status DistributedPath::Add(Graph& g, const match::Ghosts& ghosts, std::vector<Segment>* decided) {
  if (out_.empty()) out_.resize(comm_.size());
  // The window has calls on some process; the first such starts the run.
  RP_ASSIGN_OR_RETURN(const WindowExtent all, dist::AllreduceValue(comm_, WindowExtent::Of(g)));
  window_had_calls_ = all.events > 0;
  window_ranks_ = all.ranks;
  if (all.events == 0) return OkStatus();
  if (!started_) started_ = true, run_start_ = all.start();
  LengthPass pass(g, ends_, run_start_, &lp_);
  RP_RETURN_IF_ERROR(Replay(comm_, g, ghosts, pass, &stats_));
  std::vector<RankEnd> before = ends_;
  steps_ends_ = &before;
  RP_RETURN_IF_ERROR(WalkAll(g, ghosts));
  steps_ends_ = nullptr;
  lp_.Advance(g, &ends_);
  RP_RETURN_IF_ERROR(Count());
  return Decide(decided);
}

Status DistributedPath::Finish(std::vector<Segment>* rest) {
  if (out_.empty()) out_.resize(comm_.size());
  End mine;
  for (size_t rank = 0; rank < ends_.size(); ++rank) {
    if (ends_[rank].started) mine.Add(End{ends_[rank].length, static_cast<int64_t>(rank)});
  }
  RP_ASSIGN_OR_RETURN(End all, dist::AllreduceValue(comm_, mine));
  if (all.rank == INT64_MAX) return OkStatus();
  length_ = all.length;
  end_rank_ = static_cast<int32_t>(all.rank);
  // The end rank's path up to the root, collected where each node is.
  std::vector<int32_t> collect;
  if (static_cast<size_t>(end_rank_) < ends_.size() && ends_[end_rank_].started) collect.push_back(refs_[end_rank_].id);
  for (;;) {
    for (int32_t id : collect) {
      for (;;) {
        Node& n = nodes_[id];
        if (n.taken) break;
        rest->insert(rest->end(), n.steps.begin(), n.steps.end());
        if (n.parent.start()) break;
        if (n.parent.process != comm_.rank()) {
          out_[n.parent.process].Put<int64_t>(kCollect);
          out_[n.parent.process].Put<int64_t>(n.parent.id);
          break;
        }
        id = n.parent.id;
      }
    }
    collect.clear();
    std::vector<std::string> in;
    RP_ASSIGN_OR_RETURN(bool any, Round(&in));
    if (!any) break;
    for (int p = 0; p < comm_.size(); ++p) {
      dist::Unpacker from(in[p]);
      while (!from.done() && !from.bad()) {
        if (from.Get<int64_t>() != kCollect) return InputError("process " + std::to_string(p) + " sent a damaged path");
        collect.push_back(static_cast<int32_t>(from.Get<int64_t>()));
      }
    }
  }
  return OkStatus();
}

}  // namespace rp::graph
