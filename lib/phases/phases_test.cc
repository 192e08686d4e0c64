#include "lib/phases/phases.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/trace/testing.h"
#include "lib/window/testing.h"

namespace rp::phases {
namespace {

using window::TestHeader;
using window::TestMpi;

// Two ranks: MPI_Init, three iterations of (message, MPI_Barrier), then
// MPI_Finalize; rank 1 is sampled at t=110, after its first Barrier.
std::string LoopTrace() {
  std::string t = TestHeader(2);
  t += TestMpi(0, 0, "MPI_Init", 0, 10, R"(,"site":1)") + TestMpi(1, 0, "MPI_Init", 0, 10, R"(,"site":1)");
  for (int k = 0; k < 3; ++k) {
    const int64_t at = 100 * k;
    if (k == 1) t += R"({"type":"sample","rank":1,"t":110,"stack":[5]})" "\n";
    t += TestMpi(1, 1 + 2 * k, "MPI_Recv", 15 + at, 35 + at, R"(,"site":5,"peer":0,"tag":1,"bytes":8)");
    t += TestMpi(0, 1 + 2 * k, "MPI_Send", 20 + at, 30 + at, R"(,"site":2,"peer":1,"tag":1,"bytes":8)");
    t += TestMpi(0, 2 + 2 * k, "MPI_Barrier", 40 + at, 50 + at, R"(,"site":3)");
    t += TestMpi(1, 2 + 2 * k, "MPI_Barrier", 45 + at, 50 + at, R"(,"site":3)");
  }
  t += TestMpi(1, 7, "MPI_Finalize", 400, 405, R"(,"site":4)") + TestMpi(0, 7, "MPI_Finalize", 400, 410, R"(,"site":4)");
  return t;
}

trace::StageOutput RunPhases(const std::string& trace) {
  return trace::RunStage([](trace::InputSet& in, trace::Writer& out) { return Run(Config{}, in, out); }, trace);
}

TEST(Phases, CutsAtGlobalSynchronizationsAndClustersTheIterations) {
  const trace::StageOutput out = RunPhases(LoopTrace());
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  std::vector<trace::PhaseRecord> phases;
  for (const trace::Record& r : trace::Records(out.text)) {
    if (r.type == trace::RecordType::kPhase) phases.push_back(r.phase);
  }
  ASSERT_EQ(phases.size(), 4u);
  // id, t0 (previous close; phase 0: MPI_Init's return), t1 (latest exit
  // of its closing Barrier; the last phase: the call of MPI_Finalize),
  // cluster, iteration, events.
  const int64_t expected[4][6] = {{0, 10, 50, 0, 0, 6}, {1, 50, 150, 1, 0, 4}, {2, 150, 250, 1, 1, 4},
                                  {3, 250, 400, 2, 0, 2}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(phases[i].id, expected[i][0]);
    EXPECT_EQ(phases[i].t0, expected[i][1]) << i;
    EXPECT_EQ(phases[i].t1, expected[i][2]) << i;
    EXPECT_EQ(phases[i].cluster, expected[i][3]) << i;
    EXPECT_EQ(phases[i].iteration, expected[i][4]) << i;
    EXPECT_EQ(phases[i].events, expected[i][5]) << i;
    EXPECT_FALSE(phases[i].has_kind());
  }
  EXPECT_EQ(phases[1].signature, phases[2].signature);
  EXPECT_NE(phases[0].signature, phases[1].signature);
}

TEST(Phases, TagsEveryCallAndSampleAfterItsPhaseRecord) {
  const trace::StageOutput out = RunPhases(LoopTrace());
  ASSERT_TRUE(out.status.ok());
  int64_t current = -1;
  int tagged = 0;
  for (const trace::Record& r : trace::Records(out.text)) {
    if (r.type == trace::RecordType::kPhase) current = r.phase.id;
    if (r.type == trace::RecordType::kMpi) {
      ASSERT_TRUE(r.mpi.has_phase());
      EXPECT_EQ(r.mpi.phase, current);
      // A rank's k-th Barrier closes phase k.
      if (r.mpi.fn == "MPI_Barrier") {
        EXPECT_EQ(r.mpi.phase, (r.mpi.seq - 2) / 2);
      }
      ++tagged;
    }
    if (r.type == trace::RecordType::kSample) {
      EXPECT_EQ(r.sample.phase, 1);
      EXPECT_EQ(current, 1);
      ++tagged;
    }
  }
  EXPECT_EQ(tagged, 17);
}

TEST(Phases, ARunWithoutGlobalSynchronizationIsOnePhase) {
  const trace::StageOutput out = RunPhases(TestHeader(2) + TestMpi(0, 0, "MPI_Send", 0, 10, R"(,"peer":1,"tag":0)") +
                               TestMpi(1, 0, "MPI_Recv", 5, 20, R"(,"peer":0,"tag":0)"));
  ASSERT_TRUE(out.status.ok());
  const auto phases = trace::LinesOfType(out.text, "phase");
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_NE(phases[0].find(R"("id":0,"t0":0,"t1":20,"kind":"run")"), std::string::npos) << phases[0];
}

TEST(Phases, PhasesOfAnEarlierRunAreReplaced) {
  const trace::StageOutput first = RunPhases(LoopTrace());
  const trace::StageOutput second = RunPhases(first.text);
  ASSERT_TRUE(second.status.ok());
  EXPECT_EQ(trace::LinesOfType(second.text, "phase"), trace::LinesOfType(first.text, "phase"));
  EXPECT_EQ(trace::LinesOfType(second.text, "mpi"), trace::LinesOfType(first.text, "mpi"));
}

TEST(Phases, NoCallsIsNothingUsableButTheStreamIsWritten) {
  const trace::StageOutput out = RunPhases(TestHeader(2));
  EXPECT_EQ(out.status.code(), StatusCode::kNothing);
  EXPECT_EQ(trace::LinesOfType(out.text, "header").size(), 1u);
  EXPECT_EQ(trace::LinesOfType(out.text, "comm").size(), 1u);
}

}  // namespace
}  // namespace rp::phases
