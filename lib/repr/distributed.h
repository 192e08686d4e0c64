// Path sets over a program activity graph split between the processes of
// a distributed analysis (lib/graph/distributed.h's replay): each process
// visits its ranks' nodes, and the sets of the entries other processes
// hold as ghosts travel to them (their costs: most costly first; a ghost's
// candidates say kRemote for where they came from, which its holder
// knows). Each node's set is the one the one-process PathSets gives it:
// the candidates at a join are compared by the nodes they come from, and
// ghosts sit among the events in the stream's order.
//
//   repr::SetsPass pass(g, &sets, carried, run_start);
//   RP_RETURN_IF_ERROR(graph::Replay(comm, g, ghosts, pass, &stats));
#ifndef RP_LIB_REPR_DISTRIBUTED_H_
#define RP_LIB_REPR_DISTRIBUTED_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "lib/base/status.h"
#include "lib/dist/comm.h"
#include "lib/graph/distributed.h"
#include "lib/match/distributed.h"
#include "lib/repr/path_sets.h"

namespace rp::repr {

class SetsPass final : public graph::Pass {
 public:
  SetsPass(const graph::Graph& g, PathSets* sets, const std::vector<RankSet>& carried, int64_t run_start)
      : g_(g), sets_(sets) {
    sets->Prepare(g, carried, run_start);
  }
  void Visit(uint32_t node) override { sets_->Visit(g_, node); }
  void VisitAll(const uint32_t* begin, const uint32_t* end) override { graph::VisitEach(this, begin, end); }
  void Put(uint32_t entry, dist::Packer* out) override {
    out->Put<uint8_t>(static_cast<uint8_t>(sets_->end(entry) - sets_->begin(entry)));
    for (const Candidate* c = sets_->begin(entry); c != sets_->end(entry); ++c) out->Put(c->cost);
  }
  void Get(uint32_t ghost_entry, dist::Unpacker* in) override {
    costs_.resize(in->Get<uint8_t>());
    for (int64_t& cost : costs_) cost = in->Get<int64_t>();
    // Every process keeps k: a longer set cannot come but from a damaged message.
    sets_->SetGhost(ghost_entry, costs_.data(), std::min(costs_.size(), static_cast<size_t>(sets_->k())));
  }

 private:
  const graph::Graph& g_;
  PathSets* sets_;
  std::vector<int64_t> costs_;
};

// A node of the window named alike on every process: its event's place in
// the stream and its side, which orders nodes as their indices do in the
// one-process window (entry 2e, exit 2e + 1).
struct NodeKey {
  int64_t phase = 0, t0 = 0, rank = 0, seq = 0, side = 0;
  auto operator<=>(const NodeKey&) const = default;
  static NodeKey Of(const graph::Graph& g, uint32_t node);
};

// A path PathSets::Union kept, over the processes: where it is.
struct Kept {
  int64_t cost = 0;
  int32_t process = -1;  // whose node (or carried path) it is
  uint32_t node = 0;     // there: an exit, or Candidate::kCarried
  uint32_t slot = 0;     // the node's slot, or the index in that process's `ended`
};

// PathSets::Union over every process's `nodes` (its ranks' exits) and
// `ended` paths (keys unique over the processes: rank * k + slot): the
// same k paths on every process, in the same order, with the same
// *positions and *total. Candidates are compared by the nodes they came
// from, named by (phase, t0, rank, seq, side) as the stream orders them.
Expected<std::vector<Kept>> UnionAcross(dist::Comm& comm, const PathSets& sets, const graph::Graph* g,
                                        const std::vector<uint32_t>& nodes,
                                        const std::vector<PathSets::Ended>& ended, std::vector<int>* positions,
                                        int* total);

// PathSets::Tasks for each of `kept` (UnionAcross's; a carried one has
// none here), walked across processes: where a walk reaches a ghost, the
// ghost's holder walks on. (*tasks)[j]: kept path j's tasks on this
// process's ranks, in time order; (*origins)[j]: where it came from (a
// carried set's rank and slot, or -1), the same on every process.
//
// A walk goes back along its path one process at a time, a round each:
// the tasks of all processes are in the path's order by round, the last
// first, then by their order on their process. WalkRounds says which.
struct WalkRounds {
  std::vector<std::vector<int32_t>> of_task;  // [j][i]: the round that found (*tasks)[j][i]
  // [j]: the lowest and the highest round that found any of path j's tasks
  // (its last and its first task; -1 without tasks), alike everywhere.
  std::vector<int32_t> first, last;
};
Status WalkAcross(dist::Comm& comm, const match::Owners& owners, const PathSets& sets, const graph::Graph& g,
                  const std::vector<Kept>& kept, std::vector<std::vector<Task>>* tasks,
                  std::vector<PathSets::Origin>* origins, WalkRounds* rounds = nullptr);

}  // namespace rp::repr

#endif  // RP_LIB_REPR_DISTRIBUTED_H_
