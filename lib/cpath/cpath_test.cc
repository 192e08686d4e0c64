#include "lib/cpath/cpath.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lib/trace/testing.h"

namespace rp::cpath {
namespace {

// testdata/traces/cpath.ndjson, worked by hand in
// tests/golden/rp-cpath/exact.cmd: the application's time runs from 10
// (MPI_Init's return) to 900 (the last call of MPI_Finalize); the path
// runs through rank 1's computation before the Barrier (10-650), the
// Barrier's transfer onto rank 0 (650-700), then rank 0 alone to its
// MPI_Finalize.
std::string WorkedTrace() {
  std::ifstream in("testdata/traces/cpath.ndjson");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

trace::StageOutput RunCpath(const Config& config, const std::string& trace = WorkedTrace()) {
  return trace::RunStage([&](trace::InputSet& in, trace::Writer& out) { return Run(config, in, out); }, trace);
}

TEST(Cpath, TheWorkedExample) {
  Config config;
  config.passthrough = false;
  const trace::StageOutput out = RunCpath(config);
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  std::vector<trace::CpSegmentRecord> segments;
  const trace::CpSummaryRecord* summary = nullptr;
  std::vector<trace::Record> records = trace::Records(out.text);
  std::vector<trace::CpZeroingRecord> zeroings;
  for (const trace::Record& r : records) {
    if (r.type == trace::RecordType::kCpSegment) segments.push_back(r.cp_segment);
    if (r.type == trace::RecordType::kCpSummary && !r.cp_summary.has_phase()) summary = &r.cp_summary;
    if (r.type == trace::RecordType::kCpZeroing) zeroings.push_back(r.cp_zeroing);
    EXPECT_NE(r.type, trace::RecordType::kMpi) << "no passthrough";
  }
  ASSERT_NE(summary, nullptr);
  EXPECT_EQ(summary->length, 890);
  EXPECT_EQ(summary->run_time, 890);
  EXPECT_EQ(summary->start, 10);
  EXPECT_EQ(summary->end_rank, 0);
  EXPECT_EQ(summary->compute, 830);
  EXPECT_EQ(summary->mpi, 10);  // the Bcast: MPI_Init and MPI_Finalize weigh nothing
  EXPECT_EQ(summary->transfer, 50);
  EXPECT_EQ(summary->init, 10);
  EXPECT_EQ(summary->finalize, 10);
  EXPECT_FALSE(summary->partial);
  ASSERT_EQ(segments.size(), 5u);
  EXPECT_EQ(segments[0].rank, 1);
  EXPECT_EQ(segments[0].t0, 10);
  EXPECT_EQ(segments[0].t1, 650);
  EXPECT_EQ(segments[0].kind, "compute");
  EXPECT_EQ(segments[1].kind, "transfer");
  EXPECT_EQ(segments[1].peer, 1);
  EXPECT_EQ(segments[4].t1, 900);
  // Zeroing the computation before the Barrier (site 4): 740, 150 shorter.
  ASSERT_FALSE(zeroings.empty());
  EXPECT_EQ(zeroings[0].site, 4);
  EXPECT_EQ(zeroings[0].kind, "compute");
  EXPECT_EQ(zeroings[0].length, 740);
  EXPECT_EQ(zeroings[0].reduction, 150);
}

TEST(Cpath, ThreadsDoNotChangeTheOutput) {
  Config one, two;
  two.jobs = 2;
  const trace::StageOutput a = RunCpath(one), b = RunCpath(two);
  ASSERT_TRUE(a.status.ok() && b.status.ok());
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(trace::LinesOfType(a.text, "mpi").size(), 16u);  // passed through
}

TEST(Cpath, ReplayAgreesWithTheLongestPath) {
  Config exact, replay;
  replay.algo = Algo::kReplay;
  const trace::StageOutput a = RunCpath(exact), b = RunCpath(replay);
  ASSERT_TRUE(a.status.ok() && b.status.ok());
  EXPECT_EQ(trace::LinesOfType(a.text, "cp_segment"), trace::LinesOfType(b.text, "cp_segment"));
}

TEST(Cpath, NoCallsIsNothingUsable) {
  const trace::StageOutput out = RunCpath(Config{}, trace::Lines(WorkedTrace())[0] + "\n");
  EXPECT_EQ(out.status.code(), StatusCode::kNothing);
}

}  // namespace
}  // namespace rp::cpath
