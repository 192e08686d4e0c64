#include "lib/clock/distributed.h"

#include <string>
#include <tuple>
#include <type_traits>

namespace rp::clock {
namespace {

// The least blocked event over the processes.
struct Least {
  ForwardPass::Blocked blocked;
  void Add(const Least& o) {
    // Rank -1 (none) sorts last: its start is INT64_MAX.
    if (std::tie(o.blocked.t0, o.blocked.rank) < std::tie(blocked.t0, blocked.rank)) blocked = o.blocked;
  }
};
static_assert(std::is_trivially_copyable_v<Least>);

// Packed values, one sparse exchange: (rank, seq, T...) per event; `take`
// gets each received ghost's index and the unpacker positioned at its
// values. `*sums` are added up over the processes on the way.
template <typename Take>
Status Deliver(dist::Comm& comm, std::vector<dist::Packer>& out, const match::Ghosts& ghosts, RepairStats* stats,
               std::vector<int64_t>* sums, Take take) {
  RP_ASSIGN_OR_RETURN(std::vector<std::string> in,
                      comm.ExchangeAndSum(dist::TakeBytes(out, &stats->bytes_sent), sums));
  return match::ForEachGhostValue(in, ghosts, "times", take);
}

}  // namespace

Status ShareGhostTimes(dist::Comm& comm, window::Window* window, const match::Ghosts& ghosts, RepairStats* stats) {
  window::Window& w = *window;
  std::vector<dist::Packer> out(comm.size());
  for (size_t e = 0; e < ghosts.holders.size(); ++e) {
    for (int p : ghosts.holders[e]) {
      const window::Event& ev = w.events[e];
      out[p].Put<int64_t>(ev.rank);
      out[p].Put<int64_t>(ev.seq);
      out[p].Put(ev.t0);
      out[p].Put(ev.t1);
    }
  }
  std::vector<int64_t> none;
  return Deliver(comm, out, ghosts, stats, &none, [&](uint32_t e, dist::Unpacker* in) {
    w.events[e].t0 = in->Get<int64_t>();
    w.events[e].t1 = in->Get<int64_t>();
  });
}

Expected<RepairResult> RepairAcross(dist::Comm& comm, window::Window* window, const Constraints& constraints,
                                    const match::Ghosts& ghosts, const RepairOptions& options,
                                    std::vector<int64_t>* shift, RepairStats* stats) {
  window::Window& w = *window;
  const std::vector<std::pair<int64_t, int64_t>> before = TimesOf(w);
  RepairResult result;
  ForwardPass pass(w, constraints, options.min_latency, *shift);
  std::vector<dist::Packer> out(comm.size());
  int64_t sent = 0;
  // A gate source's start, to the processes holding it as a ghost.
  const ForwardPass::Started started = [&](uint32_t e) {
    if (e >= ghosts.holders.size()) return;
    for (int p : ghosts.holders[e]) {
      out[p].Put<int64_t>(w.events[e].rank);
      out[p].Put<int64_t>(w.events[e].seq);
      out[p].Put<int64_t>(w.events[e].t0);
      ++sent;
    }
  };
  pass.Begin(started);
  for (;;) {
    pass.Advance(started);
    // Processes not finished, and starts on their way, over all.
    std::vector<int64_t> sums{pass.done() ? 0 : 1, sent};
    sent = 0;
    ++stats->rounds;
    RP_RETURN_IF_ERROR(Deliver(comm, out, ghosts, stats, &sums, [&](uint32_t e, dist::Unpacker* in) {
      pass.StartGhost(e, in->Get<int64_t>());
    }));
    if (sums[0] == 0) break;
    if (sums[1] > 0) continue;
    // No process can go on and nothing is on its way: a cycle.
    RP_ASSIGN_OR_RETURN(Least least, dist::AllreduceValue(comm, Least{pass.Earliest()}));
    if (least.blocked.rank < 0) break;  // nothing started anywhere: as Repair, stop
    const ForwardPass::Blocked local = pass.Earliest();
    if (local.rank == least.blocked.rank && local.t0 == least.blocked.t0) {
      pass.Force(static_cast<size_t>(local.rank), started);
      ++result.cycles_broken;
    }
  }
  if (options.amortize && options.max_slope > 0) {
    // The amortisation keeps each moved send before its receive's end.
    RP_RETURN_IF_ERROR(ShareGhostTimes(comm, &w, ghosts, stats));
    Amortize(&w, constraints, options, pass);
  }
  result.ranks = Moves(w, before);
  return result;
}

}  // namespace rp::clock
