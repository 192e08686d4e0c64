// Representative paths of tiny traces worked out by hand (times in ns;
// every rank's MPI_Init returns at 10, where the application's time and
// the paths start).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "lib/graph/graph.h"
#include "lib/graph/path.h"
#include "lib/repr/path_sets.h"
#include "lib/repr/select.h"
#include "lib/window/testing.h"

namespace rp::repr {
namespace {

using window::TestHeader;
using window::TestMpi;

TEST(Select, ReprKeepsUniformPercentiles) {
  std::vector<int> out;
  Choose(Select::kRepr, 8, 5, &out);  // 7 * j / 4: 0, 1.75, 3.5, 5.25, 7
  EXPECT_EQ(out, (std::vector<int>{0, 2, 4, 5, 7}));
  Choose(Select::kRepr, 3, 5, &out);
  EXPECT_EQ(out, (std::vector<int>{0, 1, 2}));
  Choose(Select::kRepr, 10, 2, &out);
  EXPECT_EQ(out, (std::vector<int>{0, 9}));
  EXPECT_DOUBLE_EQ(NominalPercentile(1, 5), 75.0);
}

TEST(Select, TopKKeepsBothEnds) {
  std::vector<int> out;
  Choose(Select::kTopK, 8, 4, &out);
  EXPECT_EQ(out, (std::vector<int>{0, 1, 6, 7}));
  Choose(Select::kTopK, 8, 5, &out);
  EXPECT_EQ(out, (std::vector<int>{0, 1, 5, 6, 7}));
}

struct Analysed {
  window::TestTrace trace;
  match::Matching matching;
  graph::Graph graph;
  std::unique_ptr<PathSets> sets;
  std::vector<Candidate> end;  // the union of every rank's last exit
};

std::unique_ptr<Analysed> Analyse(const std::string& text, Config config) {
  auto a = std::make_unique<Analysed>();
  a->trace = window::ReadOneWindow(text);
  a->matching = match::Match(a->trace.window, a->trace.dict);
  a->graph = graph::Graph(a->trace.window, a->matching);
  a->sets = std::make_unique<PathSets>(config);
  a->sets->Run(a->graph, {}, a->graph.application_start());
  std::vector<uint32_t> last;
  for (size_t r = 0; r < a->graph.ranks(); ++r) last.push_back(graph::Exit(a->graph.last_event(r)));
  a->end = a->sets->Union(&a->graph, last);
  return a;
}

std::vector<int64_t> Costs(const std::vector<Candidate>& paths) {
  std::vector<int64_t> out;
  for (const Candidate& c : paths) out.push_back(c.cost);
  return out;
}

// Rank r computes (r + 1) * 100 before a Barrier all leave at 900.
std::string Staircase(int ranks) {
  std::string t = TestHeader(ranks);
  for (int r = 0; r < ranks; ++r) {
    t += TestMpi(r, 0, "MPI_Init", 0, 10);
    t += TestMpi(r, 1, "MPI_Barrier", 10 + (r + 1) * 100, 900);
    t += TestMpi(r, 2, "MPI_Finalize", 900, 910);
  }
  return t;
}

TEST(PathSets, AllToAllKeepsOrderStatisticsOfEveryRanksPath) {
  auto a = Analyse(Staircase(8), Config{.k = 5});
  EXPECT_EQ(Costs(a->end), (std::vector<int64_t>{800, 600, 400, 300, 100}));
  auto t = Analyse(Staircase(8), Config{.k = 4, .select = Select::kTopK});
  EXPECT_EQ(Costs(t->end), (std::vector<int64_t>{800, 700, 200, 100}));
}

TEST(PathSets, TiesAreBrokenTheSameWayEveryTime) {
  // Ranks 1 and 2 both compute 300: the lower node (rank 1's) goes first.
  std::string t = TestHeader(3);
  for (int r = 0; r < 3; ++r) {
    t += TestMpi(r, 0, "MPI_Init", 0, 10);
    t += TestMpi(r, 1, "MPI_Barrier", r == 0 ? 110 : 310, 400);
    t += TestMpi(r, 2, "MPI_Finalize", 400, 410);
  }
  auto a = Analyse(t, Config{.k = 2});
  ASSERT_EQ(Costs(a->end), (std::vector<int64_t>{300, 100}));
  std::vector<Task> tasks;
  const PathSets::Origin origin = a->sets->Tasks(a->graph, a->end[0], &tasks);
  ASSERT_FALSE(tasks.empty());
  EXPECT_EQ(a->trace.window.events[tasks.front().event].rank, 1);
  EXPECT_EQ(origin.carried_slot, -1);
}

// Rank 0 receives from a wildcard (rank 2, per the status) and from rank
// 1 in one Waitall; ranks 1 and 2 computed 200 and 400 before sending.
std::string WildcardWaitall() {
  std::string t = TestHeader(3);
  t += TestMpi(0, 0, "MPI_Init", 0, 10) + TestMpi(1, 0, "MPI_Init", 0, 10) + TestMpi(2, 0, "MPI_Init", 0, 10);
  t += TestMpi(0, 1, "MPI_Irecv", 20, 21, R"(,"peer":-1,"tag":-1,"bytes":8,"req":1)");
  t += TestMpi(0, 2, "MPI_Irecv", 22, 23, R"(,"peer":1,"tag":7,"bytes":8,"req":2)");
  t += TestMpi(1, 1, "MPI_Send", 210, 220, R"(,"peer":0,"tag":7,"bytes":8)");
  t += TestMpi(2, 1, "MPI_Send", 410, 420, R"(,"peer":0,"tag":5,"bytes":8)");
  t += TestMpi(0, 3, "MPI_Waitall", 30, 500,
               R"(,"completed":[1,2],"resolved":[{"req":1,"peer":2,"tag":5,"bytes":8}])");
  t += TestMpi(0, 4, "MPI_Finalize", 600, 610) + TestMpi(1, 2, "MPI_Finalize", 600, 610) +
       TestMpi(2, 2, "MPI_Finalize", 600, 610);
  return t;
}

TEST(PathSets, AWaitallJoinsItsOwnPathsWithEverySendersPaths) {
  auto a = Analyse(WildcardWaitall(), Config{.k = 3});
  // Rank 0 computed 10 + 1 + 7 = 18 before the Waitall, which joins it
  // with rank 1's 200 and rank 2's 400; then 100 more: 500, 300, 118.
  // Ranks 1 and 2 end on their own paths: 200 + 380 and 400 + 180.
  // Of 580, 580, 500, 300, 118: the 100%, 50% and 0% paths.
  EXPECT_EQ(Costs(a->end), (std::vector<int64_t>{580, 500, 118}));
  std::vector<Task> tasks;
  a->sets->Tasks(a->graph, a->end[1], &tasks);
  // The 500 path: rank 2's 400 before its Send, then rank 0's 100.
  ASSERT_EQ(tasks.size(), 3u);  // rank 2: Send (400), Finalize (180 is not on it); rank 0: Finalize
  std::vector<std::pair<int32_t, int64_t>> got;
  for (const Task& t : tasks) got.emplace_back(a->trace.window.events[t.event].rank, t.cost);
  EXPECT_EQ(got, (std::vector<std::pair<int32_t, int64_t>>{{2, 0}, {2, 400}, {0, 100}}));
}

TEST(PathSets, TheMostCostlyWallClockPathIsTheCriticalPath) {
  for (const std::string& trace : {Staircase(8), WildcardWaitall()}) {
    auto a = Analyse(trace, Config{.k = 4, .cost = Cost::kWall});
    graph::CriticalPath cp;
    std::vector<graph::Segment> path;
    cp.Add(a->graph, &path);
    cp.Finish(&path);
    EXPECT_EQ(a->end.front().cost, cp.length());
  }
}

TEST(PathSets, ARootedCollectiveJoinsEachMemberWithTheRoot) {
  // Bcast from rank 0, which computes 290 before it; rank 1 computes 40.
  std::string t = TestHeader(2);
  t += TestMpi(0, 0, "MPI_Init", 0, 10) + TestMpi(1, 0, "MPI_Init", 0, 10);
  t += TestMpi(0, 1, "MPI_Bcast", 300, 310, R"(,"root":0,"bytes":8)");
  t += TestMpi(1, 1, "MPI_Bcast", 50, 320, R"(,"root":0,"bytes":8)");
  t += TestMpi(0, 2, "MPI_Finalize", 330, 340) + TestMpi(1, 2, "MPI_Finalize", 330, 340);
  auto a = Analyse(t, Config{.k = 2});
  // Rank 1 leaves the Bcast with its own 40 and the root's 290, then
  // computes 10 more: 300 and 50; rank 0 ends with 290 + 20.
  // Of 310, 300, 50: the most and the least costly.
  EXPECT_EQ(Costs(a->end), (std::vector<int64_t>{310, 50}));
}

}  // namespace
}  // namespace rp::repr
