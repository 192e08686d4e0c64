#include "lib/graph/distributed.h"

#include <cstring>
#include <string>
#include <type_traits>

namespace rp::graph {
namespace {

// One round's sums over the processes.
struct RoundSums {
  int64_t unplaced = 0, sent = 0;
  void Add(const RoundSums& o) { unplaced += o.unplaced, sent += o.sent; }
};

// A blocked exit, the least over the processes: the cycle to break.
struct Blocked {
  int64_t time = INT64_MAX;
  match::EventOrder order{INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  void Add(const Blocked& o) {
    if (std::tie(o.time, o.order) < std::tie(time, order)) *this = o;
  }
};
static_assert(std::is_trivially_copyable_v<RoundSums> && std::is_trivially_copyable_v<Blocked>);

template <typename T>
Expected<T> Reduce(dist::Comm& comm, const T& mine) {
  std::string slot(reinterpret_cast<const char*>(&mine), sizeof mine);
  RP_RETURN_IF_ERROR(comm.Allreduce(&slot, sizeof mine, &dist::FoldSlots<T>));
  T all;
  std::memcpy(&all, slot.data(), sizeof all);
  return all;
}

}  // namespace

Status Replay(dist::Comm& comm, Graph& g, const match::Ghosts& ghosts, Pass& pass, ReplayStats* stats) {
  const window::Window& w = g.window();
  const int processes = comm.size();
  Schedule schedule(g);
  std::vector<dist::Packer> out(processes);
  int64_t sent = 0;
  auto placed = [&](uint32_t node) {
    pass.Visit(node);
    if (g.is_hub(node) || IsExit(node)) return;
    const uint32_t e = EventOf(node);
    if (e >= ghosts.holders.size() || ghosts.holders[e].empty()) return;
    for (int p : ghosts.holders[e]) {
      out[p].Put<int64_t>(w.events[e].rank);
      out[p].Put<int64_t>(w.events[e].seq);
      pass.Put(node, &out[p]);
      ++sent;
    }
  };
  for (;;) {
    schedule.Advance(placed);
    std::vector<std::string> bytes(processes);
    for (int p = 0; p < processes; ++p) {
      stats->bytes_sent += static_cast<int64_t>(out[p].bytes().size());
      bytes[p] = std::move(out[p].bytes());
      out[p].bytes().clear();
    }
    RP_ASSIGN_OR_RETURN(std::vector<std::string> in, comm.Alltoallv(bytes));
    RoundSums mine;
    mine.unplaced = schedule.done() ? 0 : 1;
    mine.sent = sent;
    stats->values_sent += sent;
    sent = 0;
    ++stats->rounds;
    for (int p = 0; p < processes; ++p) {
      dist::Unpacker from(in[p]);
      while (!from.done()) {
        const int64_t rank = from.Get<int64_t>(), seq = from.Get<int64_t>();
        const uint32_t e = ghosts.Find(rank, seq);
        if (from.bad() || e == UINT32_MAX) {
          return InputError("process " + std::to_string(p) + " sent the path of rank " + std::to_string(rank) +
                            " seq " + std::to_string(seq) + ", which is no ghost here");
        }
        pass.Get(Entry(e), &from);
        if (from.bad()) return InputError("process " + std::to_string(p) + " sent a damaged path");
        schedule.Release(Entry(e), placed);
      }
    }
    RP_ASSIGN_OR_RETURN(RoundSums all, Reduce(comm, mine));
    if (all.unplaced == 0) break;
    if (all.sent > 0) continue;
    // No process can go on and nothing is on its way: a cycle.
    Blocked local;
    const uint32_t victim = schedule.Victim();
    if (victim != kNoNode) local = Blocked{g.time(victim), match::EventOrder::Of(g.event(victim))};
    RP_ASSIGN_OR_RETURN(Blocked least, Reduce(comm, local));
    if (least.time == INT64_MAX) return InputError("the replay is stuck and no exit is blocked");
    if (victim != kNoNode && std::tie(local.time, local.order) == std::tie(least.time, least.order)) {
      schedule.BreakCycle(victim);
    }
    ++stats->cycles_broken;
  }
  schedule.PlaceLeftHubs([&](uint32_t node) { pass.Visit(node); });
  return OkStatus();
}

}  // namespace rp::graph
