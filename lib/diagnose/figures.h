// What rp-diagnose measures of each phase (diagnosis paper §5.3; POP
// efficiencies), per rank, read window by window: computation (split over
// functions by lib/profile's attribution), time in MPI, waiting
// (lib/graph's split of each call into wait and execution), the waiting at
// the phase's closing synchronization, the wait states elsewhere and
// their delay costs (wait_states.h), and the phase's ideal time: its
// longest path of computation alone (lib/repr's path sets with the
// compute cost), the run's length if MPI took no time.
//
//   Figures figures(dict);
//   for (each window w) RP_RETURN_IF_ERROR(figures.AddWindow(*w, &ended));
//   figures.Finish(&ended);          // each PhaseFigures once, in phase order
#ifndef RP_LIB_DIAGNOSE_FIGURES_H_
#define RP_LIB_DIAGNOSE_FIGURES_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "lib/base/status.h"
#include "lib/diagnose/timeline.h"
#include "lib/diagnose/wait_states.h"
#include "lib/diagnose/what_if.h"
#include "lib/graph/window_graphs.h"
#include "lib/phases/distributed.h"
#include "lib/profile/attribution.h"
#include "lib/repr/path_sets.h"
#include "lib/window/window.h"

namespace rp::diagnose {

struct RankFigures {
  bool present = false;      // the rank has calls in the phase
  int64_t compute = 0;       // ns of computation before its calls in the phase
  int64_t mpi = 0;           // ns in its calls (not MPI_Init or MPI_Finalize)
  int64_t wait = 0;          // ns of those waiting (before or after its part)
  int64_t closing_wait = 0;  // ns waiting for others at the phase's last call, a global synchronization
  bool closed = false;                   // its last call so far is a global synchronization
  int32_t closing_site = window::kNone;  // that call's site (kNone also when the record has none)
  int32_t closing_fn = -1;               // and MPI function
  // The distinct sites it called (diagnosis paper §5.4: ranks calling
  // different code run different programs), and the last, so that a call
  // repeated in a row is not searched for again.
  std::vector<int32_t> sites;
  int32_t last_site = window::kNone;
  // A wait state at its last call so far, a global synchronization: held
  // back while it may be the phase's closing one, whose waiting is the
  // load imbalance's symptom, not a wait state of its own.
  struct Held {
    WaitKey key;
    int32_t delayer = 0;
    int64_t wait = 0;
    DelayCost cost;
  };
  std::optional<Held> held;
};

// The calls at one call site in a phase (or summed over a cluster): what
// the communication and I/O findings read.
struct SiteFigures {
  int32_t fn = -1;             // the MPI function called there
  int64_t calls = 0;
  int64_t time = 0;            // ns in the calls
  int64_t work = 0;            // ns of it not waiting for others (nor the collector's own)
  int64_t bytes = 0;           // moved: sent, received, or completed (Wait...), or found by a probe
  int64_t hits = 0;            // Test...: calls that completed a request; Iprobe: that found a message
  std::vector<int64_t> ranks;  // time in the calls, by rank

  void Add(const SiteFigures& o);
};

// max - mean of `by_rank` over `ranks` (a rank beyond it counts 0): the
// imbalance of a value over a set of ranks (diagnosis paper §5.3.1's
// imb_cause), and each rank's part above the mean.
template <typename V, typename I>
double MaxOverMean(const V& by_rank, const std::vector<I>& ranks) {
  double sum = 0, most = 0;
  for (I r : ranks) {
    const double x = static_cast<size_t>(r) < by_rank.size() ? static_cast<double>(by_rank[r]) : 0;
    sum += x;
    most = std::max(most, x);
  }
  return ranks.empty() ? 0 : most - sum / static_cast<double>(ranks.size());
}
template <typename V, typename I>
std::vector<double> ExcessOverMean(const V& by_rank, const std::vector<I>& ranks, size_t size) {
  double sum = 0;
  for (I r : ranks) sum += static_cast<size_t>(r) < by_rank.size() ? static_cast<double>(by_rank[r]) : 0;
  std::vector<double> excess(size);
  for (I r : ranks) {
    const double x = static_cast<size_t>(r) < by_rank.size() ? static_cast<double>(by_rank[r]) : 0;
    if (static_cast<size_t>(r) < size) excess[r] = std::max(0.0, x - sum / static_cast<double>(ranks.size()));
  }
  return excess;
}

struct PhaseFigures {
  int32_t phase = window::kNone;  // kNone: the run, without phases
  int64_t cluster = -1;           // rp-phases' cluster; -1 without one
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;  // from its first task's start to its last call's end
  int64_t ideal = 0;
  std::vector<RankFigures> ranks;
  // Computation by function (the context tree's function id), per rank.
  std::map<int32_t, std::vector<int64_t>> functions;
  WaitSums waits;  // but the waiting at its closing synchronization
  std::map<int32_t, SiteFigures> sites;  // by call site
  // Computation the samples find in POSIX I/O (read, write, fsync, ...:
  // the innermost frame), by the application function doing it, by rank.
  std::map<int32_t, std::vector<int64_t>> posix_io;
  // Balancing's what-ifs (what_if.h), when all its calls lay in one window
  // and every rank ended it at a global synchronization: by function (those
  // whose max - avg is at least cause_share of the symptom), the ns its
  // closing would end sooner.
  bool balance_measured = false;
  std::map<int32_t, int64_t> what_if;
  int64_t first_window = -1;

  int64_t time() const { return t1 > t0 ? t1 - t0 : 0; }
  // avg - min over `ranks` of their waiting at the closing synchronization:
  // the load imbalance's symptom (diagnosis paper §5.3.1).
  double Symptom(const std::vector<size_t>& ranks) const;
};

// What decides which balancing what-ifs a phase gets (MeasureBalance):
// its ranks' closings and each function's spread over them, in sums that
// add up over processes holding disjoint ranks.
struct BalanceChoice {
  int32_t phase = window::kNone;
  int64_t first_window = INT64_MAX;  // the least window any of its ranks had calls in
  bool closed = true;                // every rank's last call a global synchronization
  int64_t members = 0;               // ranks with calls
  int64_t wait_sum = 0, wait_least = INT64_MAX;  // their waiting at the closing synchronization
  std::map<int32_t, std::pair<int64_t, int64_t>> functions;  // function -> (sum, greatest) over the members

  void Add(const BalanceChoice& o);
};

// What Figures needs of the other processes when a window's ranks are
// split between them (distributed.h's FiguresAcrossProcesses); without
// it, one process. Every process calls each in the same turn.
class FiguresAcross {
 public:
  virtual ~FiguresAcross() = default;
  // Whether this process reads `rank`'s records (the others' are ghosts).
  virtual bool Holds(int32_t rank) const = 0;
  // The window's extent over the processes (graph::WindowExtent).
  virtual Expected<graph::WindowExtent> Extent(const graph::Graph& g) = 0;
  // The union of every process's `phases` (ascending).
  virtual Status Union(std::vector<int32_t>* phases) = 0;
  // The window's phase records and calls by phase, from every process.
  virtual Status ShareEnds(const window::Window& w, phases::SharedPhaseEnds* ends) = 0;
  // `sets` over the window's graph, replayed.
  virtual Status Sets(graph::Graph& g, repr::PathSets* sets, const std::vector<repr::RankSet>& carried,
                      int64_t run_start) = 0;
  // The delayers' (ghosts') side of their delay costs, from their holders.
  virtual Status Sides(const graph::Graph& g, const profile::Attribution& attribution,
                       const std::vector<uint32_t>& delayers, std::vector<Side>* sides) = 0;
  // Each choice added up over the processes, by phase (ascending).
  virtual Status Choices(std::vector<BalanceChoice>* choices) = 0;
  // The balancing what-if's passes (set to each window's graph by the
  // caller before AddWindow).
  virtual Across* balance() = 0;
};

class Figures {
 public:
  // `cause_share`: the functions whose balancing what-if is measured have
  // an imbalance (max - avg) of at least this share of the phase's symptom.
  // `across`: the other processes (null: none; it must outlive this).
  Figures(const window::Dictionary& dict, double cause_share, FiguresAcross* across = nullptr);
  Status NoteRecords(const window::Dictionary& dict) { return ends_.NoteRecords(dict); }

  // Adds a window; appends the phases that ended to *ended. With `across`,
  // only the ranks this process holds are measured, and a window's graph
  // may change (a replay breaks its cycles).
  Status AddWindow(graph::WindowGraph& w, std::vector<PhaseFigures>* ended);
  // The phases still open end here.
  void Finish(std::vector<PhaseFigures>* ended);

  // The phases the last AddWindow ended, in the order it ended them, alike
  // on every process (some may have had no calls here); after Finish, the
  // phases this process ended.
  const std::vector<int32_t>& ended_order() const { return ended_order_; }
  bool started() const { return started_; }
  bool phased() const { return phased_; }
  int64_t run_start() const { return run_start_; }
  int64_t run_end() const { return run_end_; }
  const profile::Attribution& attribution() const { return attribution_; }
  // How many ranks made calls at `site`.
  int64_t callers(int32_t site) const;
  // The function with the most computation before calls at `site`, over
  // all ranks (the context tree's id), -1 if none.
  int32_t DominantFunction(int32_t site) const;
  Timeline& timeline() { return timeline_; }
  const Timeline& timeline() const { return timeline_; }
  // A step of the run's critical path: drawn in the timeline; its
  // computation before calls at a site, by rank, names the ranks a
  // critical computation runs on.
  void PathStep(const trace::CpSegmentRecord& s, const StreamPlace& place);
  // The path's computation before calls at `site`, by rank (empty if none).
  std::vector<double> PathCompute(int32_t site) const;

  // The run-wide tables the findings read (callers, the computations'
  // split by function, the path's computation, the timeline, the run's
  // end), packed by processes holding disjoint ranks and merged into one
  // (rp-diagnose-mpi's writer).
  void PackTables(dist::Packer* out) const;
  Status MergeTables(dist::Unpacker* in);

 private:
  PhaseFigures& At(int32_t phase, size_t ranks);
  // The balancing what-ifs of the phases of window `g` that lie whole in it.
  Status MeasureBalance(graph::Graph& g);
  // Whether this process measures `rank`.
  bool Held(int32_t rank) const;
  void End(int32_t phase, std::vector<PhaseFigures>* ended);

  FiguresAcross* across_;
  phases::SharedPhaseEnds ends_;
  profile::Attribution attribution_;
  repr::PathSets sets_;
  WaitStates states_;
  Timeline timeline_;
  BalanceWhatIf balance_;
  std::vector<int64_t> moved_;  // by event of the window: bytes of the messages it started or completed
  // Each (rank, call site)'s computations before calls there over the run
  // so far, and their split by function: the what-if's shares.
  struct Mix {
    int64_t ns = 0;
    std::vector<std::pair<int32_t, int64_t>> functions;
  };
  std::unordered_map<uint64_t, Mix> mix_;  // by MixKey
  static uint64_t MixKey(int32_t rank, int32_t site) {
    return (uint64_t{static_cast<uint32_t>(rank)} << 32) | static_cast<uint32_t>(site);
  }
  double Share(int32_t rank, int32_t site, int32_t function) const;
  // Whether a context tree node's own function is POSIX I/O, by function id.
  bool PosixIo(int32_t function);
  std::vector<int8_t> posix_io_;  // by function id: -1 unknown, 0 no, 1 yes
  double cause_share_;
  int64_t window_index_ = -1;
  std::vector<repr::RankSet> carried_;
  std::map<int32_t, PhaseFigures> open_;
  std::vector<int32_t> ended_order_;
  std::unordered_map<int32_t, std::vector<bool>> callers_;  // by site: the ranks calling it
  std::unordered_map<int32_t, std::vector<double>> path_compute_;  // by site, by rank
  bool started_ = false, phased_ = false;
  int64_t run_start_ = 0, run_end_ = INT64_MIN;
};

}  // namespace rp::diagnose

#endif  // RP_LIB_DIAGNOSE_FIGURES_H_
