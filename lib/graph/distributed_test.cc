// Replay over threads as processes: on generated traces split between 1-4
// processes, every node of every process's calls gets the length and the
// predecessor it gets in the one-process graph, window after window (each
// rank's path carried from one to the next), a second replay of a window
// (following the first one's order) gives the same values, and a cycle of
// inconsistent times is broken where the one-process schedule breaks it.
#include "lib/graph/distributed.h"
#include "lib/graph/distributed_path.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "lib/dist/local_comm.h"
#include "lib/match/testing.h"
#include "lib/trace/testing.h"
#include "lib/window/testing.h"

namespace rp::graph {
namespace {

std::string NodeName(const Graph& g, uint32_t node, const LongestPath& lp) {
  if (node == kNoNode) return "start";
  if (g.is_hub(node)) return "hub<" + NodeName(g, lp.predecessor(node), lp) + ">";
  const window::Event& e = g.event(node);
  return std::to_string(e.rank) + "." + std::to_string(e.seq) + (IsExit(node) ? "x" : "e");
}

// Each call node's "length pred", by its name, for the calls of ranks `local` says.
using Values = std::map<std::string, std::string>;
void Collect(const Graph& g, const LongestPath& lp, const std::function<bool(int64_t)>& local, Values* out) {
  for (uint32_t e = 0; e < g.events(); ++e) {
    const window::Event& ev = g.window().events[e];
    if (ev.ghost() || !local(ev.rank)) continue;
    for (uint32_t node : {Entry(e), Exit(e)}) {
      (*out)[NodeName(g, node, lp)] = std::to_string(lp.length(node)) + " " + NodeName(g, lp.predecessor(node), lp);
    }
  }
}

void ExpectSameLengths(const std::string& name, const std::string& text, const std::vector<std::pair<int, int>>& groups,
                       int processes, int64_t expected_cycle_edges = 0) {
  // One process.
  const window::TestWindows whole = window::ReadWindows(text);
  Values expected;
  std::vector<RankEnd> ends;
  int64_t run_start = 0, cycle_edges = 0;
  bool started = false;
  for (const window::Window& w : whole.windows) {
    const match::Matching m = match::Match(w, whole.dict);
    const Graph g(w, m);
    if (!started && g.events() > 0) started = true, run_start = g.application_start();
    LongestPath lp;
    lp.Run(g, ends, run_start);
    Collect(g, lp, [](int64_t) { return true; }, &expected);
    lp.Advance(g, &ends);
    cycle_edges += g.problems().cycle_edges;
  }
  ASSERT_EQ(cycle_edges, expected_cycle_edges);
  // Distributed.
  const std::string index = trace::WriteSplit(name, text, groups);
  std::mutex mu;
  Values got;
  int64_t got_cycle_edges = 0, rounds = 0;
  dist::LocalGroup::Run(processes, [&](dist::Comm& comm) {
    const int me = comm.rank();
    std::vector<RankEnd> ends;
    int64_t run_start = 0, cycles = 0;
    bool started = false;
    Values mine;
    ReplayStats stats;
    match::ForEachWindowAcross(comm, index, [&](const match::Owners& owners, const window::Window& w,
                                                const match::Matching& m,
                                                const match::Ghosts& ghosts) {
      Graph g(w, m, true);
      // The run's start, as the one process finds it: the first window with calls.
      match::RunStartAcross(comm, w.events.empty() ? INT64_MAX : g.application_start(), &started, &run_start);
      LongestPath lp;
      LengthPass pass(g, ends, run_start, &lp);
      Status status = Replay(comm, g, ghosts, pass, &stats);
      ASSERT_TRUE(status.ok()) << status.message();
      const auto local = [&](int64_t rank) { return owners.Of(rank) == me; };
      Collect(g, lp, local, &mine);
      // A second replay of the window follows the first one's order and
      // rounds (cycle broken included): the same values.
      LongestPath again;
      LengthPass second(g, ends, run_start, &again);
      status = Replay(comm, g, ghosts, second, &stats);
      ASSERT_TRUE(status.ok()) << status.message();
      Values first, replayed;
      Collect(g, lp, local, &first);
      Collect(g, again, local, &replayed);
      EXPECT_EQ(replayed, first);
      lp.Advance(g, &ends);
      cycles += g.problems().cycle_edges;
    });
    std::lock_guard lock(mu);
    got.insert(mine.begin(), mine.end());
    got_cycle_edges += cycles;
    rounds = std::max(rounds, stats.rounds);
  });
  EXPECT_EQ(got, expected) << name << " on " << processes << " processes";
  EXPECT_EQ(got_cycle_edges, expected_cycle_edges);
  EXPECT_GT(rounds, 0);
}

TEST(Replay, LengthsAndPredecessorsAreTheOneProcessGraphs) {
  const std::string text = match::MixedTrace(6, 5);
  for (int processes : {1, 2, 3, 4}) {
    ExpectSameLengths("replay-3", text, {{0, 1}, {2, 3}, {4, 5}}, processes);
    ExpectSameLengths("replay-6", text, {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}, processes);
  }
}

// Each rank receives from the other, then sends to it, all at one time:
// each receive's exit waits on the other's send, which comes after the
// other's receive (equal timestamps), a cycle.
TEST(Replay, BreaksACycleWhereOneProcessBreaksIt) {
  using window::TestMpi;
  const std::string message = R"(,"tag":1,"bytes":8)";
  const std::string text = window::TestHeader(2) + TestMpi(0, 0, "MPI_Init", 0, 10) + TestMpi(1, 0, "MPI_Init", 0, 10) +
                           TestMpi(0, 1, "MPI_Recv", 20, 40, R"(,"peer":1)" + message) +
                           TestMpi(1, 1, "MPI_Recv", 20, 40, R"(,"peer":0)" + message) +
                           TestMpi(0, 2, "MPI_Send", 40, 45, R"(,"peer":1)" + message) +
                           TestMpi(1, 2, "MPI_Send", 40, 45, R"(,"peer":0)" + message) +
                           TestMpi(0, 3, "MPI_Finalize", 80, 90) + TestMpi(1, 3, "MPI_Finalize", 80, 90);
  for (int processes : {1, 2}) ExpectSameLengths("replay-cycle", text, {{0, 0}, {1, 1}}, processes, 1);
}

std::string Describe(const std::vector<Segment>& steps) {
  std::string out;
  for (const Segment& s : steps) {
    out += std::to_string(s.rank) + ":" + std::string(KindName(s.kind)) + "[" + std::to_string(s.t0) + "," +
           std::to_string(s.t1) + "]" + std::to_string(s.length) + "/" + std::to_string(s.site) + "/" +
           std::to_string(s.peer) + " ";
  }
  return out;
}

// The critical path decided after each window, and the rest at the end.
struct PathSteps {
  std::vector<std::string> decided;  // per window
  std::string rest;
  int64_t length = 0;
  int32_t end_rank = -1;
};

void ExpectSamePath(const std::string& name, const std::string& text, const std::vector<std::pair<int, int>>& groups,
                    int processes) {
  const window::TestWindows whole = window::ReadWindows(text);
  PathSteps expected;
  CriticalPath cp;
  for (const window::Window& w : whole.windows) {
    const match::Matching m = match::Match(w, whole.dict);
    const Graph g(w, m);
    std::vector<Segment> decided;
    cp.Add(g, &decided);
    expected.decided.push_back(Describe(decided));
  }
  std::vector<Segment> rest;
  cp.Finish(&rest);
  expected.rest = Describe(rest);
  expected.length = cp.length();
  expected.end_rank = cp.end_rank();
  ASSERT_GT(expected.length, 0);
  // Most windows decide part of the path; the rest is the last window's.
  size_t deciding = 0;
  for (const std::string& d : expected.decided) deciding += !d.empty();
  ASSERT_GE(2 * deciding, expected.decided.size());
  ASSERT_FALSE(expected.rest.empty());

  const std::string index = trace::WriteSplit(name, text, groups);
  std::mutex mu;
  std::vector<std::vector<Segment>> decided(whole.windows.size());
  std::vector<Segment> got_rest;
  PathSteps got;
  dist::LocalGroup::Run(processes, [&](dist::Comm& comm) {
    std::unique_ptr<DistributedPath> path;  // made with the processes' groups, at the first window
    size_t index_of_window = 0;
    match::ForEachWindowAcross(comm, index, [&](const match::Owners& owners, const window::Window& w,
                                                const match::Matching& m,
                                                const match::Ghosts& ghosts) {
      if (!path) path = std::make_unique<DistributedPath>(comm, owners);
      Graph g(w, m, true);
      std::vector<Segment> mine;
      Status status = path->Add(g, ghosts, &mine);
      ASSERT_TRUE(status.ok()) << status.message();
      std::lock_guard lock(mu);
      decided[index_of_window].insert(decided[index_of_window].end(), mine.begin(), mine.end());
      ++index_of_window;
    });
    ASSERT_TRUE(path);
    std::vector<Segment> mine;
    ASSERT_TRUE(path->Finish(&mine).ok());
    std::lock_guard lock(mu);
    got_rest.insert(got_rest.end(), mine.begin(), mine.end());
    got.length = path->length();
    got.end_rank = path->end_rank();
  });
  auto by_time = [](std::vector<Segment> steps) {
    std::sort(steps.begin(), steps.end(), [](const Segment& a, const Segment& b) { return a.t0 < b.t0; });
    return steps;
  };
  for (const auto& d : decided) got.decided.push_back(Describe(by_time(d)));
  got.rest = Describe(by_time(got_rest));
  EXPECT_EQ(got.decided, expected.decided) << name << " on " << processes << " processes";
  EXPECT_EQ(got.rest, expected.rest) << name << " on " << processes << " processes";
  EXPECT_EQ(got.length, expected.length);
  EXPECT_EQ(got.end_rank, expected.end_rank);
}

TEST(DistributedPath, DecidesTheOneProcessPathWindowByWindow) {
  const std::string text = match::MixedTrace(6, 5);
  for (int processes : {1, 2, 3, 4}) {
    ExpectSamePath("path-3", text, {{0, 1}, {2, 3}, {4, 5}}, processes);
    ExpectSamePath("path-6", text, {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}, processes);
  }
}

}  // namespace
}  // namespace rp::graph
