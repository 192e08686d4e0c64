// Longest paths through the program activity graph, window after window,
// and the critical path they define (online critical path paper §2.1,
// Figure 2: a forward pass keeping each node's longest incoming path and
// its predecessor, then a backward walk along the predecessors).
//
// Windows are processed in order; what one hands the next is, per rank,
// the length of the longest path to its last exit (RankEnd). Paths are
// kept as a tree of segments shared between ranks (PathTree): once every
// rank's path runs through the same segment, everything before it is the
// critical path for good and can be written and forgotten, so memory
// follows the part of the path still undecided, not the run.
#ifndef RP_LIB_GRAPH_PATH_H_
#define RP_LIB_GRAPH_PATH_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "lib/graph/graph.h"

namespace rp::graph {

// kRp: the collector's own work at the end of a call; like waiting, it
// adds nothing to a path's length.
enum class SegmentKind : uint8_t { kCompute, kMpi, kWait, kTransfer, kRp };
inline constexpr int kSegmentKinds = 5;
std::string_view KindName(SegmentKind kind);

// One step of a path: time on one rank between two nodes.
struct Segment {
  int64_t t0 = 0, t1 = 0;
  int64_t length = 0;  // what it adds to the path: t1 - t0, 0 for a wait or rp
  int32_t rank = 0;
  int32_t peer = window::kNone;   // transfer: the rank it came from
  int32_t site = window::kNone;   // the call's site (compute: the call it leads to)
  int32_t fn = -1;                // the call's mpi::kFunctions index
  int32_t phase = window::kNone;  // the call's phase (rp-phases)
  SegmentKind kind = SegmentKind::kCompute;
  bool operator==(const Segment&) const = default;
};

// A rank's longest path so far: its length and the time of its last node.
struct RankEnd {
  int64_t length = 0;
  int64_t time = 0;
  bool started = false;
};

// Edges a what-if weighs 0 (critical path zeroing, online CP paper §3):
// the program edges leading to calls at `site` (compute) or the calls at
// `site` themselves and the transfers they complete (mpi). With `cut`, the
// program edges are instead shortened by cut[e] ns each (the edge into
// event e): a procedure's share of each computation took no time.
struct Zeroing {
  int32_t site = window::kNone;
  bool compute = true;
  const int64_t* cut = nullptr;  // one per event of the window
};

// A procedure's share of the window's computations, for its what-if:
// `ns` off the program edge into `event`.
struct Cut {
  uint32_t event;
  int64_t ns;
};
struct ProcedureCuts {
  int32_t procedure;  // the caller's id
  std::vector<Cut> cuts;
};

class LongestPath {
 public:
  // Lengths for every node of `g`, starting from `ends` (each rank's path
  // before this window; a rank not started begins at `run_start`).
  void Run(const Graph& g, const std::vector<RankEnd>& ends, int64_t run_start, const Zeroing* zero = nullptr);
  // Run's steps, for a graph scheduled as ghosts' lengths arrive
  // (distributed.h): room for every node, then each node after its
  // predecessors; a ghost entry's length as its process sends it.
  void Prepare(const Graph& g);
  void Visit(const Graph& g, uint32_t node, const std::vector<RankEnd>& ends, int64_t run_start,
             const Zeroing* zero = nullptr);
  void SetGhost(uint32_t node, int64_t length) { length_[node] = length, pred_[node] = kNoNode; }

  int64_t length(uint32_t node) const { return length_[node]; }
  // kNoNode: the rank's path before this window (or the run's start).
  uint32_t predecessor(uint32_t node) const { return pred_[node]; }

  // Moves each rank's end past this window.
  void Advance(const Graph& g, std::vector<RankEnd>* ends) const;

  // The segments of the edge by which the longest path reaches `node`,
  // appended in time order (none for an edge of zero length).
  void Steps(const Graph& g, uint32_t node, const std::vector<RankEnd>& ends, int64_t run_start,
             std::vector<Segment>* out) const;

 private:
  std::vector<int64_t> length_;
  std::vector<uint32_t> pred_;
};

// Segments of the paths that end at each rank's latest node, as a tree
// sharing common prefixes; nodes are freed when no path uses them.
class PathTree {
 public:
  static constexpr int32_t kStart = -1;  // the run's start: no segment

  // Adds the segments of each rank's longest path through window `g` and
  // moves `refs` (one per rank, kStart at first) to their new ends.
  void AddWindow(const Graph& g, const LongestPath& lp, const std::vector<RankEnd>& ends, int64_t run_start,
                 std::vector<int32_t>* refs);

  // Appends, in time order, the segments all of `leaves` share that were
  // not taken before, and forgets them: the decided part of the path.
  void TakeShared(const std::vector<int32_t>& leaves, std::vector<Segment>* out);
  // Appends the segments from the last ones taken to `leaf`.
  void TakeTo(int32_t leaf, std::vector<Segment>* out) const;

  void Retain(int32_t node);
  void Release(int32_t node);
  size_t live() const { return nodes_.size() - free_.size(); }

 private:
  struct Node {
    Segment segment;
    int32_t parent = kStart;
    int32_t refs = 0;
    int64_t depth = 0;
    bool taken = false;
  };
  int32_t Add(const Segment& s, int32_t parent);
  int32_t Common(int32_t a, int32_t b) const;
  void Chain(int32_t leaf, std::vector<int32_t>* nodes) const;  // untaken, leaf first

  std::vector<Node> nodes_;
  std::vector<int32_t> free_;
  std::vector<int32_t> memo_;  // per graph node of the window being added
  std::vector<Segment> steps_;
};

// The critical path of a run, fed one window at a time:
//
//   CriticalPath cp;
//   for (each window) { Graph g(window, Match(window, dict)); cp.Add(g, &decided); emit(decided); }
//   cp.Finish(&rest);  // cp.length(), cp.end_rank()
//
// The run starts at the earliest entry of the first window with calls; the
// path ends at the rank whose longest path is longest (the lowest such rank).
class CriticalPath {
 public:
  // Appends the segments that became decided with this window.
  void Add(const Graph& g, std::vector<Segment>* decided);
  // Appends the rest of the path.
  void Finish(std::vector<Segment>* rest);

  bool started() const { return started_; }
  int64_t run_start() const { return run_start_; }
  int64_t length() const { return length_; }
  int32_t end_rank() const { return end_rank_; }
  // Each rank's longest path so far (before the window being added).
  const std::vector<RankEnd>& ends() const { return ends_; }
  size_t live_segments() const { return tree_.live(); }

 private:
  bool started_ = false;
  int64_t run_start_ = 0;
  int64_t length_ = 0;
  int32_t end_rank_ = -1;
  std::vector<RankEnd> ends_;
  std::vector<int32_t> refs_;
  LongestPath lp_;
  PathTree tree_;
};

// Critical path zeroing (online CP paper §3) for every site, and for every
// procedure whose cuts the caller gives: the length the critical path
// would have if the computation leading to calls at a site, or those
// calls, or a procedure's share of every computation, took no time —
// recomputed on the graph, so another path may become critical. Per
// window, one longest-path pass for each 16 sites' what-ifs (their lengths
// side by side) and one per procedure.
class Zeroings {
 public:
  // Call before cp.Add(g): `cp` gives the run's start and base lengths for
  // what-ifs first seen in this window. `procedures`: each procedure's cuts
  // in this window (procedures seen before and absent now have none).
  void Add(const Graph& g, const CriticalPath& cp, const std::vector<ProcedureCuts>& procedures = {});
  struct Result {
    int32_t site = window::kNone;  // kNone for a procedure
    bool compute = true;
    int32_t procedure = -1;        // ProcedureCuts::procedure
    int64_t length = 0;
  };
  // Sites in site order, compute before mpi; then procedures by id.
  std::vector<Result> Results() const;

  // Add's steps, for a distributed analysis (lib/graph/distributed.h),
  // whose processes hold their ranks' ends and agree on the keys:
  // the what-ifs `g`'s events and `procedures` name that are not kept yet
  // (as site ids, then procedure ids; sorted, once each).
  struct Fresh {
    std::vector<int32_t> sites, procedures;
  };
  Fresh FreshKeys(const Graph& g, const std::vector<ProcedureCuts>& procedures);
  // Keeps them (every process the same), starting from `ends`.
  void Insert(const Fresh& fresh, const std::vector<RankEnd>& ends);
  // The passes: batches of site what-ifs, then each procedure's.
  size_t site_keys() const;
  static constexpr size_t kBatch = 16;  // site what-ifs a pass
  void PrepareSites(const Graph& g, size_t first, size_t count);
  void VisitSites(const Graph& g, uint32_t node, int64_t run_start);
  int64_t* site_lengths(uint32_t node) { return &lengths_[static_cast<size_t>(node) * batch_]; }
  void AdvanceSites(const Graph& g);
  // Procedure key i (i >= site_keys()): its what-if with its cuts set on
  // this window's events (`cuts` sized by the events, returned to zero by
  // the caller), and its ends.
  const Zeroing* PrepareProcedure(const Graph& g, size_t i, const std::vector<ProcedureCuts>& procedures);
  void FinishProcedure(size_t i, const std::vector<ProcedureCuts>& procedures);
  std::vector<RankEnd>& ends(size_t i) { return ends_[i]; }
  size_t keys() const { return keys_.size(); }

 private:
  struct Key {
    int32_t kind;  // 0 site mpi, 1 site compute, 2 procedure
    int32_t id;
    auto operator<=>(const Key&) const = default;
  };
  void RunSites(const Graph& g, size_t first, size_t count, int64_t run_start);

  std::vector<bool> known_;  // by site: its keys are in keys_
  std::vector<Key> keys_;  // sorted: sites' (kinds 0, 1) before procedures'
  std::vector<std::vector<RankEnd>> ends_;
  LongestPath lp_;
  std::vector<int64_t> cut_;
  std::vector<int64_t> lengths_;  // RunSites: a batch's lengths, node by node
  // The batch being run (PrepareSites).
  size_t first_ = 0, batch_ = 0;
  int32_t site_[kBatch];
  bool compute_[kBatch];
  Zeroing zero_;
};

}  // namespace rp::graph

#endif  // RP_LIB_GRAPH_PATH_H_
