// SharedPhaseEnds over threads as processes: on a phased trace (rp-phases'
// output on a generated run) split between 1-4 processes, every process
// decides, window after window, the phase ends PhaseEnds decides on the
// whole window.
#include "lib/phases/distributed.h"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "lib/dist/judge.h"
#include "lib/dist/local_comm.h"
#include "lib/match/testing.h"
#include "lib/phases/phases.h"
#include "lib/trace/testing.h"
#include "lib/window/testing.h"

namespace rp::phases {
namespace {

std::string Describe(bool phased, const std::vector<int32_t>& before, const std::vector<int32_t>& in) {
  std::string out = phased ? "phased;" : "plain;";
  for (int32_t p : before) out += " b" + std::to_string(p);
  for (int32_t p : in) out += " i" + std::to_string(p);
  return out;
}

TEST(SharedPhaseEnds, EveryProcessDecidesTheWholeWindowsEnds) {
  const trace::StageOutput phased = trace::RunStage(
      [](trace::InputSet& in, trace::Writer& out) { return phases::Run(Config{}, in, out); }, match::MixedTrace(6, 6));
  ASSERT_TRUE(phased.status.ok()) << phased.status.message();
  std::vector<std::string> expected;
  {
    const window::TestWindows whole = window::ReadWindows(phased.text);
    PhaseEnds ends;
    ASSERT_TRUE(ends.NoteRecords(whole.dict).ok());
    size_t ended = 0;
    for (const window::Window& w : whole.windows) {
      ASSERT_TRUE(ends.NoteRecords(w).ok());
      const std::vector<int32_t> before = ends.EndedBefore(w), in = ends.EndedIn(w);
      ended += before.size() + in.size();
      expected.push_back(Describe(ends.Phased(w), before, in));
    }
    ASSERT_GT(ended, 5u);  // phases end in many windows
  }
  for (const std::vector<std::pair<int, int>>& groups :
       {std::vector<std::pair<int, int>>{{0, 2}, {3, 5}}, {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}}) {
    const std::string index = trace::WriteSplit("phase-ends", phased.text, groups);
    for (int processes : {1, 2, 3, 4}) {
      std::mutex mu;
      std::vector<std::vector<std::string>> got(processes);
      dist::LocalGroup::Run(processes, [&](dist::Comm& comm) {
        trace::InputSet input(std::vector<std::string>{index}, {});
        input.SelectParts(comm.rank(), comm.size());
        dist::CommJudge judge(comm);
        window::WindowReader reader(input);
        reader.SetJudge(&judge);
        ASSERT_TRUE(reader.Start().ok());
        SharedPhaseEnds ends;
        ASSERT_TRUE(ends.NoteRecords(reader.dictionary()).ok());
        std::vector<std::string> mine;
        window::Window w;
        for (;;) {
          auto more = reader.Next(&w);
          ASSERT_TRUE(more.ok());
          if (!*more) break;
          ASSERT_TRUE(ends.Share(comm, w).ok());
          const std::vector<int32_t> before = ends.EndedBefore(), in = ends.EndedIn();
          mine.push_back(Describe(ends.Phased(), before, in));
        }
        std::lock_guard lock(mu);
        got[comm.rank()] = mine;
      });
      for (int p = 0; p < processes; ++p) {
        EXPECT_EQ(got[p], expected) << "process " << p << " of " << processes << ", " << groups.size() << " parts";
      }
    }
  }
}

}  // namespace
}  // namespace rp::phases
