// Critical paths of tiny traces worked out by hand (times in ns; every
// trace starts at 0 with MPI_Init on each rank, which returns at 10: the
// application's time, which the path covers, starts there; MPI_Init and
// MPI_Finalize weigh nothing).
#include <gtest/gtest.h>

#include "lib/graph/alternatives.h"
#include "lib/graph/graph.h"
#include "lib/graph/imbalance.h"
#include "lib/graph/path.h"
#include "lib/window/testing.h"

namespace rp::graph {
namespace {

using window::TestHeader;
using window::TestMpi;

struct Analysed {
  window::TestTrace trace;
  match::Matching matching;
  Graph graph;
  CriticalPath cp;
  Zeroings zeroings;
  std::vector<Segment> path;
};

// One window through the whole analysis.
std::unique_ptr<Analysed> Analyse(const std::string& text) {
  auto a = std::make_unique<Analysed>();
  a->trace = window::ReadOneWindow(text);
  a->matching = match::Match(a->trace.window, a->trace.dict);
  a->graph = Graph(a->trace.window, a->matching);
  a->zeroings.Add(a->graph, a->cp);
  a->cp.Add(a->graph, &a->path);
  a->cp.Finish(&a->path);
  return a;
}

int64_t Zeroed(const Analysed& a, int32_t site, bool compute) {
  for (const auto& r : a.zeroings.Results()) {
    if (r.site == site && r.compute == compute) return r.length;
  }
  ADD_FAILURE() << "no what-if for site " << site;
  return -1;
}

Segment Seg(SegmentKind kind, int32_t rank, int64_t t0, int64_t t1, int32_t site, int32_t peer = window::kNone) {
  Segment s;
  s.kind = kind, s.rank = rank, s.t0 = t0, s.t1 = t1, s.site = site, s.peer = peer;
  s.length = kind == SegmentKind::kWait || kind == SegmentKind::kRp ? 0 : t1 - t0;
  return s;
}

// Compares what a test states: kind, rank, times, site, peer.
void ExpectPath(const std::vector<Segment>& got, const std::vector<Segment>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("segment " + std::to_string(i));
    EXPECT_EQ(KindName(got[i].kind), KindName(want[i].kind));
    EXPECT_EQ(got[i].rank, want[i].rank);
    EXPECT_EQ(got[i].t0, want[i].t0);
    EXPECT_EQ(got[i].t1, want[i].t1);
    EXPECT_EQ(got[i].length, want[i].length);
    EXPECT_EQ(got[i].site, want[i].site);
    EXPECT_EQ(got[i].peer, want[i].peer);
  }
}

std::string Init(int rank, int site) {
  return TestMpi(rank, 0, "MPI_Init", 0, 10, ",\"site\":" + std::to_string(site));
}

// Rank 1 posts its receive at 100; rank 0 computes until 500 and sends:
// the path runs through rank 0's computation and the transfer.
std::string LateSender() {
  return TestHeader(2) + Init(0, 10) + Init(1, 20) +
         TestMpi(0, 1, "MPI_Send", 500, 520, R"(,"site":11,"peer":1,"tag":0,"bytes":8)") +
         TestMpi(1, 1, "MPI_Recv", 100, 540, R"(,"site":21,"peer":0,"tag":0,"bytes":8)") +
         TestMpi(0, 2, "MPI_Finalize", 600, 610, R"(,"site":12)") +
         TestMpi(1, 2, "MPI_Finalize", 620, 630, R"(,"site":22)");
}

TEST(CriticalPathTest, LateSender) {
  auto a = Analyse(LateSender());
  EXPECT_EQ(a->graph.wait(3), 400);  // event 3 is rank 1's Recv (input order)
  // The application's whole time, 10 to 620: no wait on the path.
  EXPECT_EQ(a->cp.length(), 610);
  EXPECT_EQ(a->cp.end_rank(), 1);
  ExpectPath(a->path, {
                          Seg(SegmentKind::kCompute, 0, 10, 500, 11),
                          Seg(SegmentKind::kTransfer, 1, 500, 540, 21, 0),
                          Seg(SegmentKind::kCompute, 1, 540, 620, 22),
                      });
  // Without rank 0's 490 ns before the send, the receive is ready at 100
  // (90 into the application's time) and done 40 later: 130 + 80.
  EXPECT_EQ(Zeroed(*a, 11, true), 210);
  // A free receive: rank 1 done at 490 + 80 = 570; rank 0's 490 + 20 + 80
  // = 590 is now the longest path.
  EXPECT_EQ(Zeroed(*a, 21, false), 590);
}

TEST(CriticalPathTest, BackwardReplayAgrees) {
  auto a = Analyse(LateSender());
  const std::vector<Segment> replay = BackwardReplay({&a->graph}, a->cp.run_start());
  ExpectPath(replay, a->path);
}

// Rank 0 waits for a wildcard receive (resolved to rank 1) and one from
// rank 2; rank 1 sends last, at 200.
TEST(CriticalPathTest, WaitallWithWildcard) {
  auto a = Analyse(TestHeader(3) +
                   TestMpi(0, 0, "MPI_Irecv", 0, 5, R"(,"site":1,"peer":-1,"tag":-1,"bytes":8,"req":1)") +
                   TestMpi(0, 1, "MPI_Irecv", 5, 10, R"(,"site":2,"peer":2,"tag":0,"bytes":8,"req":2)") +
                   TestMpi(0, 2, "MPI_Waitall", 10, 300,
                           R"(,"site":3,"completed":[1,2],"resolved":[{"req":1,"peer":1,"tag":0,"bytes":8}])") +
                   TestMpi(1, 0, "MPI_Send", 200, 210, R"(,"site":4,"peer":0,"tag":0,"bytes":8)") +
                   TestMpi(2, 0, "MPI_Send", 100, 110, R"(,"site":5,"peer":0,"tag":0,"bytes":8)"));
  EXPECT_EQ(a->matching.messages.size(), 2u);
  EXPECT_EQ(a->graph.wait(2), 190);
  EXPECT_EQ(a->cp.length(), 300);
  ExpectPath(a->path, {
                          Seg(SegmentKind::kCompute, 1, 0, 200, 4),
                          Seg(SegmentKind::kTransfer, 0, 200, 300, 3, 1),
                      });
  // Rank 1 sending at 0: the Waitall is ready when rank 2's send starts.
  EXPECT_EQ(Zeroed(*a, 4, true), 200);
  ExpectPath(BackwardReplay({&a->graph}, a->cp.run_start()), a->path);
}

// Allreduce entered at 100, 300 and 50: rank 1 is last in.
std::string Allreduce() {
  return TestHeader(3) + Init(0, 1) + Init(1, 1) + Init(2, 1) +
         TestMpi(0, 1, "MPI_Allreduce", 100, 400, R"(,"site":30)") +
         TestMpi(1, 1, "MPI_Allreduce", 300, 420, R"(,"site":30)") +
         TestMpi(2, 1, "MPI_Allreduce", 50, 410, R"(,"site":30)");
}

TEST(CriticalPathTest, AllToAllCollective) {
  auto a = Analyse(Allreduce());
  EXPECT_EQ(a->cp.length(), 410);
  EXPECT_EQ(a->cp.end_rank(), 1);
  ExpectPath(a->path, {
                          Seg(SegmentKind::kCompute, 1, 10, 300, 30),
                          Seg(SegmentKind::kMpi, 1, 300, 420, 30),
                      });
  // All compute before the Allreduce gone: every rank enters as MPI_Init
  // returns; rank 1 still needs its 120 after the last entry.
  EXPECT_EQ(Zeroed(*a, 30, true), 120);
}

TEST(CriticalPathTest, CollectiveSplitFollowsThePaper) {
  auto a = Analyse(Allreduce());
  const std::vector<CallTimes> t = SplitCalls(a->graph, a->matching);
  // start_max 300, end_min 400: execution 100 for everyone.
  EXPECT_EQ(t[3].wait_before, 200);
  EXPECT_EQ(t[3].wait_after, 0);
  EXPECT_EQ(t[3].execution, 100);
  EXPECT_EQ(t[4].wait_before, 0);
  EXPECT_EQ(t[4].wait_after, 20);
  EXPECT_EQ(t[4].execution, 100);
  EXPECT_EQ(t[5].wait_before, 250);
  EXPECT_EQ(t[5].wait_after, 10);
  EXPECT_EQ(t[5].execution, 100);
}

// Bcast from a late root, then Reduce to rank 0 with rank 1 late.
TEST(CriticalPathTest, RootedCollectives) {
  auto a = Analyse(TestHeader(2) + Init(0, 1) + Init(1, 1) +
                   TestMpi(0, 1, "MPI_Bcast", 100, 350, R"(,"site":40,"root":1)") +
                   TestMpi(1, 1, "MPI_Bcast", 300, 310, R"(,"site":41,"root":1)") +
                   TestMpi(0, 2, "MPI_Reduce", 360, 700, R"(,"site":42,"root":0)") +
                   TestMpi(1, 2, "MPI_Reduce", 600, 605, R"(,"site":43,"root":0)"));
  EXPECT_EQ(a->graph.wait(2), 200);  // rank 0 waited for the root
  EXPECT_EQ(a->graph.wait(4), 240);  // the root waited for rank 1
  EXPECT_EQ(a->cp.length(), 690);
  ExpectPath(a->path, {
                          Seg(SegmentKind::kCompute, 1, 10, 300, 41),
                          Seg(SegmentKind::kMpi, 1, 300, 310, 41),
                          Seg(SegmentKind::kCompute, 1, 310, 600, 43),
                          Seg(SegmentKind::kTransfer, 0, 600, 700, 42, 1),
                      });
  ExpectPath(BackwardReplay({&a->graph}, a->cp.run_start()), a->path);
}

// Rank 0 leaves an MPI_Allgatherv (100-110) before rank 1 enters it (300).
// With all counts 0 nothing moved, and MPI does not make such a call wait
// (Open MPI returns at once): no dependency, no wait, nothing back in time.
// The same call moving data, or with no sizes in its records (unknown),
// depends on rank 1's entry; a barrier synchronizes whatever its sizes.
std::string TwoMemberCall(const char* fn, const char* sizes0, const char* sizes1) {
  return TestHeader(2) + Init(0, 1) + Init(1, 1) +
         TestMpi(0, 1, fn, 100, 110, std::string(R"(,"site":50,"comm":0)") + sizes0) +
         TestMpi(1, 1, fn, 300, 310, std::string(R"(,"site":51,"comm":0)") + sizes1);
}

TEST(CriticalPathTest, CollectiveThatMovesNothingDoesNotSynchronize) {
  const char* kNothing = R"(,"bytes":0,"rbytes":0)";
  auto a = Analyse(TwoMemberCall("MPI_Allgatherv", kNothing, kNothing));
  ASSERT_EQ(a->matching.collectives.size(), 1u);
  EXPECT_EQ(a->matching.collectives[0].kind, mpi::Collective::kNone);
  EXPECT_EQ(a->graph.problems().backward_edges, 0);
  EXPECT_EQ(a->graph.wait(2), 0);
  EXPECT_EQ(a->cp.length(), 300);  // rank 1's computation and call

  // Rank 1 receives data (its own part of 0 bytes notwithstanding): rank
  // 0's exit depends on rank 1's entry, and goes back in time.
  a = Analyse(TwoMemberCall("MPI_Allgatherv", R"(,"bytes":0,"rbytes":8)", R"(,"bytes":8,"rbytes":8)"));
  EXPECT_EQ(a->matching.collectives[0].kind, mpi::Collective::kAll);
  EXPECT_EQ(a->graph.problems().backward_edges, 1);
  a = Analyse(TwoMemberCall("MPI_Allgatherv", "", ""));
  EXPECT_EQ(a->matching.collectives[0].kind, mpi::Collective::kAll);
  EXPECT_EQ(a->graph.problems().backward_edges, 1);
  a = Analyse(TwoMemberCall("MPI_Barrier", kNothing, kNothing));
  EXPECT_EQ(a->matching.collectives[0].kind, mpi::Collective::kAll);
  EXPECT_EQ(a->graph.problems().backward_edges, 1);
  // An Alltoallv's counts differ from member to member: one that moved
  // nothing says nothing of the others, and the call stays a
  // synchronization, as it does for the windows (window::IsGlobalSync).
  a = Analyse(TwoMemberCall("MPI_Alltoallv", kNothing, kNothing));
  EXPECT_EQ(a->matching.collectives[0].kind, mpi::Collective::kAll);
}

// A receive that ends before its send began: the clocks disagree.
TEST(CriticalPathTest, BackwardMessageIsCounted) {
  auto a = Analyse(TestHeader(2) + TestMpi(0, 0, "MPI_Send", 500, 520, R"(,"peer":1,"tag":0)") +
                   TestMpi(1, 0, "MPI_Recv", 100, 200, R"(,"peer":0,"tag":0)"));
  EXPECT_EQ(a->graph.problems().backward_edges, 1);
  EXPECT_EQ(a->graph.wait(1), 0);
}

// The topological-sorting heuristic keeps the longest computation of each
// overlapping group: rank 1's 290 ns before the Allreduce, then its call.
TEST(HeuristicTest, KeepsLongestOverlappingComputation) {
  auto a = Analyse(Allreduce());
  TopologicalHeuristic h(a->cp.run_start());
  std::vector<Segment> path;
  h.AddWindow(a->graph, &path);
  h.Finish(&path);
  ASSERT_EQ(path.size(), 2u);
  EXPECT_EQ(path[0].kind, SegmentKind::kCompute);
  EXPECT_EQ(path[0].rank, 1);
  EXPECT_EQ(path[0].t0, 10);
  EXPECT_EQ(path[0].t1, 300);
  EXPECT_EQ(path[1].kind, SegmentKind::kMpi);
  EXPECT_EQ(path[1].t1, 420);
}

// The collector's own work at the end of a call is on the path's timeline
// but not in its length; MPI_Finalize, after the application's time, not
// at all. Rank 0 computes to 300, then sends (rp 30 of the call's 120: a
// buffer write); rank 1's receive, ready at 300, ends at 440 (path 430).
TEST(CriticalPathTest, CollectorWorkIsNotInTheLength) {
  auto a = Analyse(TestHeader(2) + Init(0, 1) + Init(1, 1) +
                   TestMpi(0, 1, "MPI_Send", 300, 420, R"(,"site":2,"peer":1,"tag":0,"rp":30)") +
                   TestMpi(1, 1, "MPI_Recv", 100, 440, R"(,"site":4,"peer":0,"tag":0)") +
                   TestMpi(0, 2, "MPI_Finalize", 500, 900, R"(,"site":3,"rp":50)") +
                   TestMpi(1, 2, "MPI_Finalize", 450, 910, R"(,"site":3)"));
  // 290 computing, 90 of the send, 80 computing before MPI_Finalize.
  EXPECT_EQ(a->cp.length(), 460);
  ExpectPath(a->path, {
                          Seg(SegmentKind::kCompute, 0, 10, 300, 2),
                          Seg(SegmentKind::kMpi, 0, 300, 390, 2),
                          Seg(SegmentKind::kRp, 0, 390, 420, 2),
                          Seg(SegmentKind::kCompute, 0, 420, 500, 3),
                      });
  const std::vector<CallTimes> t = SplitCalls(a->graph, a->matching);
  EXPECT_EQ(t[2].execution, 120 - 30);  // the send: all but rp
  EXPECT_EQ(t[3].wait_before, 200);     // the receive waited for the send
  EXPECT_EQ(a->graph.application_start(), 10);
}

// Sites' what-ifs run 16 to a pass: with 40 iterations of a ping-pong,
// each iteration at sites of its own (160 what-ifs, ten passes), every
// length equals one longest-path pass with that single what-if.
TEST(ZeroingsTest, BatchedSitesEqualOnePassEach) {
  std::string text = TestHeader(2) + Init(0, 10) + Init(1, 20);
  int64_t t = 10;
  for (int i = 0; i < 40; ++i) {
    const std::string tag = R"(,"tag":0,"bytes":8)";
    const int64_t work0 = 100 + 7 * i, work1 = 300 - 5 * i;
    // Rank 0 works, sends; rank 1 receives, works, sends back; rank 0 receives.
    text += TestMpi(0, 1 + 2 * i, "MPI_Send", t + work0, t + work0 + 10,
                    ",\"site\":" + std::to_string(100 + i) + R"(,"peer":1)" + tag);
    text += TestMpi(1, 1 + 2 * i, "MPI_Recv", t, t + work0 + 20,
                    ",\"site\":" + std::to_string(200 + i) + R"(,"peer":0)" + tag);
    const int64_t back = t + work0 + 20 + work1;
    text += TestMpi(1, 2 + 2 * i, "MPI_Send", back, back + 10,
                    ",\"site\":" + std::to_string(300 + i) + R"(,"peer":0)" + tag);
    text += TestMpi(0, 2 + 2 * i, "MPI_Recv", t + work0 + 10, back + 20,
                    ",\"site\":" + std::to_string(400 + i) + R"(,"peer":1)" + tag);
    t = back + 20;
  }
  text += TestMpi(0, 81, "MPI_Finalize", t + 50, t + 60, R"(,"site":12)") +
          TestMpi(1, 81, "MPI_Finalize", t + 50, t + 60, R"(,"site":22)");
  auto a = Analyse(text);
  EXPECT_EQ(a->zeroings.Results().size(), 2u * (4 * 40 + 4));
  for (int32_t site : {10, 20, 100, 115, 116, 139, 200, 231, 300, 317, 400, 439, 12}) {
    for (bool compute : {true, false}) {
      SCOPED_TRACE("site " + std::to_string(site) + (compute ? " compute" : " mpi"));
      LongestPath lp;
      const Zeroing zero{site, compute, nullptr};
      lp.Run(a->graph, {}, a->graph.application_start(), &zero);
      std::vector<RankEnd> ends;
      lp.Advance(a->graph, &ends);
      int64_t want = 0;
      for (const RankEnd& e : ends) want = std::max(want, e.length);
      EXPECT_EQ(Zeroed(*a, site, compute), want);
    }
  }
  // By hand: rank 0's 50 ns before MPI_Finalize taken out leaves rank 1's
  // 50 ns, so the path keeps its length; rank 0's first computation (100
  // ns) taken out shortens the whole chain by it.
  EXPECT_EQ(Zeroed(*a, 100, true), Zeroed(*a, 12, true) - 100);
}

}  // namespace
}  // namespace rp::graph
