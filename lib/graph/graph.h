// The program activity graph of one window (mpi-graph paper §3, "link
// corresponding local and remote operations"; online critical path paper
// §2.1, PAG): two nodes per MPI call, its entry (t0) and its exit (t1).
//
// Edges, each going forward in time:
//   compute   exit of a rank's call -> entry of its next call, weight the
//             time between them (the program edge);
//   local     entry -> exit of one call;
//   cross     from what a call depended on to its exit:
//               message   send start -> completion of its receive (Recv,
//                         Wait..., Test... that completed it); receive
//                         posting -> completion of its send when the send
//                         was still in that call (a late receiver);
//               all-to-all collective  every member's entry -> every exit;
//               rooted out (Bcast, Scatter)  root entry -> every exit;
//               rooted in (Reduce, Gather)   every member's entry -> root exit;
//               prefix (Scan, Exscan)        latest entry of ranks 0..i-1 -> exit i.
//             Many-to-one dependencies go through a hub node (the latest of
//             the entries), so a collective of n members adds 2n edges, not n².
//
// A call is ready when it has entered and every partner it depends on has:
// ready = max(t0, latest partner entry). Its local edge and every cross
// edge into its exit weigh t1 - ready, less the collector's own work in
// the call (Event::rp), so the longest path to an exit comes
// from whichever predecessor's path is longest, plus the time after the
// call was ready: the time a call spent waiting
// (wait = ready - t0) is never on a path unless nothing explains it (the
// mpi-graph rules from [2]: no waiting on the critical path), and with some
// edges weighed 0 (what-if zeroing) the same graph still says when each call
// could have finished. No edge weighs more than the time between its nodes,
// so no path is longer than the run.
//
// The path covers the application's time, between MPI_Init and
// MPI_Finalize: both calls weigh nothing (the computation before
// MPI_Finalize counts), and the run starts when the first MPI_Init returns.
//
// Cross edges that would go back in time (a receive ending before its send
// began: unsynchronized clocks) are dropped and counted; so are edges of a
// cycle (only possible among equal timestamps once clocks are repaired).
// Neighbourhood collectives get no cross edges: the trace does not record
// the topology.
#ifndef RP_LIB_GRAPH_GRAPH_H_
#define RP_LIB_GRAPH_GRAPH_H_

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "lib/match/match.h"
#include "lib/window/window.h"

namespace rp::graph {

inline constexpr uint32_t kNoNode = UINT32_MAX;

// Nodes 0 .. 2 * events - 1 are calls' entries and exits; hubs follow.
inline uint32_t Entry(uint32_t event) { return 2 * event; }
inline uint32_t Exit(uint32_t event) { return 2 * event + 1; }
inline uint32_t EventOf(uint32_t node) { return node >> 1; }
inline bool IsExit(uint32_t node) { return node & 1; }

struct CrossEdge {
  uint32_t from;   // an entry or a hub
  int64_t weight;  // the call's time after it was ready; < 0: dropped
};

// What building the graph had to leave out; non-zero counts make results
// partial.
struct GraphProblems {
  int64_t backward_edges = 0;    // dependency ending before it began (clocks)
  int64_t cycle_edges = 0;       // dropped to break a cycle
  int64_t negative_compute = 0;  // a call starting before the previous ended
  int64_t neighbour_collectives = 0;  // instances modelled without cross edges
  void Add(const GraphProblems& o) {
    backward_edges += o.backward_edges;
    cycle_edges += o.cycle_edges;
    negative_compute += o.negative_compute;
    neighbour_collectives += o.neighbour_collectives;
  }
};

class Graph {
 public:
  Graph() = default;
  Graph(const window::Window& window, const match::Matching& matching);

  const window::Window& window() const { return *w_; }
  uint32_t events() const { return static_cast<uint32_t>(w_->events.size()); }
  // Calls' entries and exits, then hubs.
  uint32_t nodes() const { return 2 * events() + static_cast<uint32_t>(hubs_.size()); }
  bool is_hub(uint32_t node) const { return node >= 2 * events(); }
  int64_t time(uint32_t node) const {
    if (is_hub(node)) return hubs_[node - 2 * events()].time;
    const window::Event& e = w_->events[EventOf(node)];
    return IsExit(node) ? e.t1 : e.t0;
  }
  const window::Event& event(uint32_t node) const { return w_->events[EventOf(node)]; }

  // The node before a call's node on its rank (kNoNode for a rank's first
  // entry in the window).
  uint32_t previous(uint32_t node) const {
    return IsExit(node) ? node - 1 : previous_exit_[EventOf(node)];
  }
  // Program edge into an entry: time since the rank's previous exit (0 for
  // a rank's first call in the window: the caller knows the boundary).
  int64_t compute(uint32_t event) const { return compute_[event]; }
  // Time a call spent waiting for its latest partner, and its local weight:
  // the rest of its time but the collector's own work; 0 for MPI_Init and
  // MPI_Finalize.
  int64_t wait(uint32_t event) const { return wait_[event]; }
  int64_t local(uint32_t event) const { return local_[event]; }
  // Cross edges into an exit node, sources in increasing node order.
  const CrossEdge* in_begin(uint32_t exit) const { return in_.data() + in_start_[EventOf(exit)]; }
  const CrossEdge* in_end(uint32_t exit) const { return in_.data() + in_start_[EventOf(exit) + 1]; }
  // A hub's member entries.
  const uint32_t* members_begin(uint32_t hub) const { return members_.data() + hubs_[hub - 2 * events()].begin; }
  const uint32_t* members_end(uint32_t hub) const { return members_.data() + hubs_[hub - 2 * events()].end; }
  // The entry of the latest partner a call depended on, kNoNode if none.
  uint32_t latest_partner(uint32_t event) const { return latest_[event]; }

  // Every node once, each after all its predecessors.
  const std::vector<uint32_t>& order() const { return order_; }
  // Each rank's first and last event in the window (kNoNode if none).
  uint32_t first_event(size_t rank) const { return rank < first_.size() ? first_[rank] : kNoNode; }
  uint32_t last_event(size_t rank) const { return rank < last_.size() ? last_[rank] : kNoNode; }
  size_t ranks() const { return first_.size(); }

  const GraphProblems& problems() const { return problems_; }
  // When the application's time starts, if this is the first window with
  // calls: the earliest exit of MPI_Init, or without one the earliest entry
  // of any call.
  int64_t application_start() const;

 private:
  struct Hub {
    uint32_t begin, end;  // into members_
    int64_t time;         // latest member entry
    uint32_t latest;      // that entry
  };
  // Dependencies as (exit event, source node) pairs; a source >= 2n is a hub.
  using Edges = std::vector<std::pair<uint32_t, uint32_t>>;
  void LinkRanks();
  void Depend(uint32_t source, uint32_t to, bool causal, Edges* edges);
  void AddMessage(const match::Message& m, Edges* edges);
  void AddCollective(const match::Collective& c, Edges* edges, std::vector<uint32_t>* hub_edges);
  void IndexCrossEdges(Edges* edges);
  // Source of a dependency: an entry node or a hub node.
  uint32_t AddHub(const std::vector<uint32_t>& entry_events);
  void Sort();
  void SetWait(uint32_t event);

  const window::Window* w_ = nullptr;
  std::vector<uint32_t> previous_exit_;
  std::vector<int64_t> compute_, wait_, local_;
  std::vector<uint32_t> in_start_;  // per event, into in_
  std::vector<CrossEdge> in_;
  std::vector<Hub> hubs_;
  std::vector<uint32_t> members_;
  std::vector<uint32_t> latest_;
  std::vector<uint32_t> order_;
  std::vector<uint32_t> first_, last_;
  GraphProblems problems_;
};

}  // namespace rp::graph

#endif  // RP_LIB_GRAPH_GRAPH_H_
