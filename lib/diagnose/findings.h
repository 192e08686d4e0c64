// rp-diagnose's findings, each from the sums of a phase cluster (or the
// run) and with one definition of severity: the run time its fix would
// save (`saved`), as a share of the run's time; a finding that saves
// nothing is not one (off-path hot spots excepted: their point is that).
//   load_imbalance  diagnosis paper §5.3.1, Table 2: significant when the
//                   symptom avg - min of the waiting at the closing
//                   synchronizations is; saved = the what-if of balancing
//                   the first cause (what_if.h), the symptom where no
//                   what-if was measured; causes: functions whose max - avg is
//                   at least cause_share of it; failing those, functions
//                   whose max - avg phase by phase, summed, is at least
//                   half of it (dynamic imbalance: the busiest rank
//                   changes). When no function is a
//                   cause but an MPI-IO site's time is uneven over the
//                   ranks, the I/O finding tells it.
//   serialisation   §3's special case of load imbalance: its first cause
//                   runs on one or a few ranks while the others wait.
//   MPMD clusters (§5.4: in most phases, two or more groups of at least two
//   ranks each follow different control flows) are diagnosed per group
//   instead: a load imbalance per
//   group from its members' waits and functions (saved: the bound), and
//     mpmd_imbalance  a group's mean computation above the mean of all
//                   ranks: saved = the difference (the groups' work
//                   evened out).
//   wait states     Scalasca's patterns (wait_states.h): saved = the
//                   pattern's waiting at the site averaged over the
//                   cluster's ranks (Table 2's avg(N) for "wait for
//                   partner"); causes: the delay costs.
//   communication and I/O, per call site, from its calls' own cost (their
//   time not waiting for others, `work`): saved is the what-if of the
//   site's calls taking no time (cp_zeroing mpi, for the run: each cluster
//   its share by the calls' cost) where the critical path's records give
//   it (calls off the path save nothing, one rank's calls on it their
//   whole time), else the cost averaged over the cluster's ranks (Table
//   2's avg(N)).
//     frequent_communication  Table 2: that average is significant and the
//                   calls are short (under 50 us each, 10 or more per
//                   calling rank);
//     polling       the same for Test.../Iprobe calls of which fewer than
//                   10% complete anything;
//     large_messages  Table 2's large message: the calls move 64 KiB or
//                   more each; saved = the average, without the what-if (a
//                   transfer holds both its ends, and one site's what-if
//                   leaves the other on the path);
//     io / serial_io  MPI-IO calls (their whole time, not only their
//                   work); serial when one or a few ranks do 90% of it,
//                   and then saved = max - avg over the ranks (spread
//                   over all of them), not the average.
//                   Also a function's computation that the samples find in
//                   POSIX I/O (read, write, fsync, ...): saved = its
//                   average over the ranks, at most the function's what-if
//                   (cp_zeroing function); not for a function an imbalance
//                   finding names first (that finding tells it).
//   critical path   from rp-cpath's run-wide records (path_records.h):
//     communication_on_path  a site's MPI calls on the path: saved = the
//                   what-if of their taking no time (cp_zeroing mpi); not
//                   for sites a communication or I/O finding names;
//     critical_computation  the path computes before a site's calls more
//                   than the average rank calling it does: saved = that
//                   excess, at most the what-if of the computation taking
//                   no time; not for sites an imbalance or wait-state
//                   finding names, nor for those whose computation is
//                   mostly the first cause of such a finding that saves at
//                   least as much (a chain of late senders saves only the
//                   average wait, the path's excess is the whole chain);
//     off_path_hotspot  a function computing at least 10% of all ranks'
//                   time and less than half that share of the path: saved =
//                   its what-if (small: optimising it will not shorten
//                   the run); kept whatever the threshold.
#ifndef RP_LIB_DIAGNOSE_FINDINGS_H_
#define RP_LIB_DIAGNOSE_FINDINGS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lib/diagnose/path_records.h"
#include "lib/diagnose/totals.h"
#include "lib/profile/context_tree.h"
#include "lib/trace/schema.h"
#include "lib/window/window.h"

namespace rp::diagnose {

struct FindingConfig {
  double threshold = 0.01;    // findings below this share of run time are dropped
  double cause_share = 0.10;  // a cause adds at least this share of its finding's loss
};

class Findings {
 public:
  Findings(const FindingConfig& config, const window::Dictionary& dict, const profile::ContextTree& tree);

  // Appends the findings of cluster `cluster` (kNone: the run) above the
  // threshold of `runtime`.
  void Imbalance(int64_t cluster, const Totals& t, int64_t runtime, std::vector<trace::FindingRecord>* out) const;
  void Groups(int64_t cluster, const Totals& t, int64_t runtime, std::vector<trace::FindingRecord>* out) const;
  void WaitStates(int64_t cluster, const Totals& t, int64_t runtime, std::vector<trace::FindingRecord>* out) const;
  // `run`: the run's sums; a site's run-wide what-if is shared among the
  // clusters in proportion to their calls' cost there.
  void Communication(int64_t cluster, const Totals& t, const Totals& run, int64_t runtime, const PathRecords& path,
                     std::vector<trace::FindingRecord>* out) const;
  // `named`: functions an imbalance finding names first.
  void PosixIo(int64_t cluster, const Totals& t, int64_t runtime, const PathRecords& path,
               const std::set<std::string>& named, std::vector<trace::FindingRecord>* out) const;
  // `callers(site)`: the ranks calling a site; `covered`: sites an
  // imbalance or wait-state finding already names, and `covered_causes`
  // the functions they name first, with the most such a finding saves (a
  // site whose computation is mostly one of them, by `dominant(site)`, is
  // that finding's too when it saves at least as much); `named`:
  // sites a communication or I/O finding names; `path_compute(site)`: the
  // path's computation before calls at the site, by rank.
  void CriticalPath(const PathRecords& p, const std::function<int64_t(int32_t)>& callers,
                    const std::function<std::string(int32_t)>& dominant,
                    const std::function<std::vector<double>(int32_t)>& path_compute, int64_t runtime,
                    const std::set<int64_t>& covered, const std::map<std::string, int64_t>& covered_causes,
                    const std::set<int64_t>& named, std::vector<trace::FindingRecord>* out) const;

 private:
  // Fills the finding's severity, cluster and call site; returns "MPI_X
  // (file:line)".
  std::string Locate(int64_t cluster, const Totals* t, int64_t saved, int64_t runtime, int32_t site, int32_t fn,
                     trace::FindingRecord* f) const;
  const std::string& Function(int32_t id) const { return tree_.functions()[id]; }
  // Sets the finding's causes ((ns, function) pairs, largest first);
  // returns their names.
  std::vector<std::string> SetCauses(const std::vector<std::pair<double, int32_t>>& causes,
                                     trace::FindingRecord* f) const;

  const FindingConfig& config_;
  std::map<int64_t, trace::SiteRecord> sites_;
  const profile::ContextTree& tree_;
};

// "ranks 2, 3 and 7" (at most 8 named).
std::string RankList(const std::vector<int64_t>& ranks);
// The ranks at least half as large as the largest, in rank order.
std::vector<int64_t> Heaviest(const std::vector<double>& by_rank);

}  // namespace rp::diagnose

#endif  // RP_LIB_DIAGNOSE_FINDINGS_H_
