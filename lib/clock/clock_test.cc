#include <gtest/gtest.h>

#include <cmath>

#include "lib/clock/gaps.h"
#include "lib/clock/linear.h"
#include "lib/clock/repair.h"
#include "lib/window/testing.h"

namespace rp::clock {
namespace {

using window::ReadOneWindow;
using window::TestHeader;
using window::TestMpi;

// (t0, t1) of every event, by rank and seq.
std::vector<std::pair<int64_t, int64_t>> Times(const window::Window& w, int rank) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (uint32_t e : w.by_rank[rank]) out.emplace_back(w.events[e].t0, w.events[e].t1);
  return out;
}

TEST(LinearClock, FitsTwoMeasurementsExactly) {
  // Offset +1000 ns at t=0 and +1100 ns at t=1e6: drift 100 ppm.
  const LinearClock c = FitOffsets({{1'000'000, 1100}, {0, 1000}});
  EXPECT_EQ(c.reference, 0);
  EXPECT_EQ(c.offset, 1000);
  EXPECT_DOUBLE_EQ(c.drift, 1e-4);
  EXPECT_EQ(c.ToGlobal(500'000), 500'000 + 1050);
  EXPECT_EQ(FitOffsets({{5, -7}}).ToGlobal(100), 93);
  // Two at one time: their mean, neither dropped.
  EXPECT_EQ(FitOffsets({{5, -7}, {5, -3}}).ToGlobal(100), 95);
  EXPECT_TRUE(FitOffsets({}).identity());
}

TEST(LinearClock, RoundsHalfwayCasesAwayFromZeroAsLlroundDoes) {
  std::vector<double> values = {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994,
                                -0.49999999999999994, 4503599627370495.5, -4503599627370495.5,
                                4503599627370497.0, 1e15 + 0.5, 9.2e18, -9.2e18};
  uint64_t state = 12345;
  for (int i = 0; i < 100000; ++i) {  // drift * ns: up to about +-1e12
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    values.push_back((static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5) * std::ldexp(1.0, i % 42));
  }
  for (double x : values) EXPECT_EQ(RoundHalfAway(x), std::llround(x)) << x;
}

TEST(Repair, LateReceiveEndMovesAndShiftsTheRestOfItsRank) {
  // Rank 1's Recv ends at 80 but its message left rank 0 at 100.
  auto t = ReadOneWindow(TestHeader(2) + TestMpi(0, 0, "MPI_Send", 100, 110, R"(,"peer":1,"tag":1)") +
                         TestMpi(0, 1, "MPI_Recv", 120, 200, R"(,"peer":1,"tag":2)") +
                         TestMpi(1, 0, "MPI_Recv", 50, 80, R"(,"peer":0,"tag":1)") +
                         TestMpi(1, 1, "MPI_Send", 90, 95, R"(,"peer":0,"tag":2)"));
  const match::Matching matching = match::Match(t.window, t.dict);
  Constraints constraints;
  constraints.Build(t.window, matching);
  const Violations before = CountViolations(t.window, constraints, 0);
  EXPECT_EQ(before.messages, 1);
  EXPECT_EQ(before.worst, 20);
  RepairOptions options;
  options.amortize = false;
  std::vector<int64_t> shift;
  const RepairResult result = Repair(&t.window, constraints, options, &shift);
  EXPECT_EQ(shift, (std::vector<int64_t>{0, 20}));
  using P = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(Times(t.window, 0), (P{{100, 110}, {120, 200}}));
  EXPECT_EQ(Times(t.window, 1), (P{{50, 100}, {110, 115}}));
  EXPECT_EQ(result.ranks[1].moved, 2);
  EXPECT_EQ(result.ranks[1].max_shift, 20);
  EXPECT_EQ(result.ranks[0].moved, 0);
  EXPECT_EQ(CountViolations(t.window, constraints, 0).messages, 0);
}

TEST(Repair, ACycleOfMessagesIsBrokenAtTheEarliestEvent) {
  // Each rank first receives what the other sends only afterwards (a trace
  // matched wrongly): nothing is ready, so rank 0's Recv (the earliest
  // start; a tie goes to the lower rank) ends unconstrained at 20; its Send
  // starts at 30, so rank 1's Recv must end at 30 (+10), and its Send moves
  // by 10 too.
  auto t = ReadOneWindow(TestHeader(2) + TestMpi(0, 0, "MPI_Recv", 10, 20, R"(,"peer":1,"tag":1)") +
                         TestMpi(0, 1, "MPI_Send", 30, 40, R"(,"peer":1,"tag":2)") +
                         TestMpi(1, 0, "MPI_Recv", 10, 20, R"(,"peer":0,"tag":2)") +
                         TestMpi(1, 1, "MPI_Send", 30, 40, R"(,"peer":0,"tag":1)"));
  const match::Matching matching = match::Match(t.window, t.dict);
  Constraints constraints;
  constraints.Build(t.window, matching);
  RepairOptions options;
  options.amortize = false;
  std::vector<int64_t> shift;
  const RepairResult result = Repair(&t.window, constraints, options, &shift);
  EXPECT_EQ(result.cycles_broken, 1);
  using P = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(Times(t.window, 0), (P{{10, 20}, {30, 40}}));
  EXPECT_EQ(Times(t.window, 1), (P{{10, 30}, {40, 50}}));
  EXPECT_EQ(shift, (std::vector<int64_t>{0, 10}));
}

TEST(Repair, AmortisationRampsTheJumpIntoTheTimeBeforeIt) {
  // As above, with an earlier send of rank 1 (10-20) that rank 0 receives
  // at 120-130. The jump of 20 at rank 1's Recv (end 80) ramps in at
  // --max-slope 0.2 over 100 ns, from -20: at time x the extra shift is
  // floor(20 (x + 20) / 100). Recv start 50 -> +14; Send end 20 -> +8,
  // Send start 10 -> +6: the 6 the ramp has not reached by rank 1's first
  // event is left before it. Every interval grows by at most 20%.
  auto t = ReadOneWindow(TestHeader(2) + TestMpi(0, 0, "MPI_Send", 100, 110, R"(,"peer":1,"tag":1)") +
                         TestMpi(0, 1, "MPI_Recv", 120, 130, R"(,"peer":1,"tag":3)") +
                         TestMpi(0, 2, "MPI_Recv", 140, 200, R"(,"peer":1,"tag":2)") +
                         TestMpi(1, 0, "MPI_Send", 10, 20, R"(,"peer":0,"tag":3)") +
                         TestMpi(1, 1, "MPI_Recv", 50, 80, R"(,"peer":0,"tag":1)") +
                         TestMpi(1, 2, "MPI_Send", 90, 95, R"(,"peer":0,"tag":2)"));
  const match::Matching matching = match::Match(t.window, t.dict);
  Constraints constraints;
  constraints.Build(t.window, matching);
  std::vector<int64_t> shift;
  RepairOptions options;
  options.max_slope = 0.2;
  Repair(&t.window, constraints, options, &shift);
  using P = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(Times(t.window, 1), (P{{16, 28}, {64, 100}, {110, 115}}));
  EXPECT_EQ(Times(t.window, 0), (P{{100, 110}, {120, 130}, {140, 200}}));
  EXPECT_EQ(CountViolations(t.window, constraints, 0).messages, 0);
}

TEST(Repair, AmortisationStopsWhereASendWouldPassItsReceive) {
  // Rank 1 sends at 60 what rank 0 receives by 61; then its Recv jumps by
  // 20 at end 80. At --max-slope 0.25 the ramp is floor(20 x / 80): it
  // would move the send start by 15, but its receive ends at 61: the send
  // may start at 61 at the latest (+1), and nothing before it moves more.
  auto t = ReadOneWindow(TestHeader(2) + TestMpi(0, 0, "MPI_Recv", 55, 61, R"(,"peer":1,"tag":3)") +
                         TestMpi(0, 1, "MPI_Send", 100, 110, R"(,"peer":1,"tag":1)") +
                         TestMpi(1, 0, "MPI_Barrier", 10, 20, R"(,"comm":7)") +
                         TestMpi(1, 1, "MPI_Send", 60, 62, R"(,"peer":0,"tag":3)") +
                         TestMpi(1, 2, "MPI_Recv", 70, 80, R"(,"peer":0,"tag":1)"));
  const match::Matching matching = match::Match(t.window, t.dict);
  Constraints constraints;
  constraints.Build(t.window, matching);
  std::vector<int64_t> shift;
  RepairOptions options;
  options.max_slope = 0.25;
  Repair(&t.window, constraints, options, &shift);
  using P = std::vector<std::pair<int64_t, int64_t>>;
  // Recv: start 70 -> +17 (ramp), end jumps to 100; Send end 62 -> min(17,
  // ramp 15) = +15 -> 77, start 60 -> cap +1 -> 61; Barrier 10-20 -> +1.
  EXPECT_EQ(Times(t.window, 1), (P{{11, 21}, {61, 77}, {87, 100}}));
  EXPECT_EQ(CountViolations(t.window, constraints, 0).messages, 0);
}

TEST(Repair, CollectiveExitsFollowTheEntriesTheyWaitFor) {
  // Rank 1 leaves a broadcast (10-15) before its root, rank 0, entered it
  // (20): its end moves to 20 and its barrier by +5 to 115-155. Rank 2
  // leaves the barrier at 60, before the last entry (rank 1's, now 115):
  // its end moves to 115, a jump of 55 that ramps in at --max-slope 1
  // over 55 ns from 5: barrier entry 40 -> +floor(55*35/55) = +35 (below
  // the cap its own exit sets, 115 - 40), broadcast end 35 -> +30, its
  // start 25 -> +20, left before rank 2's first event.
  auto t = ReadOneWindow(TestHeader(3) + TestMpi(0, 0, "MPI_Bcast", 20, 30, R"(,"root":0)") +
                         TestMpi(1, 0, "MPI_Bcast", 10, 15, R"(,"root":0)") +
                         TestMpi(2, 0, "MPI_Bcast", 25, 35, R"(,"root":0)") +
                         TestMpi(0, 1, "MPI_Barrier", 100, 150) + TestMpi(1, 1, "MPI_Barrier", 110, 150) +
                         TestMpi(2, 1, "MPI_Barrier", 40, 60) + TestMpi(2, 2, "MPI_Finalize", 160, 170));
  const match::Matching matching = match::Match(t.window, t.dict);
  Constraints constraints;
  constraints.Build(t.window, matching);
  EXPECT_EQ(matching.mismatched_collectives, 0);
  const Violations before = CountViolations(t.window, constraints, 0);
  EXPECT_EQ(before.collectives, 2);
  EXPECT_EQ(before.worst, 50);
  std::vector<int64_t> shift;
  RepairOptions options;
  options.max_slope = 1;
  Repair(&t.window, constraints, options, &shift);
  using P = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(Times(t.window, 0), (P{{20, 30}, {100, 150}}));
  EXPECT_EQ(Times(t.window, 1), (P{{10, 20}, {115, 155}}));
  EXPECT_EQ(Times(t.window, 2), (P{{45, 65}, {75, 115}}));
  EXPECT_EQ(CountViolations(t.window, constraints, 0).collectives, 0);
}

// A member that leaves a collective in which nothing moved before another
// entered it broke no clock condition: MPI does not make it wait.
TEST(Repair, ACollectiveThatMovesNothingIsNoConstraint) {
  const std::pair<const char*, int64_t> cases[] = {{R"(,"bytes":0,"rbytes":0)", 0}, {R"(,"bytes":8,"rbytes":16)", 1}};
  for (const auto& [sizes, violations] : cases) {
    auto t = ReadOneWindow(TestHeader(2) + TestMpi(0, 0, "MPI_Allgatherv", 100, 110, sizes) +
                           TestMpi(1, 0, "MPI_Allgatherv", 300, 310, sizes));
    const match::Matching matching = match::Match(t.window, t.dict);
    Constraints constraints;
    constraints.Build(t.window, matching);
    EXPECT_EQ(CountViolations(t.window, constraints, 0).collectives, violations) << sizes;
  }
}

TEST(Gaps, ConstantGapsBetweenSynchronizationExitsGiveTheOffset) {
  // Rank 1's clock is 5000 ns behind with 10 ppm drift; exits at 1e6 * k
  // on rank 0 (site 3), except one jittery instance at another site.
  std::vector<std::vector<SyncExit>> exits(2);
  for (int k = 0; k < 5; ++k) {
    const int64_t t = 1'000'000 * (k + 1);
    exits[0].push_back({3, t});
    // local = global - offset(local): offset(t) = 5000 + 1e-5 * (t - t0).
    exits[1].push_back({3, t - 5000 - 10 * (k)});
  }
  exits[0].push_back({9, 9'000'000});
  exits[1].push_back({8, 9'000'000 - 80'000});
  // One more instance at site 3, where rank 1 left 2 us late (descheduled):
  // an outlier the fit sets aside (5 of 6 instances kept).
  exits[0].push_back({3, 10'000'000});
  exits[1].push_back({3, 10'000'000 - 5000 - 90 + 2000});
  const GapsFit fit = FitGaps(exits, 100);
  ASSERT_TRUE(fit.fitted[1]);
  EXPECT_EQ(fit.instances[1], 5);
  EXPECT_NEAR(fit.clocks[1].OffsetAt(1'000'000 - 5000), 5000, 1);
  EXPECT_NEAR(fit.clocks[1].drift, 1e-5, 1e-7);
  EXPECT_LE(fit.residual[1], 1);
}

}  // namespace
}  // namespace rp::clock
