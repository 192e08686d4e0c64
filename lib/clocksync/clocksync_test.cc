#include "lib/clocksync/clocksync.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/trace/testing.h"
#include "lib/window/testing.h"

namespace rp::clocksync {
namespace {

using window::TestHeader;
using window::TestMpi;

struct Output {
  Status status;
  std::string text;
  std::vector<trace::MpiRecord> calls;
  std::vector<trace::ClockRecord> clocks;
};

Output Sync(const std::string& trace, const Config& config = {}) {
  Output out;
  const trace::StageOutput run =
      trace::RunStage([&](trace::InputSet& in, trace::Writer& w) { return Run(config, in, w); }, trace);
  out.status = run.status;
  out.text = run.text;
  for (const trace::Record& r : trace::Records(out.text)) {
    if (r.type == trace::RecordType::kMpi) out.calls.push_back(r.mpi);
    if (r.type == trace::RecordType::kClock && r.clock.method != "pingpong") out.clocks.push_back(r.clock);
  }
  return out;
}

std::string Pingpong(int rank, int64_t t, int64_t offset) {
  return R"({"type":"clock","rank":)" + std::to_string(rank) + R"(,"method":"pingpong","t":)" + std::to_string(t) +
         R"(,"offset":)" + std::to_string(offset) + "}\n";
}

// Rank 1's clock is 1000 ns behind rank 0's at local time 0 and 1100 ns at
// 1 ms: the line global = local + 1000 + 1e-4 * local (100 ppm).
TEST(Clocksync, MapsEachRankOnTheLineThroughItsMeasurements) {
  const std::string trace = TestHeader(2) + Pingpong(0, 0, 0) + Pingpong(0, 1'000'000, 0) + Pingpong(1, 0, 1000) +
                            Pingpong(1, 1'000'000, 1100) +
                            TestMpi(1, 0, "MPI_Recv", 400, 1200, R"(,"peer":0,"tag":0,"bytes":8)") +
                            TestMpi(0, 0, "MPI_Send", 1000, 1100, R"(,"peer":1,"tag":0,"bytes":8)") +
                            TestMpi(1, 1, "MPI_Barrier", 990'000, 1'000'000) +
                            TestMpi(0, 1, "MPI_Barrier", 999'000, 1'001'100);
  const Output out = Sync(trace);
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  EXPECT_NE(out.text.find(R"("clock":"global")"), std::string::npos);
  ASSERT_EQ(out.calls.size(), 4u);
  // In time order on rank 0's clock: 400 + 1000 + 0.04 -> 1400.
  EXPECT_EQ(out.calls[0].fn, "MPI_Send");
  EXPECT_EQ(out.calls[1].fn, "MPI_Recv");
  EXPECT_EQ(out.calls[1].t0, 1400);
  EXPECT_EQ(out.calls[1].t1, 2200);
  // 990e3 + 1000 + 99 and 1e6 + 1000 + 100: before rank 0's Barrier.
  EXPECT_EQ(out.calls[2].rank, 1);
  EXPECT_EQ(out.calls[2].t0, 991'099);
  EXPECT_EQ(out.calls[2].t1, 1'001'100);
  ASSERT_EQ(out.clocks.size(), 2u);
  EXPECT_EQ(out.clocks[1].method, "linear");
  EXPECT_EQ(out.clocks[1].offset, 1000);  // at its first event, local 400: 1000.04
  EXPECT_DOUBLE_EQ(out.clocks[1].drift, 100);
  EXPECT_EQ(out.clocks[1].moved, 0);
}

// On one clock already, a receive that ends before its send began ends
// where the send starts (it waited longer), and the rest of its rank
// moves by as much.
TEST(Clocksync, RepairsAReceiveThatEndsBeforeItsSendBegan) {
  const std::string header = R"({"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":2,"clock":"global"})"
                             "\n" R"({"type":"comm","id":0,"size":2,"ranks":[0,1]})" "\n";
  const std::string trace = header + TestMpi(1, 0, "MPI_Recv", 1000, 1500, R"(,"peer":0,"tag":0,"bytes":8)") +
                            TestMpi(1, 1, "MPI_Send", 1600, 1700, R"(,"peer":0,"tag":1,"bytes":8)") +
                            TestMpi(0, 0, "MPI_Send", 2000, 2100, R"(,"peer":1,"tag":0,"bytes":8)") +
                            TestMpi(0, 1, "MPI_Recv", 2200, 2400, R"(,"peer":1,"tag":1,"bytes":8)");
  Config config;
  config.amortize = false;
  const Output out = Sync(trace, config);
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  std::vector<std::pair<int64_t, int64_t>> rank1;
  for (const trace::MpiRecord& m : out.calls) {
    if (m.rank == 1) rank1.emplace_back(m.t0, m.t1);
  }
  EXPECT_EQ(rank1, (std::vector<std::pair<int64_t, int64_t>>{{1000, 2000}, {2100, 2200}}));
  ASSERT_EQ(out.clocks.size(), 2u);
  EXPECT_EQ(out.clocks[0].method, "identity");
  EXPECT_EQ(out.clocks[1].moved, 2);
  EXPECT_EQ(out.clocks[1].max_shift, 500);
}

// Without measurements, --method gaps aligns the exits of global
// synchronizations: rank 1 leaves each Barrier 5 us "after" rank 0 on its
// own clock. The input is read twice (rewound).
TEST(Clocksync, GapsAlignsTheExitsOfGlobalSynchronizations) {
  std::string trace = TestHeader(2);
  for (int k = 0; k < 10; ++k) {
    const int64_t at = 10'000 * k + 1000 * (k % 3);
    trace += TestMpi(0, k, "MPI_Barrier", at, at + 50, R"(,"site":3)");
    trace += TestMpi(1, k, "MPI_Barrier", at + 5000 + 20, at + 5050, R"(,"site":3)");
  }
  Config config;
  config.method = Method::kGaps;
  const Output out = Sync(trace, config);
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  ASSERT_EQ(out.clocks.size(), 2u);
  EXPECT_EQ(out.clocks[1].method, "gaps");
  EXPECT_EQ(out.clocks[1].offset, -5000);
  EXPECT_DOUBLE_EQ(out.clocks[1].drift, 0);
  for (const trace::MpiRecord& m : out.calls) EXPECT_EQ(m.t1 % 10'000, 50 + 1000 * ((m.t1 / 10'000) % 3)) << m.t1;
}

TEST(Clocksync, AStreamOnOneClockIsNotMappedAgain) {
  const std::string trace =
      R"({"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":2,"clock":"global"})" "\n" +
      Pingpong(1, 0, 1000) + TestMpi(0, 0, "MPI_Barrier", 0, 50) + TestMpi(1, 0, "MPI_Barrier", 10, 50);
  const Output out = Sync(trace);
  ASSERT_TRUE(out.status.ok());
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_EQ(out.calls[1].t0, 10);
  EXPECT_EQ(out.clocks[1].method, "identity");
}

std::string RankRecord(int rank, const std::string& host, const std::string& boot) {
  return R"({"type":"rank","rank":)" + std::to_string(rank) + R"(,"host":")" + host + R"(","boot":")" + boot +
         "\"}\n";
}

// Ranks 0 and 1 share host a's clock, ranks 2 and 3 host b's. Rank 1's
// measurement (noise: 700 ns) is not used: it reads rank 0's clock. Rank
// 3 has none: it reads rank 2's, whose line is its mapping too.
TEST(Clocksync, RanksOnOneHostAndBootShareOneMapping) {
  std::string trace = TestHeader(4) + RankRecord(0, "a", "boot-a") + RankRecord(1, "a", "boot-a") +
                      RankRecord(2, "b", "boot-b") + RankRecord(3, "b", "boot-b") + Pingpong(0, 0, 0) +
                      Pingpong(1, 0, 700) + Pingpong(2, 0, 5000) + Pingpong(2, 1'000'000, 5000);
  // On rank 0's clock each rank enters at 10000 + 100 r and leaves at 11000.
  const int64_t offsets[] = {0, 0, 5000, 5000};
  for (int r = 0; r < 4; ++r) trace += TestMpi(r, 0, "MPI_Barrier", 10'000 + 100 * r - offsets[r], 11'000 - offsets[r]);
  const Output out = Sync(trace);
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  ASSERT_EQ(out.clocks.size(), 4u);
  const int64_t shares[] = {-1, 0, -1, 2};
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(out.clocks[r].offset, offsets[r]) << r;
    EXPECT_DOUBLE_EQ(out.clocks[r].drift, 0) << r;
    EXPECT_EQ(out.clocks[r].has_shares() ? out.clocks[r].shares : -1, shares[r]) << r;
  }
  EXPECT_EQ(out.clocks[1].method, "identity");
  EXPECT_EQ(out.clocks[3].method, "linear");
  for (const trace::MpiRecord& m : out.calls) {
    EXPECT_EQ(m.t0, 10'000 + 100 * m.rank);
    EXPECT_EQ(m.t1, 11'000);
  }
}

// Without a boot id, ranks on one host are not taken to share a clock.
TEST(Clocksync, AHostWithoutBootIdsIsNotOneClock) {
  std::string trace = TestHeader(2) + R"({"type":"rank","rank":0,"host":"a"})" "\n" +
                      R"({"type":"rank","rank":1,"host":"a"})" "\n" + Pingpong(0, 0, 0) + Pingpong(1, 0, 700) +
                      TestMpi(0, 0, "MPI_Barrier", 0, 1000) + TestMpi(1, 0, "MPI_Barrier", 0, 1000);
  const Output out = Sync(trace);
  ASSERT_TRUE(out.status.ok());
  EXPECT_EQ(out.clocks[1].offset, 700);
  EXPECT_FALSE(out.clocks[1].has_shares());
}

TEST(Clocksync, NoCallsIsNothingUsable) {
  const Output out = Sync(TestHeader(2) + Pingpong(1, 0, 1000));
  EXPECT_EQ(out.status.code(), StatusCode::kNothing);
  EXPECT_EQ(out.clocks.size(), 2u);  // written all the same
}

}  // namespace
}  // namespace rp::clocksync
