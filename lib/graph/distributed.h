// A window's longest paths over the processes of a distributed analysis
// (mpirun -np P rp-<stage>-mpi): each process holds its ranks' part of the
// program activity graph, with ghosts for its partners' events on other
// processes (lib/match/distributed.h), and the passes over the graph run
// as a replay (Scalasca's parallel replay; the mpi-graph paper's
// distributed graph, §4.3): each process places its nodes in a
// topological order (Schedule) as far as it can, then sends the values of
// its entries that others hold as ghosts to those processes only, and
// goes on with what they sent, round after round, until every process has
// placed all its calls. A round is one Comm::ExchangeAndSum (the values,
// and how many processes have nodes left and how many values were sent,
// added up: one MPI_Alltoall, and an MPI_Alltoallv when values travel); a window takes as many rounds as its longest chain of
// dependencies crosses between processes, plus one.
//
// Every node gets the value it gets in the one-process graph: its
// predecessors are the same events, compared in the same order (ghosts sit
// in the window in the stream's order). A cycle (inconsistent times) is
// found when no process can go on: the earliest blocked exit over all
// processes, by time and then by the stream's order, is freed, as the
// one-process Schedule frees it.
//
//   graph::LengthPass pass(g, ends, run_start, &lp);
//   RP_RETURN_IF_ERROR(graph::Replay(comm, g, ghosts, pass, &stats));
#ifndef RP_LIB_GRAPH_DISTRIBUTED_H_
#define RP_LIB_GRAPH_DISTRIBUTED_H_

#include <cstdint>
#include <vector>

#include "lib/base/status.h"
#include "lib/dist/comm.h"
#include "lib/graph/graph.h"
#include "lib/graph/path.h"
#include "lib/match/distributed.h"

namespace rp::graph {

// What a pass computes at each node, and what of an entry's value the
// processes holding it as a ghost need (a fixed size a pass).
class Pass {
 public:
  virtual ~Pass() = default;
  virtual void Visit(uint32_t node) = 0;
  // Visit for each node of [begin, end) in turn: a later replay's stretch
  // between exchanges in one call (VisitEach gives a final pass's).
  virtual void VisitAll(const uint32_t* begin, const uint32_t* end) = 0;
  virtual void Put(uint32_t entry, dist::Packer* out) = 0;
  virtual void Get(uint32_t ghost_entry, dist::Unpacker* in) = 0;
};

// A final pass's VisitAll: its own Visit, called directly.
template <typename FinalPass>
void VisitEach(FinalPass* pass, const uint32_t* begin, const uint32_t* end) {
  for (; begin != end; ++begin) pass->FinalPass::Visit(*begin);
}

// LongestPath over a distributed graph.
class LengthPass final : public Pass {
 public:
  LengthPass(const Graph& g, const std::vector<RankEnd>& ends, int64_t run_start, LongestPath* lp,
             const Zeroing* zero = nullptr)
      : g_(g), ends_(ends), run_start_(run_start), lp_(lp), zero_(zero) {
    lp->Prepare(g);
  }
  void Visit(uint32_t node) override { lp_->Visit(g_, node, ends_, run_start_, zero_); }
  void VisitAll(const uint32_t* begin, const uint32_t* end) override { VisitEach(this, begin, end); }
  void Put(uint32_t entry, dist::Packer* out) override { out->Put<int64_t>(lp_->length(entry)); }
  void Get(uint32_t ghost_entry, dist::Unpacker* in) override { lp_->SetGhost(ghost_entry, in->Get<int64_t>()); }

 private:
  const Graph& g_;
  const std::vector<RankEnd>& ends_;
  const int64_t run_start_;
  LongestPath* lp_;
  const Zeroing* zero_;
};

// Zeroings' batched site what-ifs over a distributed graph.
class SitesPass final : public Pass {
 public:
  SitesPass(const Graph& g, Zeroings* z, int64_t run_start) : g_(g), z_(z), run_start_(run_start) {}
  void Visit(uint32_t node) override { z_->VisitSites(g_, node, run_start_); }
  void VisitAll(const uint32_t* begin, const uint32_t* end) override { VisitEach(this, begin, end); }
  void Put(uint32_t entry, dist::Packer* out) override;
  void Get(uint32_t ghost_entry, dist::Unpacker* in) override;
  size_t batch = 0;

 private:
  const Graph& g_;
  Zeroings* z_;
  const int64_t run_start_;
};

struct ReplayStats {
  int64_t rounds = 0, values_sent = 0, bytes_sent = 0, cycles_broken = 0;
};

// Runs `pass` over `g` (built distributed) with every other process's
// replay of the same window. `g` is changed only by a cycle break.
Status Replay(dist::Comm& comm, Graph& g, const match::Ghosts& ghosts, Pass& pass, ReplayStats* stats);

// Critical path zeroing over a distributed graph (Zeroings::Add's steps):
// the what-ifs every process's events and `procedures` (ids the same on
// every process) name, kept alike everywhere, each started from `ends`
// (this process's ranks' before the window); the passes replayed. Call
// after the window's main pass (which breaks its cycles), for a window
// with calls on some process.
Status ZeroAcross(dist::Comm& comm, Graph& g, const match::Ghosts& ghosts, const std::vector<RankEnd>& ends,
                  int64_t run_start, const std::vector<ProcedureCuts>& procedures, Zeroings* z, ReplayStats* stats);
// Zeroings::Results over every process's ranks.
Expected<std::vector<Zeroings::Result>> ZeroingResults(dist::Comm& comm, const Zeroings& z);

}  // namespace rp::graph

#endif  // RP_LIB_GRAPH_DISTRIBUTED_H_
