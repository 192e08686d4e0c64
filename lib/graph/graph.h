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

class Schedule;

class Graph {
 public:
  Graph() = default;
  // `distributed`: the window is one process's of a distributed analysis,
  // with ghosts (window::Event::ghost()) for its partners' events on other
  // processes: no edge goes into a ghost's exit (its own process builds
  // that), problems are counted for this process's calls only, and there
  // is no order() until its first replay: the nodes are scheduled as the
  // ghosts' path lengths arrive (Schedule, lib/graph/distributed.h).
  Graph(const window::Window& window, const match::Matching& matching, bool distributed = false);

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

  // Every node once, each after all its predecessors. A distributed graph
  // has none until its first replay, then the nodes that replay visited
  // (this process's calls and the hubs, no ghost) in its order, and its
  // rounds: where in that order each exchange came, and whether any
  // process sent values in it. Later replays follow them (Replay).
  const std::vector<uint32_t>& order() const { return order_; }
  bool distributed() const { return distributed_; }
  struct ReplayRound {
    uint32_t at;    // the exchange came after order()[at - 1]
    uint32_t sends; // ... and after replay_sends()[sends - 1]
    bool sent;      // some process sent values in it
  };
  bool replayed() const { return replayed_; }
  const std::vector<ReplayRound>& replay_rounds() const { return replay_rounds_; }
  // The entries whose values the replay sent (held as ghosts elsewhere), in its order.
  const std::vector<uint32_t>& replay_sends() const { return replay_sends_; }
  void SetReplay(std::vector<uint32_t> order, std::vector<ReplayRound> rounds, std::vector<uint32_t> sends) {
    order_ = std::move(order);
    replay_rounds_ = std::move(rounds);
    replay_sends_ = std::move(sends);
    replayed_ = true;
  }
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
  friend class Schedule;
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
  std::vector<ReplayRound> replay_rounds_;
  std::vector<uint32_t> replay_sends_;
  bool replayed_ = false;
  std::vector<uint32_t> first_, last_;
  GraphProblems problems_;
  bool distributed_ = false;
};

// Kahn's algorithm with one cursor per rank over a graph's nodes: a rank
// advances until its next node is an exit still waiting for a partner; a
// hub is placed as soon as its last member's entry is. Ghost entries (a
// distributed graph) are placed when Release says their lengths came.
// When every rank waits on another, the dependencies form a cycle (equal
// or inconsistent times): BreakCycle frees the earliest blocked exit from
// the dependencies it still awaits, weighing them -1 (dropped, counted).
class Schedule {
 public:
  explicit Schedule(Graph& g);
  // Places every node it can, calling placed(node) for each in order
  // (not for ghosts).
  template <typename Placed>
  void Advance(Placed&& placed);
  // A ghost entry's length came: it is placed, and what waited on it may be.
  template <typename Placed>
  void Release(uint32_t ghost_entry, Placed&& placed);
  // Every call of the graph's own ranks placed.
  bool done() const { return calls_placed_ == own_calls_; }
  // With nothing to place and not done: the exit to free, the earliest
  // blocked one by (time, node); kNoNode if none is blocked here.
  uint32_t Victim() const;
  void BreakCycle(uint32_t exit);
  // Hubs never placed (members that never entered: none in a whole graph).
  template <typename Placed>
  void PlaceLeftHubs(Placed&& placed);

 private:
  template <typename Placed>
  void Place(uint32_t source, bool call_placed, Placed&& placed);
  Graph& g_;
  uint32_t n_ = 0, total_ = 0;
  std::vector<uint32_t> out_start_, out_;
  std::vector<uint32_t> waiting_;  // exits by event, then hubs
  std::vector<uint8_t> done_;
  std::vector<size_t> cursor_;     // 2 * position + is-exit, by rank
  std::vector<uint8_t> blocked_;
  std::vector<uint32_t> ready_, released_;
  size_t calls_placed_ = 0, own_calls_ = 0;
};

template <typename Placed>
void Schedule::Place(uint32_t source, bool call_placed, Placed&& placed) {
  const std::vector<std::vector<uint32_t>>& by_rank = g_.w_->by_rank;
  released_.assign(1, source);
  bool first = true;
  while (!released_.empty()) {
    const uint32_t node = released_.back();
    released_.pop_back();
    if (!first || call_placed) placed(node);
    first = false;
    done_[node] = 1;
    for (uint32_t i = out_start_[node]; i < out_start_[node + 1]; ++i) {
      const uint32_t to = out_[i];
      if (to >= 2 * n_) {
        if (--waiting_[n_ + (to - 2 * n_)] == 0) released_.push_back(to);
        continue;
      }
      const uint32_t e = EventOf(to);
      if (done_[to] || waiting_[e] == 0) continue;  // freed by a cycle break
      if (--waiting_[e] == 0) {
        const uint32_t rank = static_cast<uint32_t>(g_.w_->events[e].rank);
        if (rank < blocked_.size() && blocked_[rank] && by_rank[rank][cursor_[rank] / 2] == e) {
          blocked_[rank] = 0;
          ready_.push_back(rank);
        }
      }
    }
  }
}

template <typename Placed>
void Schedule::Advance(Placed&& placed) {
  const std::vector<std::vector<uint32_t>>& by_rank = g_.w_->by_rank;
  while (!ready_.empty()) {
    const uint32_t r = ready_.back();
    ready_.pop_back();
    const std::vector<uint32_t>& events = by_rank[r];
    while (cursor_[r] < 2 * events.size()) {
      const uint32_t e = events[cursor_[r] / 2];
      const bool exit = cursor_[r] & 1;
      if (exit && waiting_[e] > 0) {
        blocked_[r] = 1;
        break;
      }
      ++cursor_[r];
      ++calls_placed_;
      if (exit) {
        placed(Exit(e));
        done_[Exit(e)] = 1;
      } else {
        Place(Entry(e), true, placed);
      }
    }
  }
}

template <typename Placed>
void Schedule::Release(uint32_t ghost_entry, Placed&& placed) {
  if (!done_[ghost_entry]) Place(ghost_entry, false, placed);
}

template <typename Placed>
void Schedule::PlaceLeftHubs(Placed&& placed) {
  for (uint32_t h = 2 * n_; h < total_; ++h) {
    if (!done_[h]) {
      placed(h);
      done_[h] = 1;
    }
  }
}

// What each process's part of a window says of it, added up over the
// processes (dist::AllreduceValue): where the run starts (window::
// ApplicationStart of the whole window: the earliest exit of MPI_Init, or
// without one the earliest entry of any call), its calls, and its ranks
// (one past the highest with calls, as a one-process window's by_rank).
struct WindowExtent {
  int64_t init_exit = INT64_MAX, entry = INT64_MAX, events = 0, ranks = 0;
  void Add(const WindowExtent& o) {
    init_exit = std::min(init_exit, o.init_exit), entry = std::min(entry, o.entry);
    events += o.events, ranks = std::max(ranks, o.ranks);
  }
  // The run's start if this is its first window with calls (INT64_MAX: none).
  int64_t start() const { return init_exit != INT64_MAX ? init_exit : entry; }
  // This process's part (ghosts count where they are held).
  static WindowExtent Of(const Graph& g);
};


}  // namespace rp::graph

#endif  // RP_LIB_GRAPH_GRAPH_H_
