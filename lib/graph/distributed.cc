#include "lib/graph/distributed.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

namespace rp::graph {
namespace {

// A blocked exit, the least over the processes: the cycle to break.
struct Blocked {
  int64_t time = INT64_MAX;
  match::EventOrder order{INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  void Add(const Blocked& o) {
    if (std::tie(o.time, o.order) < std::tie(time, order)) *this = o;
  }
};
static_assert(std::is_trivially_copyable_v<Blocked>);

// Puts a placed entry's value for each process holding it as a ghost.
class Outbox {
 public:
  Outbox(const Graph& g, const match::Ghosts& ghosts, Pass& pass, int processes)
      : g_(g), ghosts_(ghosts), pass_(pass), out_(processes) {}
  // Whether others hold the node's value: an entry held as a ghost.
  bool Held(uint32_t node) const {
    if (g_.is_hub(node) || IsExit(node)) return false;
    const uint32_t e = EventOf(node);
    return e < ghosts_.holders.size() && !ghosts_.holders[e].empty();
  }
  // A held entry's value to its holders.
  void Send(uint32_t entry) {
    const uint32_t e = EventOf(entry);
    const window::Event& ev = g_.window().events[e];
    for (int p : ghosts_.holders[e]) {
      out_[p].Put<int64_t>(ev.rank);
      out_[p].Put<int64_t>(ev.seq);
      pass_.Put(entry, &out_[p]);
      ++sent_;
    }
  }
  int64_t sent() const { return sent_; }
  // The round's bytes by process, taken out (counted in `stats`).
  std::vector<std::string> Take(ReplayStats* stats) {
    stats->values_sent += sent_;
    sent_ = 0;
    return dist::TakeBytes(out_, &stats->bytes_sent);
  }

 private:
  const Graph& g_;
  const match::Ghosts& ghosts_;
  Pass& pass_;
  std::vector<dist::Packer> out_;
  int64_t sent_ = 0;
};

// Each value received: its ghost entry's, given to the pass, then
// released(entry).
template <typename Released>
Status Receive(const std::vector<std::string>& in, const match::Ghosts& ghosts, Pass& pass, Released&& released) {
  return match::ForEachGhostValue(in, ghosts, "path", [&](uint32_t e, dist::Unpacker* from) {
    pass.Get(Entry(e), from);
    if (!from->bad()) released(Entry(e));
  });
}

// A window's first replay: the nodes placed as the dependencies allow,
// recorded into the graph with the rounds' places.
Status FirstReplay(dist::Comm& comm, Graph& g, const match::Ghosts& ghosts, Pass& pass, ReplayStats* stats) {
  Schedule schedule(g);
  Outbox out(g, ghosts, pass, comm.size());
  std::vector<uint32_t> order, sends;
  std::vector<Graph::ReplayRound> rounds;
  auto placed = [&](uint32_t node) {
    pass.Visit(node);
    order.push_back(node);
    if (out.Held(node)) {
      out.Send(node);
      sends.push_back(node);
    }
  };
  for (;;) {
    schedule.Advance(placed);
    // How many processes have nodes left to place, and how many values are
    // on their way, over all.
    std::vector<int64_t> sums{schedule.done() ? 0 : 1, out.sent()};
    RP_ASSIGN_OR_RETURN(std::vector<std::string> in, comm.ExchangeAndSum(out.Take(stats), &sums));
    ++stats->rounds;
    rounds.push_back({static_cast<uint32_t>(order.size()), static_cast<uint32_t>(sends.size()), sums[1] > 0});
    RP_RETURN_IF_ERROR(Receive(in, ghosts, pass, [&](uint32_t entry) { schedule.Release(entry, placed); }));
    if (sums[0] == 0) break;
    if (sums[1] > 0) continue;
    // No process can go on and nothing is on its way: a cycle.
    Blocked local;
    const uint32_t victim = schedule.Victim();
    if (victim != kNoNode) local = Blocked{g.time(victim), match::EventOrder::Of(g.event(victim))};
    RP_ASSIGN_OR_RETURN(Blocked least, dist::AllreduceValue(comm, local));
    if (least.time == INT64_MAX) return InputError("the replay is stuck and no exit is blocked");
    if (victim != kNoNode && std::tie(local.time, local.order) == std::tie(least.time, least.order)) {
      schedule.BreakCycle(victim);
    }
    ++stats->cycles_broken;
  }
  schedule.PlaceLeftHubs([&](uint32_t node) {
    pass.Visit(node);
    order.push_back(node);
  });
  g.SetReplay(std::move(order), std::move(rounds), std::move(sends));
  return OkStatus();
}

// A later replay of the window: the first one's order and rounds, values
// exchanged where it exchanged some (every process knows where that was),
// no scheduling and no count of what is left.
Status PlannedReplay(dist::Comm& comm, const Graph& g, const match::Ghosts& ghosts, Pass& pass,
                     ReplayStats* stats) {
  Outbox out(g, ghosts, pass, comm.size());
  const std::vector<uint32_t>& order = g.order();
  const std::vector<uint32_t>& sends = g.replay_sends();
  uint32_t visited = 0, sent = 0;
  for (const Graph::ReplayRound& round : g.replay_rounds()) {
    pass.VisitAll(order.data() + visited, order.data() + round.at);
    visited = round.at;
    for (; sent < round.sends; ++sent) out.Send(sends[sent]);
    if (!round.sent) continue;
    std::vector<int64_t> none;
    RP_ASSIGN_OR_RETURN(std::vector<std::string> in, comm.ExchangeAndSum(out.Take(stats), &none));
    ++stats->rounds;
    RP_RETURN_IF_ERROR(Receive(in, ghosts, pass, [](uint32_t) {}));
  }
  pass.VisitAll(order.data() + visited, order.data() + order.size());  // the hubs left
  return OkStatus();
}

}  // namespace

Status Replay(dist::Comm& comm, Graph& g, const match::Ghosts& ghosts, Pass& pass, ReplayStats* stats) {
  return g.replayed() ? PlannedReplay(comm, g, ghosts, pass, stats) : FirstReplay(comm, g, ghosts, pass, stats);
}

void SitesPass::Put(uint32_t entry, dist::Packer* out) {
  const int64_t* lengths = z_->site_lengths(entry);
  for (size_t k = 0; k < batch; ++k) out->Put(lengths[k]);
}

void SitesPass::Get(uint32_t ghost_entry, dist::Unpacker* in) {
  int64_t* lengths = z_->site_lengths(ghost_entry);
  for (size_t k = 0; k < batch; ++k) lengths[k] = in->Get<int64_t>();
}

namespace {

// Every process's ids, once each, sorted.
Expected<std::vector<int32_t>> Union(dist::Comm& comm, const std::vector<int32_t>& mine) {
  dist::Packer out;
  for (int32_t id : mine) out.Put(id);
  RP_ASSIGN_OR_RETURN(std::vector<std::string> all, comm.Allgather(out.bytes()));
  std::vector<int32_t> ids;
  for (const std::string& bytes : all) {
    dist::Unpacker in(bytes);
    while (!in.done() && !in.bad()) ids.push_back(in.Get<int32_t>());
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

struct Longest {
  int64_t length;
  void Add(const Longest& o) { length = std::max(length, o.length); }
};

}  // namespace

Status ZeroAcross(dist::Comm& comm, Graph& g, const match::Ghosts& ghosts, const std::vector<RankEnd>& ends,
                  int64_t run_start, const std::vector<ProcedureCuts>& procedures, Zeroings* z, ReplayStats* stats) {
  Zeroings::Fresh fresh = z->FreshKeys(g, procedures);
  RP_ASSIGN_OR_RETURN(fresh.sites, Union(comm, fresh.sites));
  RP_ASSIGN_OR_RETURN(fresh.procedures, Union(comm, fresh.procedures));
  z->Insert(fresh, ends);
  const size_t sites = z->site_keys();
  for (size_t first = 0; first < sites; first += Zeroings::kBatch) {
    const size_t count = std::min(Zeroings::kBatch, sites - first);
    z->PrepareSites(g, first, count);
    SitesPass pass(g, z, run_start);
    pass.batch = count;
    RP_RETURN_IF_ERROR(Replay(comm, g, ghosts, pass, stats));
    z->AdvanceSites(g);
  }
  LongestPath lp;
  for (size_t i = sites; i < z->keys(); ++i) {
    const Zeroing* zero = z->PrepareProcedure(g, i, procedures);
    LengthPass pass(g, z->ends(i), run_start, &lp, zero);
    RP_RETURN_IF_ERROR(Replay(comm, g, ghosts, pass, stats));
    lp.Advance(g, &z->ends(i));
    z->FinishProcedure(i, procedures);
  }
  return OkStatus();
}

Expected<std::vector<Zeroings::Result>> ZeroingResults(dist::Comm& comm, const Zeroings& z) {
  std::vector<Zeroings::Result> results = z.Results();  // this process's ranks' longest
  std::string slots(results.size() * sizeof(Longest), '\0');
  for (size_t i = 0; i < results.size(); ++i) {
    const Longest l{results[i].length};
    std::memcpy(slots.data() + i * sizeof l, &l, sizeof l);
  }
  RP_RETURN_IF_ERROR(comm.Allreduce(&slots, sizeof(Longest), &dist::FoldSlots<Longest>));
  for (size_t i = 0; i < results.size(); ++i) {
    Longest l;
    std::memcpy(&l, slots.data() + i * sizeof l, sizeof l);
    results[i].length = l.length;
  }
  return results;
}

}  // namespace rp::graph
