// SetsPass over threads as processes: on a generated trace split between
// 1-4 processes, every node of every process's calls gets the path set it
// gets in the one-process PathSets (each candidate's cost, the node it
// came from, named by rank, seq and side, and its slot there), window
// after window with each rank's set carried on; with the computation cost
// and k = 5, and with the wall cost and k = 3.
#include "lib/repr/distributed.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "lib/dist/local_comm.h"
#include "lib/match/testing.h"
#include "lib/trace/testing.h"
#include "lib/window/testing.h"

namespace rp::repr {
namespace {

std::string NodeName(const graph::Graph& g, uint32_t node) {
  if (node == Candidate::kStart) return "start";
  if (node == Candidate::kCarried) return "carried";
  if (node == Candidate::kRemote) return "remote";
  if (g.is_hub(node)) return "hub<" + NodeName(g, *g.members_begin(node)) + ">";
  const window::Event& e = g.event(node);
  return std::to_string(e.rank) + "." + std::to_string(e.seq) + (graph::IsExit(node) ? "x" : "e");
}

// Each call node's set, by its name, for the calls of ranks `local` says.
using Sets = std::map<std::string, std::string>;
void Collect(const graph::Graph& g, const PathSets& sets, const std::function<bool(int64_t)>& local, Sets* out) {
  for (uint32_t e = 0; e < g.events(); ++e) {
    const window::Event& ev = g.window().events[e];
    if (ev.ghost() || !local(ev.rank)) continue;
    for (uint32_t node : {graph::Entry(e), graph::Exit(e)}) {
      std::string set;
      for (const Candidate* c = sets.begin(node); c != sets.end(node); ++c) {
        set += std::to_string(c->cost) + "<" + NodeName(g, c->from) + ":" + std::to_string(c->slot) + " ";
      }
      (*out)[NodeName(g, node)] = set;
    }
  }
}

void ExpectSameSets(const std::string& name, const std::string& text, const std::vector<std::pair<int, int>>& groups,
                    int processes, const Config& config) {
  const window::TestWindows whole = window::ReadWindows(text);
  Sets expected;
  {
    PathSets sets(config);
    std::vector<RankSet> carried;
    int64_t run_start = 0;
    bool started = false;
    for (const window::Window& w : whole.windows) {
      const graph::Graph g(w, match::Match(w, whole.dict));
      if (!started && g.events() > 0) started = true, run_start = g.application_start();
      sets.Run(g, carried, run_start);
      Collect(g, sets, [](int64_t) { return true; }, &expected);
      sets.Carry(g, &carried);
    }
  }
  ASSERT_GT(expected.size(), 100u);
  const std::string index = trace::WriteSplit(name, text, groups);
  std::mutex mu;
  Sets got;
  dist::LocalGroup::Run(processes, [&](dist::Comm& comm) {
    const int me = comm.rank();
    PathSets sets(config);
    std::vector<RankSet> carried;
    int64_t run_start = 0;
    bool started = false;
    Sets mine;
    graph::ReplayStats stats;
    match::ForEachWindowAcross(comm, index, [&](const match::Owners& owners, window::Window& w,
                                                const match::Matching& m, const match::Ghosts& ghosts) {
      graph::Graph g(w, m, true);
      if (!started) {
        std::vector<std::string> all =
            *comm.Allgather(std::to_string(w.events.empty() ? INT64_MAX : g.application_start()));
        int64_t least = INT64_MAX;
        for (const std::string& s : all) least = std::min<int64_t>(least, std::stoll(s));
        if (least != INT64_MAX) started = true, run_start = least;
      }
      SetsPass pass(g, &sets, carried, run_start);
      const Status status = graph::Replay(comm, g, ghosts, pass, &stats);
      ASSERT_TRUE(status.ok()) << status.message();
      Collect(g, sets, [&](int64_t rank) { return owners.Of(rank) == me; }, &mine);
      sets.Carry(g, &carried);
    });
    std::lock_guard lock(mu);
    got.insert(mine.begin(), mine.end());
  });
  EXPECT_EQ(got, expected) << name << " on " << processes << " processes";
}

TEST(SetsPass, SetsAreTheOneProcessSets) {
  const std::string text = match::MixedTrace(6, 5);
  const Config compute{.k = 5, .select = Select::kRepr, .cost = Cost::kCompute, .reset_at_phase = false};
  const Config wall{.k = 3, .select = Select::kTopK, .cost = Cost::kWall, .reset_at_phase = false};
  for (int processes : {1, 2, 3, 4}) {
    ExpectSameSets("sets-3", text, {{0, 1}, {2, 3}, {4, 5}}, processes, compute);
    ExpectSameSets("sets-6", text, {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}, processes, compute);
    ExpectSameSets("sets-wall", text, {{0, 2}, {3, 5}}, processes, wall);
  }
}

}  // namespace
}  // namespace rp::repr
