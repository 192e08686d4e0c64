#include "lib/repr/distributed.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <type_traits>

#include "lib/repr/select.h"

namespace rp::repr {

NodeKey NodeKey::Of(const graph::Graph& g, uint32_t node) {
  const match::EventOrder o = match::EventOrder::Of(g.event(node));
  return {o.phase, o.t0, o.rank, o.seq, graph::IsExit(node) ? 1 : 0};
}

namespace {

// Ended paths sort after every node, by their key, as Candidate::kCarried
// does.
NodeKey EndedKey(uint32_t key) { return {INT64_MAX, static_cast<int64_t>(key), 0, 0, 0}; }

// One candidate of one process for the union: what the path is (its
// origin), what it costs, and where it is.
struct Offer {
  NodeKey origin;
  int64_t origin_slot;
  int64_t cost;
  NodeKey at;  // the exit it was offered at (ties between copies of one path)
  int64_t at_slot;
  Kept kept;
};
static_assert(std::is_trivially_copyable_v<Offer>);

}  // namespace

Expected<std::vector<Kept>> UnionAcross(dist::Comm& comm, const PathSets& sets, const graph::Graph* g,
                                        const std::vector<uint32_t>& nodes,
                                        const std::vector<PathSets::Ended>& ended, std::vector<int>* positions,
                                        int* total) {
  dist::Packer mine;
  for (uint32_t node : nodes) {
    for (const Candidate* c = sets.begin(node); c != sets.end(node); ++c) {
      const uint32_t slot = static_cast<uint32_t>(c - sets.begin(node));
      const auto [from, from_slot] = sets.Source(*g, c->from, c->slot);
      mine.Put(Offer{NodeKey::Of(*g, from), from_slot, c->cost, NodeKey::Of(*g, node), slot,
                     Kept{c->cost, comm.rank(), node, slot}});
    }
  }
  for (size_t i = 0; i < ended.size(); ++i) {
    const NodeKey key = EndedKey(ended[i].key);
    mine.Put(Offer{key, 0, ended[i].cost, key, 0,
                   Kept{ended[i].cost, comm.rank(), Candidate::kCarried, static_cast<uint32_t>(i)}});
  }
  RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm.Allgather(mine.bytes()));
  std::vector<Offer> offers;
  for (const std::string& bytes : all) {
    dist::Unpacker in(bytes);
    while (!in.done()) {
      offers.push_back(in.Get<Offer>());
      if (in.bad()) return InputError("a damaged path offer");
    }
  }
  // PathSets::SortUnique: one copy of each path (the most costly, then the
  // first by where it was offered), then the most costly first, ties by
  // origin.
  auto origin = [](const Offer& o) { return std::tie(o.origin, o.origin_slot); };
  std::sort(offers.begin(), offers.end(), [&](const Offer& a, const Offer& b) {
    if (origin(a) != origin(b)) return origin(a) < origin(b);
    if (a.cost != b.cost) return a.cost > b.cost;
    return std::tie(a.at, a.at_slot) < std::tie(b.at, b.at_slot);
  });
  size_t unique = 0;
  for (size_t i = 0; i < offers.size(); ++i) {
    if (unique == 0 || origin(offers[unique - 1]) != origin(offers[i])) offers[unique++] = offers[i];
  }
  offers.resize(unique);
  std::sort(offers.begin(), offers.end(), [&](const Offer& a, const Offer& b) {
    return a.cost != b.cost ? a.cost > b.cost : origin(a) < origin(b);
  });
  std::vector<int> chosen;
  Choose(sets.select(), static_cast<int>(offers.size()), sets.k(), &chosen);
  std::vector<Kept> out;
  for (int i : chosen) out.push_back(offers[i].kept);
  if (positions != nullptr) *positions = chosen;
  if (total != nullptr) *total = static_cast<int>(offers.size());
  return out;
}

namespace {

// A walk's step to another process: kept path `path` goes on at `rank`'s
// event `seq` (its entry), slot `slot`.
struct Hop {
  int64_t path, rank, seq, slot;
  int64_t first, last;  // the lowest and highest rounds that found tasks so far (-1: none)
};
// Where a walk ended (its origin), sent to every process.
struct End {
  int64_t path, carried_rank, carried_slot, first, last;
};
static_assert(std::is_trivially_copyable_v<Hop> && std::is_trivially_copyable_v<End>);

}  // namespace

Status WalkAcross(dist::Comm& comm, const match::Owners& owners, const PathSets& sets, const graph::Graph& g,
                  const std::vector<Kept>& kept, std::vector<std::vector<Task>>* tasks,
                  std::vector<PathSets::Origin>* origins, WalkRounds* rounds) {
  tasks->assign(kept.size(), {});
  origins->assign(kept.size(), {});
  if (rounds != nullptr) {
    rounds->of_task.assign(kept.size(), {});
    rounds->first.assign(kept.size(), -1);
    rounds->last.assign(kept.size(), -1);
  }
  std::vector<Hop> walks;  // this process's walks to take, this round
  for (size_t j = 0; j < kept.size(); ++j) {
    if (kept[j].process != comm.rank() || kept[j].node == Candidate::kCarried) continue;
    walks.push_back({static_cast<int64_t>(j), -1, -1, 0, -1, -1});
  }
  dist::Packer ends;
  std::vector<Task> part;
  for (int32_t round = 0;; ++round) {
    std::vector<dist::Packer> out(comm.size());
    int64_t sent = 0;
    for (const Hop& walk : walks) {
      const size_t j = static_cast<size_t>(walk.path);
      Candidate from{kept[j].cost, kept[j].node, kept[j].slot};
      if (walk.rank >= 0) {
        const uint32_t e = match::LocalEvent(g.window(), walk.rank, walk.seq);
        if (e == match::kNoEvent) {
          return InputError("a walk went on at rank " + std::to_string(walk.rank) + " seq " +
                            std::to_string(walk.seq) + ", which this process does not hold");
        }
        from = {0, graph::Entry(e), static_cast<uint32_t>(walk.slot)};
      }
      const PathSets::Origin origin = sets.Tasks(g, from, &part);
      // Walked back: this stretch comes before what the walk found so far.
      std::vector<Task>& all = (*tasks)[j];
      all.insert(all.begin(), part.begin(), part.end());
      if (rounds != nullptr) rounds->of_task[j].insert(rounds->of_task[j].begin(), part.size(), round);
      int64_t first = walk.first, last = walk.last;
      if (!part.empty()) {
        if (first < 0) first = round;
        last = round;
      }
      if (origin.remote != graph::kNoNode) {
        const window::Event& ghost = g.event(origin.remote);
        const int p = owners.Of(ghost.rank);
        if (p < 0) return InputError("a walk reached rank " + std::to_string(ghost.rank) + ", which no process reads");
        out[p].Put(Hop{walk.path, ghost.rank, ghost.seq, origin.remote_slot, first, last});
        ++sent;
      } else {
        ends.Put(End{walk.path, origin.carried_rank, origin.carried_slot, first, last});
      }
    }
    std::vector<std::string> bytes(comm.size());
    for (int p = 0; p < comm.size(); ++p) bytes[p] = std::move(out[p].bytes());
    std::vector<int64_t> any{sent};
    RP_ASSIGN_OR_RETURN(std::vector<std::string> in, comm.ExchangeAndSum(bytes, &any));
    walks.clear();
    for (int p = 0; p < comm.size(); ++p) {
      dist::Unpacker from(in[p]);
      while (!from.done()) {
        const Hop hop = from.Get<Hop>();
        if (from.bad() || hop.path < 0 || static_cast<size_t>(hop.path) >= kept.size()) {
          return InputError("process " + std::to_string(p) + " sent a damaged walk");
        }
        walks.push_back(hop);
      }
    }
    if (any[0] == 0) break;
  }
  RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm.Allgather(ends.bytes()));
  for (const std::string& bytes : all) {
    dist::Unpacker in(bytes);
    while (!in.done()) {
      const End end = in.Get<End>();
      if (in.bad() || end.path < 0 || static_cast<size_t>(end.path) >= kept.size()) return InputError("a damaged walk end");
      (*origins)[end.path] = {static_cast<int32_t>(end.carried_rank), static_cast<int>(end.carried_slot)};
      if (rounds != nullptr) {
        rounds->first[end.path] = static_cast<int32_t>(end.first);
        rounds->last[end.path] = static_cast<int32_t>(end.last);
      }
    }
  }
  return OkStatus();
}

}  // namespace rp::repr
