// Representative path sets on one window's program activity graph
// (representative paths paper §4, Figure 3, applied offline to lib/graph):
// every node holds up to k paths that represent all paths reaching it,
// most costly first. Paths branch wherever a node has several successors
// (a send's start feeds its receive's completion and the rank's next call)
// and join at a call's exit and at a collective's hub, where the
// candidates of every incoming edge (the rank's own k, each partner's k;
// at an all-to-all collective the members' kP) give k by Choose (select.h)
// over their exact union. A path's cost is the computation on it (§7.3:
// its tasks, the program edges), or with Cost::kWall its length as the
// longest-path pass measures it (LongestPath): the most costly path is
// then the critical path.
//
// Each candidate remembers the node and slot it came from, so a kept path
// is walked back into its tasks (Tasks) without storing any path.
//
//   PathSets sets({.k = 5});
//   sets.Run(g, carried, run_start);
//   std::vector<Candidate> end = sets.Union(g, last_nodes);   // a phase's end
//   sets.Tasks(g, end[0], &tasks);                          // its tasks
#ifndef RP_LIB_REPR_PATH_SETS_H_
#define RP_LIB_REPR_PATH_SETS_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "lib/graph/graph.h"
#include "lib/repr/select.h"

namespace rp::repr {

enum class Cost { kCompute, kWall };

struct Config {
  int k = 5;
  Select select = Select::kRepr;
  Cost cost = Cost::kCompute;
  // Paths start afresh at each rank's first call of a new phase (the
  // event's `phase`), as the paper's phases do; otherwise they run on.
  bool reset_at_phase = true;
};

// A path as a node holds it.
struct Candidate {
  static constexpr uint32_t kStart = UINT32_MAX;        // begins at this node
  static constexpr uint32_t kCarried = UINT32_MAX - 1;  // continues a carried set's slot
  static constexpr uint32_t kRemote = UINT32_MAX - 2;   // a ghost's: its holder knows whence
  int64_t cost = 0;
  uint32_t from = kStart;  // the node it came from
  uint32_t slot = 0;       // its slot there (kCarried: in the rank's carried set)
};

// A rank's set where its last window ended, and where that was.
struct RankSet {
  std::vector<Candidate> paths;  // most costly first
  int64_t time = 0;              // its last call's exit
  int32_t phase = window::kNone;
  bool started = false;
};

// One task on a path: the computation before `event` on its rank.
struct Task {
  uint32_t event;
  int64_t t0, t1;  // its computation
  int64_t cost;    // what it adds to the path's cost
};

class PathSets {
 public:
  explicit PathSets(const Config& config) : config_(config) {}

  // Sets for every node of `g`, starting from `carried` (by rank; a rank
  // not started begins at `run_start`).
  void Run(const graph::Graph& g, const std::vector<RankSet>& carried, int64_t run_start);
  // Run's steps, for a pass over a graph split between processes
  // (SetsPass, lib/repr/distributed.h): Prepare, then Visit each node in a
  // topological order, a ghost's entry set by its holder's sets (their
  // costs, most costly first) before the nodes after it.
  void Prepare(const graph::Graph& g, const std::vector<RankSet>& carried, int64_t run_start);
  void Visit(const graph::Graph& g, uint32_t node);
  void SetGhost(uint32_t entry, const int64_t* costs, size_t count);
  int k() const { return config_.k; }
  Select select() const { return config_.select; }

  const Candidate* begin(uint32_t node) const { return &paths_[size_t{node} * config_.k]; }
  const Candidate* end(uint32_t node) const { return begin(node) + count_[node]; }

  // A path that ended in an earlier window: a slot of a rank's carried
  // set (a rank with no calls since). `key` names the path: the same key
  // for the same path carried by several ranks.
  struct Ended {
    int64_t cost;
    uint32_t key;
  };
  // The k paths representing all paths at `nodes` of `g` (a phase's end:
  // each rank's last exit) and `ended`, a path reaching several of them
  // counted once. A kept ended path is {cost, Candidate::kCarried, its
  // index in `ended`}. *positions gets each kept path's place among the
  // *total distinct candidates, most costly first (for its percentile).
  // `g` may be null when `nodes` is empty.
  std::vector<Candidate> Union(const graph::Graph* g, const std::vector<uint32_t>& nodes,
                               const std::vector<Ended>& ended = {}, std::vector<int>* positions = nullptr,
                               int* total = nullptr) const;
  // Each rank's set after this window, for the next.
  void Carry(const graph::Graph& g, std::vector<RankSet>* carried) const;

  // The tasks of `path` in this window, in time order, and where it came
  // from: slot `carried_slot` of rank `carried_rank`'s carried set, or -1
  // for both when it starts here. Over a graph split between processes
  // the walk stops at a ghost's entry (its holder walks on from there):
  // `remote` is that node and `remote_slot` the slot.
  struct Origin {
    int32_t carried_rank = -1;
    int carried_slot = -1;
    uint32_t remote = graph::kNoNode;
    uint32_t remote_slot = 0;
  };
  Origin Tasks(const graph::Graph& g, const Candidate& path, std::vector<Task>* out) const;

  // Where a candidate reached through a hub really came from: the same
  // (node, slot) for the same path at every exit the hub fed.
  std::pair<uint32_t, uint32_t> Source(const graph::Graph& g, uint32_t from, uint32_t slot) const;

 private:
  // Keeps the k of scratch_ (runs_ of sets in Before order) at `node`.
  void Keep(uint32_t node);
  // The order of a node's set: the most costly first, then by the node
  // and slot it came from.
  static bool Before(const Candidate& a, const Candidate& b) {
    if (a.cost != b.cost) return a.cost > b.cost;
    return a.from != b.from ? a.from < b.from : a.slot < b.slot;
  }
  static constexpr size_t kMergeRuns = 8;  // more are sorted
  int64_t TaskWeight(const graph::Graph& g, uint32_t entry, const std::vector<RankSet>& carried,
                     int64_t run_start) const;

  Config config_;
  std::vector<Candidate> paths_;  // k per node
  std::vector<uint8_t> count_;
  // A candidate with the path it really is: where it came from before any
  // hub (a path can reach a node along two edges, a call's own entry and
  // the hub of the collective that entry is in).
  struct Keyed {
    std::pair<uint32_t, uint32_t> origin;
    Candidate c;
  };
  // The most costly first; ties by origin, so the choice does not depend
  // on input order.
  static void SortByCost(std::vector<Keyed>* keyed);
  // The same with one candidate per path (a path reaches a phase's end on
  // every rank its hub fed).
  static void SortUnique(std::vector<Keyed>* keyed);

  std::vector<Candidate> scratch_, merged_;
  std::vector<uint32_t> runs_;  // where each sorted run of scratch_ begins
  std::vector<uint32_t> hub_of_;  // by event: the hub its entry is a member of
  std::vector<int> chosen_;
  // For Tasks: each rank's carried set and start, as Run saw them.
  std::vector<RankSet> carried_;
  int64_t run_start_ = 0;
};

}  // namespace rp::repr

#endif  // RP_LIB_REPR_PATH_SETS_H_
