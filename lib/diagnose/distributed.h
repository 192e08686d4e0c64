// rp-diagnose's figures over the processes of a distributed analysis
// (docs/scale-out.md): what one process cannot measure alone.
//
// A wait state's delay cost compares the delayer's computation before the
// call it was late to with the waiter's (wait_states.h). Where the
// delayer is a ghost (another process reads its rank), that process
// computes the delayer's side (SideComputation, by function id, which
// every process numbers alike) and sends it back.
//
//   std::vector<Side> sides;
//   RP_RETURN_IF_ERROR(RemoteSides(comm, owners, g, attribution, ghost_delayers, &sides));
//   DelayCost cost = DelayFrom(sides[i], SideComputation(g, attribution, waiter), wait);
#ifndef RP_LIB_DIAGNOSE_DISTRIBUTED_H_
#define RP_LIB_DIAGNOSE_DISTRIBUTED_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/diagnose/figures.h"
#include "lib/diagnose/wait_states.h"
#include "lib/diagnose/what_if.h"
#include "lib/dist/comm.h"
#include "lib/graph/distributed.h"
#include "lib/graph/graph.h"
#include "lib/match/distributed.h"
#include "lib/profile/attribution.h"

namespace rp::diagnose {

// (*sides)[i]: the side of `delayers[i]` (ghosts of `g`'s window), from
// the process that reads its rank. Every process calls it, in the same
// turn (two Alltoallv).
Status RemoteSides(dist::Comm& comm, const match::Owners& owners, const graph::Graph& g,
                   const profile::Attribution& attribution, const std::vector<uint32_t>& delayers,
                   std::vector<Side>* sides);

// A phase's figures from several processes, each with its ranks' (the
// ranks are disjoint): packed by each, merged into one. Sums add up,
// vectors by rank add element by element, t0 is the least, t1 and the
// ideal the greatest; the what-ifs, alike on every process, are taken as
// they come.
void PackFigures(const PhaseFigures& f, dist::Packer* out);
Status MergePacked(dist::Unpacker* in, PhaseFigures* into);
// The phase of the figures packed next in `in` (not read past).
int32_t PackedPhase(dist::Unpacker in);

// The balancing what-ifs (what_if.h) over the processes: longest paths
// replayed (graph::Replay), a phase's sums and closings reduced.
//
//   BalanceAcross across(comm);
//   BalanceWhatIf what_if(&across);
//   for (each window) { across.SetWindow(&g, &ghosts); ... as with one process ... }
class BalanceAcross : public Across {
 public:
  explicit BalanceAcross(dist::Comm& comm) : comm_(comm) {}
  // The window's graph (built distributed; a replay may break a cycle in
  // it) and ghosts, for the passes until the next.
  void SetWindow(graph::Graph* g, const match::Ghosts* ghosts) { g_ = g, ghosts_ = ghosts; }

  Status Longest(const graph::Graph& g, const std::vector<graph::RankEnd>& ends, int64_t run_start,
                 graph::LongestPath* lp, const graph::Zeroing* zero) override;
  Status Sum(std::vector<__int128>* slots) override;
  Status Max(std::vector<int64_t>* slots) override;
  const graph::ReplayStats& stats() const { return stats_; }

 private:
  dist::Comm& comm_;
  graph::Graph* g_ = nullptr;
  const match::Ghosts* ghosts_ = nullptr;
  graph::ReplayStats stats_;
};

// Figures' other processes (figures.h's FiguresAcross) over `comm`: the
// phase ends shared, the path sets and what-ifs replayed, the delayers'
// sides asked of their holders, the balancing choices added up.
//
//   FiguresAcrossProcesses across(comm, owners);
//   Figures figures(dict, cause_share, &across);
//   for (each window wg, matched across with `ghosts`) {
//     across.SetWindow(&wg.graph, &ghosts);
//     RP_RETURN_IF_ERROR(figures.AddWindow(wg, &ended));
//   }
class FiguresAcrossProcesses : public FiguresAcross {
 public:
  FiguresAcrossProcesses(dist::Comm& comm, const match::Owners& owners) : comm_(comm), owners_(owners), balance_(comm) {}
  void SetWindow(graph::Graph* g, const match::Ghosts* ghosts) {
    ghosts_ = ghosts;
    balance_.SetWindow(g, ghosts);
  }

  bool Holds(int32_t rank) const override { return owners_.Of(rank) == comm_.rank(); }
  Expected<graph::WindowExtent> Extent(const graph::Graph& g) override {
    return dist::AllreduceValue(comm_, graph::WindowExtent::Of(g));
  }
  Status Union(std::vector<int32_t>* phases) override;
  Status ShareEnds(const window::Window& w, phases::SharedPhaseEnds* ends) override { return ends->Share(comm_, w); }
  Status Sets(graph::Graph& g, repr::PathSets* sets, const std::vector<repr::RankSet>& carried,
              int64_t run_start) override;
  Status Sides(const graph::Graph& g, const profile::Attribution& attribution, const std::vector<uint32_t>& delayers,
               std::vector<Side>* sides) override {
    return RemoteSides(comm_, owners_, g, attribution, delayers, sides);
  }
  Status Choices(std::vector<BalanceChoice>* choices) override;
  Across* balance() override { return &balance_; }

  // The replays' rounds and bytes (path sets, then what-ifs).
  const graph::ReplayStats& sets_stats() const { return sets_stats_; }
  const graph::ReplayStats& balance_stats() const { return balance_.stats(); }

 private:
  dist::Comm& comm_;
  const match::Owners& owners_;
  const match::Ghosts* ghosts_ = nullptr;
  BalanceAcross balance_;
  graph::ReplayStats sets_stats_;
};

}  // namespace rp::diagnose

#endif  // RP_LIB_DIAGNOSE_DISTRIBUTED_H_
