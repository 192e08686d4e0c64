// The what-if behind a load imbalance's severity: how much sooner each
// phase's closing synchronization would end if one function's computation
// on every rank of the phase were its mean over them — recomputed on the
// program activity graph (lib/graph's longest paths with each program
// edge lengthened or shortened by its share of the change), so the answer
// is what balancing that function would really save, not the bound avg -
// min of the waiting (diagnosis paper §5.3.1), which it can fall short of
// (the imbalance partly evened out by another function) or exceed.
//
// A function's time in a computation is its share of the computations
// before calls at the same site on the same rank over the run so far (the
// caller's `share`), not the few samples of that one computation: a
// phase's samples are few, and the what-if of a noisy split is biased (an
// overstated imbalance on one rank is cut to the mean while the others
// wait anyway).
//
// A phase's change is measured at its closing synchronization, which every
// rank passes: what follows starts that much sooner, so the run's saving
// is the sum over the phases. A phase is measured when all its calls lie
// in one window (the usual case: windows end at clean global
// synchronizations, phases at global synchronizations).
//
//   BalanceWhatIf what_if;
//   for (each window) {
//     RP_RETURN_IF_ERROR(what_if.Window(g, run_start));
//     RP_ASSIGN_OR_RETURN(savings, what_if.Savings(g, attribution, share, phases, function, run_start));
//     what_if.Advance(g);
//   }
#ifndef RP_LIB_DIAGNOSE_WHAT_IF_H_
#define RP_LIB_DIAGNOSE_WHAT_IF_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/path.h"
#include "lib/profile/attribution.h"

namespace rp::diagnose {

// What the what-if needs of the other processes when the graph is split
// between them (distributed.h's BalanceAcross); without it, one process.
class Across {
 public:
  virtual ~Across() = default;
  // `lp` over `g` from `ends` (this process's ranks'), `zero` applied.
  virtual Status Longest(const graph::Graph& g, const std::vector<graph::RankEnd>& ends, int64_t run_start,
                         graph::LongestPath* lp, const graph::Zeroing* zero) = 0;
  // Each slot summed over the processes.
  virtual Status Sum(std::vector<__int128>* slots) = 0;
  // Each slot's greatest over the processes.
  virtual Status Max(std::vector<int64_t>* slots) = 0;
};

class BalanceWhatIf {
 public:
  // `across`: the other processes (null: none; it must outlive this).
  explicit BalanceWhatIf(Across* across = nullptr) : across_(across) {}

  // The longest paths through the window as it ran, from the ends before it.
  Status Window(const graph::Graph& g, int64_t run_start);

  // The share of a computation before a call at `site` on `rank` that is
  // spent in `function`.
  using Share = std::function<double(int32_t rank, int32_t site, int32_t function)>;

  // For each of `phases` (ascending; every call of each in this window, the
  // last call of each of its ranks a global synchronization), the ns its
  // closing synchronization would end sooner were `function`'s computation
  // (the context tree's function id) on each rank its mean over the
  // phase's ranks. `attribution` holds this window: each computation's
  // length.
  Expected<std::vector<int64_t>> Savings(const graph::Graph& g, const profile::Attribution& attribution,
                                         const Share& share, const std::vector<int32_t>& phases, int32_t function,
                                         int64_t run_start);

  // The ends after the window, for the next.
  void Advance(const graph::Graph& g) { base_.Advance(g, &ends_); }

 private:
  // The length of the longest path to each phase's closing exits (the
  // latest of its ranks'), over the processes.
  Expected<std::vector<int64_t>> Closing(const graph::Graph& g, const graph::LongestPath& lp,
                                         const std::vector<int32_t>& phases);
  Status Longest(const graph::Graph& g, int64_t run_start, graph::LongestPath* lp, const graph::Zeroing* zero);

  Across* across_;
  graph::LongestPath base_, changed_;
  std::vector<graph::RankEnd> ends_;
  std::vector<int64_t> cut_;
};

}  // namespace rp::diagnose

#endif  // RP_LIB_DIAGNOSE_WHAT_IF_H_
