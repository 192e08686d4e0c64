// What rp-diagnose sums over the phases of a phase cluster, or of the run:
// each rank's computation, the load imbalance's symptom and causes
// (diagnosis paper §5.3.1), and the wait states (wait_states.h).
#ifndef RP_LIB_DIAGNOSE_TOTALS_H_
#define RP_LIB_DIAGNOSE_TOTALS_H_

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "lib/diagnose/figures.h"
#include "lib/diagnose/wait_states.h"

namespace rp::diagnose {

struct Totals {
  int64_t phases = 0;
  int64_t runtime = 0, ideal = 0;
  std::vector<int64_t> compute, mpi, wait;  // by rank
  std::vector<int64_t> closing_wait;        // by rank: at the closing synchronizations
  std::vector<bool> present;
  // Load imbalance, summed over the phases: the symptom avg - min of the
  // waiting at each phase's closing synchronization; and each function's
  // time by rank, whose max - avg is its imb_cause. That is taken of the
  // sums over the phases, not summed phase by phase: a function's sampled
  // time in one short phase is noisy, and the max of noisy equal values
  // is above their mean.
  double symptom = 0;
  double wasted = 0;   // sum over ranks of (wait - min): rank time lost
  int64_t closed = 0;  // phases that end at a global synchronization
  std::map<std::pair<int32_t, int32_t>, int64_t> closing;  // (site, MPI function) -> phases it closed
  struct Cause {
    std::vector<double> time;  // by rank: its time in the function
    // The paper's own measure, phase by phase: max - avg over the ranks in
    // each phase, summed; and how often each rank was the busiest. Where
    // the busiest rank changes between phases the sums above even out.
    double phase_excess = 0;
    std::vector<double> busiest;  // by rank: phases it was the busiest in
  };
  std::map<int32_t, Cause> causes;  // by function
  // Balancing a function (what_if.h), summed over the closed phases where
  // it was measured; the symptom of closed phases not measured (their
  // calls spread over windows), where the bound stands in.
  std::map<int32_t, int64_t> what_if;
  double unmeasured = 0;
  WaitSums waits;
  std::map<int32_t, SiteFigures> sites;  // by call site
  std::map<int32_t, std::vector<double>> posix_io;  // by function, by rank

  // MPMD (diagnosis paper §5.4): phases whose ranks run different programs,
  // and per program (by the sites its ranks call) the same imbalance sums
  // over its members.
  int64_t mpmd_phases = 0;
  struct Group {
    std::vector<bool> members;
    double symptom = 0;  // avg - min of the members' closing waits, summed
    int64_t closed = 0;
    std::map<int32_t, std::vector<double>> time;  // by function, by rank
  };
  std::map<std::vector<int32_t>, Group> groups;

  void Add(const PhaseFigures& f);

  int64_t ranks() const;
  std::vector<size_t> members() const;  // the ranks present
  // max - avg over the ranks present of a function's time, and each rank's
  // time above the mean.
  double CauseNs(const Cause& c) const { return MaxOverMean(c.time, members()); }
  std::vector<double> Excess(const Cause& c) const { return ExcessOverMean(c.time, members(), present.size()); }
  int64_t compute_max() const;
  int64_t compute_avg() const;
};

}  // namespace rp::diagnose

#endif  // RP_LIB_DIAGNOSE_TOTALS_H_
