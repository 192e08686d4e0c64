// The critical path of a run over the processes of a distributed analysis:
// CriticalPath (path.h) with the graph split by ranks, window after window.
//
// The longest paths come from a Replay of LengthPass (distributed.h).
// The paths ending at each rank's latest node are kept as in PathTree, a
// tree of the path's steps shared between ranks, here with one node per
// graph node on a path, held by the process of the node's rank; a node's
// parent may be another process's (its predecessor was a ghost here). The
// tree grows by walking back from each rank's last exit of the window;
// where a walk reaches a ghost, the ghost's process walks on from its own
// node, in rounds. A node shared by every rank's path (each node counts
// the ranks' latest nodes below it, added up from the leaves in rounds)
// is decided: its steps are the critical path for good, written after the
// window and forgotten, and the deepest of them is the tree's root from
// then on. What one process decides, sorted by time, interleaves with the
// others' to the path's order: along a path every step starts where the
// one before ended.
//
//   graph::DistributedPath cp(comm, owners);
//   for (each window) { ...; RP_RETURN_IF_ERROR(cp.Add(g, ghosts, &decided)); }  // this process's decided steps
//   RP_RETURN_IF_ERROR(cp.Finish(&rest));  // this process's steps of the rest; cp.length(), cp.end_rank()
#ifndef RP_LIB_GRAPH_DISTRIBUTED_PATH_H_
#define RP_LIB_GRAPH_DISTRIBUTED_PATH_H_

#include <cstdint>
#include <vector>

#include "lib/base/status.h"
#include "lib/dist/comm.h"
#include "lib/graph/distributed.h"
#include "lib/graph/graph.h"
#include "lib/graph/path.h"
#include "lib/match/distributed.h"

namespace rp::graph {

class DistributedPath {
 public:
  DistributedPath(dist::Comm& comm, const match::Owners& owners) : comm_(comm), owners_(&owners) {}

  // Every process, every window, its graph built distributed and its
  // ghosts: appends the steps of this process's ranks that became decided.
  Status Add(Graph& g, const match::Ghosts& ghosts, std::vector<Segment>* decided);
  // Appends this process's steps of the rest of the path.
  Status Finish(std::vector<Segment>* rest);

  bool started() const { return started_; }
  // Whether the window last added had calls on some process.
  bool window_had_calls() const { return window_had_calls_; }
  // The last window's ranks over every process (WindowExtent::ranks).
  int64_t window_ranks() const { return window_ranks_; }
  int64_t run_start() const { return run_start_; }
  int64_t length() const { return length_; }
  int32_t end_rank() const { return end_rank_; }
  // This process's ranks' longest paths so far (others' are not started).
  const std::vector<RankEnd>& ends() const { return ends_; }
  const LongestPath& longest() const { return lp_; }  // the last window's
  const ReplayStats& stats() const { return stats_; }
  size_t live_nodes() const { return nodes_.size() - free_.size(); }

 private:
  struct Ref {
    int32_t process = -1, id = -1;  // process -1: the run's start
    bool start() const { return process < 0; }
    bool operator==(const Ref&) const = default;
  };
  struct Node {
    std::vector<Segment> steps;
    Ref parent;
    int64_t time = 0;          // of its graph node
    int32_t leaves = 0;        // ranks whose latest node it is
    int32_t children = 0;      // counting: nodes whose parent it is, and those not yet added
    int32_t waiting = 0;
    int64_t below = 0;         // ranks' latest nodes at or below it
    int64_t most_below_child = 0;
    bool taken = false;        // the root: decided, its steps written
    bool live = false;
  };
  int32_t NewNode();
  void FreeNode(int32_t id);
  // The node of graph node `node` (this process's), walking back through
  // its predecessors as far as this process holds them; a chain that ends
  // at a ghost asks its process (requests_, answered next round).
  int32_t Walk(const Graph& g, uint32_t node);
  Status WalkAll(const Graph& g, const match::Ghosts& ghosts);
  Status Count();
  Status Decide(std::vector<Segment>* decided);
  // One round: `out_` to the processes, what they sent in `in`; true if
  // any process sent anything.
  Expected<bool> Round(std::vector<std::string>* in);

  dist::Comm& comm_;
  const match::Owners* owners_;
  bool started_ = false, window_had_calls_ = false;
  int64_t window_ranks_ = 0;
  int64_t run_start_ = 0, length_ = 0;
  int32_t end_rank_ = -1;
  std::vector<RankEnd> ends_;
  std::vector<Ref> refs_;  // by rank (this process's): its latest node
  LongestPath lp_;
  ReplayStats stats_;
  std::vector<Node> nodes_;
  std::vector<int32_t> free_;
  std::vector<int32_t> memo_;  // by graph node of the window being added
  const std::vector<RankEnd>* steps_ends_ = nullptr;  // the ends Steps reads (before the window)
  struct Request {  // a chain's bottom node waits to learn its parent
    int32_t child;
    int64_t rank, seq;
  };
  std::vector<std::vector<Request>> requests_;  // by process asked
  std::vector<dist::Packer> out_;
};

}  // namespace rp::graph

#endif  // RP_LIB_GRAPH_DISTRIBUTED_PATH_H_
