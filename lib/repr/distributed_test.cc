// SetsPass over threads as processes: on a generated trace split between
// 1-4 processes, every node of every process's calls gets the path set it
// gets in the one-process PathSets (each candidate's cost, the node it
// came from, named by rank, seq and side, and its slot there), window
// after window with each rank's set carried on; with the computation cost
// and k = 5, and with the wall cost and k = 3.
#include "lib/repr/distributed.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// One process's sets, window after window, each rank's set carried on.
void ForEachSets(const window::TestWindows& whole, const Config& config,
                 const std::function<void(const graph::Graph&, const PathSets&)>& each) {
  PathSets sets(config);
  std::vector<RankSet> carried;
  int64_t run_start = 0;
  bool started = false;
  for (const window::Window& w : whole.windows) {
    const graph::Graph g(w, match::Match(w, whole.dict));
    if (!started && g.events() > 0) started = true, run_start = g.application_start();
    sets.Run(g, carried, run_start);
    each(g, sets);
    sets.Carry(g, &carried);
  }
}

// The same on process comm.rank() of a split trace, the sets replayed.
void ForEachSetsAcross(dist::Comm& comm, const std::string& index, const Config& config,
                       const std::function<void(const match::Owners&, const graph::Graph&, const PathSets&)>& each) {
  PathSets sets(config);
  std::vector<RankSet> carried;
  int64_t run_start = 0;
  bool started = false;
  graph::ReplayStats stats;
  match::ForEachWindowAcross(comm, index, [&](const match::Owners& owners, window::Window& w,
                                              const match::Matching& m, const match::Ghosts& ghosts) {
    graph::Graph g(w, m, true);
    match::RunStartAcross(comm, w.events.empty() ? INT64_MAX : g.application_start(), &started, &run_start);
    SetsPass pass(g, &sets, carried, run_start);
    const Status status = graph::Replay(comm, g, ghosts, pass, &stats);
    ASSERT_TRUE(status.ok()) << status.message();
    each(owners, g, sets);
    sets.Carry(g, &carried);
  });
}

void ExpectSameSets(const std::string& name, const std::string& text, const std::vector<std::pair<int, int>>& groups,
                    int processes, const Config& config) {
  const window::TestWindows whole = window::ReadWindows(text);
  Sets expected;
  ForEachSets(whole, config, [&](const graph::Graph& g, const PathSets& sets) {
    Collect(g, sets, [](int64_t) { return true; }, &expected);
  });
  ASSERT_GT(expected.size(), 100u);
  const std::string index = trace::WriteSplit(name, text, groups);
  std::mutex mu;
  Sets got;
  dist::LocalGroup::Run(processes, [&](dist::Comm& comm) {
    Sets mine;
    ForEachSetsAcross(comm, index, config, [&](const match::Owners& owners, const graph::Graph& g, const PathSets& sets) {
      Collect(g, sets, [&](int64_t rank) { return owners.Of(rank) == comm.rank(); }, &mine);
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

// Each window's union at every rank's last exit (a phase's end), and the
// kept paths' tasks: "cost|positions|tasks (rank.seq[t0,t1]+cost, by rank
// and seq)|origin", per window.
std::string DescribeTasks(std::vector<std::string> tasks) {
  std::sort(tasks.begin(), tasks.end());
  std::string out;
  for (const std::string& t : tasks) out += t + " ";
  return out;
}
std::string TaskName(const graph::Graph& g, const Task& t) {
  const window::Event& e = g.window().events[t.event];
  return std::to_string(e.rank) + "." + std::to_string(e.seq) + "[" + std::to_string(t.t0) + "," +
         std::to_string(t.t1) + "]+" + std::to_string(t.cost);
}
std::vector<uint32_t> LastExits(const graph::Graph& g) {
  std::vector<uint32_t> nodes;
  for (const auto& events : g.window().by_rank) {
    if (!events.empty()) nodes.push_back(graph::Exit(events.back()));
  }
  return nodes;
}

void ExpectSameKept(const std::string& name, const std::string& text, const std::vector<std::pair<int, int>>& groups,
                    int processes, const Config& config) {
  const window::TestWindows whole = window::ReadWindows(text);
  std::vector<std::string> expected;  // per window
  std::vector<Task> tasks;
  ForEachSets(whole, config, [&](const graph::Graph& g, const PathSets& sets) {
    std::vector<int> positions;
    int total = 0;
    std::string window;
    for (const Candidate& c : sets.Union(&g, LastExits(g), {}, &positions, &total)) {
      const PathSets::Origin origin = sets.Tasks(g, c, &tasks);
      std::vector<std::string> names;
      for (const Task& t : tasks) names.push_back(TaskName(g, t));
      window += std::to_string(c.cost) + "|" + DescribeTasks(names) + "|" + std::to_string(origin.carried_rank) + "." +
                std::to_string(origin.carried_slot) + "\n";
    }
    for (int p : positions) window += std::to_string(p) + " ";
    expected.push_back(window + "of " + std::to_string(total));
  });
  const std::string index = trace::WriteSplit(name, text, groups);
  std::mutex mu;
  std::vector<std::vector<std::vector<std::string>>> names(expected.size());  // window, path, tasks
  std::vector<std::string> got(expected.size());
  dist::LocalGroup::Run(processes, [&](dist::Comm& comm) {
    size_t window = 0;
    ForEachSetsAcross(comm, index, config, [&](const match::Owners& owners, const graph::Graph& g, const PathSets& sets) {
      std::vector<int> positions;
      int total = 0;
      auto kept = UnionAcross(comm, sets, &g, LastExits(g), {}, &positions, &total);
      ASSERT_TRUE(kept.ok()) << kept.status().message();
      std::vector<std::vector<Task>> tasks;
      std::vector<PathSets::Origin> origins;
      const Status walked = WalkAcross(comm, owners, sets, g, *kept, &tasks, &origins);
      ASSERT_TRUE(walked.ok()) << walked.message();
      {
        std::lock_guard lock(mu);
        names[window].resize(kept->size());
        for (size_t j = 0; j < kept->size(); ++j) {
          for (const Task& t : tasks[j]) names[window][j].push_back(TaskName(g, t));
        }
        if (comm.rank() == 0) {
          std::string text;
          for (size_t j = 0; j < kept->size(); ++j) {
            text += std::to_string((*kept)[j].cost) + "|\x01" + std::to_string(j) + "|" +
                    std::to_string(origins[j].carried_rank) + "." + std::to_string(origins[j].carried_slot) + "\n";
          }
          for (int p : positions) text += std::to_string(p) + " ";
          got[window] = text + "of " + std::to_string(total);
        }
      }
      ++window;
    });
  });
  for (size_t window = 0; window < expected.size(); ++window) {
    std::string text = got[window];
    for (size_t j = 0; j < names[window].size(); ++j) {
      const std::string mark = "\x01" + std::to_string(j) + "|";
      const size_t at = text.find(mark);
      ASSERT_NE(at, std::string::npos);
      text.replace(at, mark.size(), DescribeTasks(names[window][j]) + "|");
    }
    EXPECT_EQ(text, expected[window]) << name << " on " << processes << " processes, window " << window;
  }
}

TEST(UnionAndWalkAcross, KeptPathsAndTheirTasksAreTheOneProcessOnes) {
  const std::string text = match::MixedTrace(6, 5);
  const Config compute{.k = 5, .select = Select::kRepr, .cost = Cost::kCompute, .reset_at_phase = false};
  const Config wall{.k = 4, .select = Select::kTopK, .cost = Cost::kWall, .reset_at_phase = false};
  for (int processes : {1, 2, 3, 4}) {
    ExpectSameKept("kept-3", text, {{0, 1}, {2, 3}, {4, 5}}, processes, compute);
    ExpectSameKept("kept-6", text, {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}, processes, compute);
    ExpectSameKept("kept-wall", text, {{0, 2}, {3, 5}}, processes, wall);
  }
}

}  // namespace
}  // namespace rp::repr
