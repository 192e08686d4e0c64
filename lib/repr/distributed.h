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

#include "lib/graph/distributed.h"
#include "lib/repr/path_sets.h"

namespace rp::repr {

class SetsPass : public graph::Pass {
 public:
  SetsPass(const graph::Graph& g, PathSets* sets, const std::vector<RankSet>& carried, int64_t run_start)
      : g_(g), sets_(sets) {
    sets->Prepare(g, carried, run_start);
  }
  void Visit(uint32_t node) override { sets_->Visit(g_, node); }
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

}  // namespace rp::repr

#endif  // RP_LIB_REPR_DISTRIBUTED_H_
