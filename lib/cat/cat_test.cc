#include "lib/cat/cat.h"

#include <gtest/gtest.h>

#include <string>

#include "lib/trace/testing.h"
#include "lib/window/testing.h"

namespace rp::cat {
namespace {

using window::TestHeader;
using window::TestMpi;

trace::StageOutput Cat(const Config& config, const std::string& trace) {
  return trace::RunStage([&](trace::InputSet& in, trace::Writer& out) { return Run(config, in, out); }, trace);
}

const std::string kTrace = TestHeader(2) + TestMpi(0, 0, "MPI_Send", 0, 1000, R"(,"peer":1,"tag":0,"bytes":8)") +
                           R"({"type":"sample","rank":1,"t":500,"stack":[]})" "\n" +
                           TestMpi(1, 0, "MPI_Recv", 0, 3000, R"(,"peer":0,"tag":0,"bytes":8)");

TEST(Cat, PassesEveryRecordThroughUnchanged) {
  const trace::StageOutput out = Cat(Config{}, kTrace);
  ASSERT_TRUE(out.status.ok());
  EXPECT_EQ(out.text, kTrace);
}

TEST(Cat, KeepsTheTypesAskedForAndTheHeader) {
  Config config;
  config.types = {"sample"};
  const trace::StageOutput out = Cat(config, kTrace);
  ASSERT_TRUE(out.status.ok());
  EXPECT_EQ(trace::Lines(out.text).size(), 2u);
  EXPECT_EQ(trace::LinesOfType(out.text, "sample").size(), 1u);
}

TEST(Cat, CountsRecordsPerType) {
  Config config;
  config.count = true;
  const trace::StageOutput out = Cat(config, kTrace);
  ASSERT_TRUE(out.status.ok());
  EXPECT_EQ(out.text, "header      1\ncomm        1\nmpi         2\nsample      1\ntotal       5\n");
}

TEST(Cat, SummaryGivesMpiTimePerFunctionAndRank) {
  Config config;
  config.summary = true;
  const trace::StageOutput out = Cat(config, kTrace);
  ASSERT_TRUE(out.status.ok());
  EXPECT_NE(out.text.find("2 ranks, 2 MPI calls, 1 samples"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("MPI_Recv                      1     0.0000    75.0     0.0"), std::string::npos) << out.text;
}

TEST(Cat, ValidationProblemsAreReportedAndAnError) {
  Config config;
  config.validate = true;
  const trace::StageOutput out = Cat(config, kTrace + TestMpi(1, 0, "MPI_Barrier", 4000, 3999));
  EXPECT_EQ(out.status.code(), StatusCode::kInput);
  EXPECT_NE(out.text.find("test.ndjson:6:"), std::string::npos) << out.text;
  const trace::StageOutput ok = Cat(config, kTrace);
  EXPECT_TRUE(ok.status.ok());
  EXPECT_EQ(ok.text, "ok\n");
}

}  // namespace
}  // namespace rp::cat
