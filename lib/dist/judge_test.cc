// Windows of a distributed read (CommJudge over threads): on every process
// the windows end where the one-process reader's do, and each holds its
// ranks' lines of that window, in order — for traces whose windows end
// clean, stay open over messages in flight and requests active, and end
// at the hold limit.
#include "lib/dist/judge.h"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "lib/dist/local_comm.h"
#include "lib/trace/testing.h"
#include "lib/window/testing.h"

namespace rp::dist {
namespace {

using window::TestMpi;

struct Read {
  std::vector<std::vector<std::string>> windows;  // each window's lines
  std::vector<std::vector<int>> ranks;            // each line's rank
  std::vector<bool> ends_with_sync;
};

Read ReadAll(trace::InputSet& input, window::BoundaryJudge* judge, int64_t hold) {
  window::WindowReader reader(input, window::Boundaries::kClean, window::ReadConfig{hold, nullptr});
  if (judge != nullptr) reader.SetJudge(judge);
  Read out;
  EXPECT_TRUE(reader.Start().ok());
  window::Window w;
  for (;;) {
    auto more = reader.Next(&w);
    EXPECT_TRUE(more.ok()) << more.status().message();
    if (!more.ok() || !*more) break;
    auto& lines = out.windows.emplace_back();
    auto& ranks = out.ranks.emplace_back();
    for (const window::Line& line : w.lines) {
      lines.emplace_back(w.text(line));
      ranks.push_back(line.rank);
    }
    out.ends_with_sync.push_back(w.ends_with_sync);
  }
  return out;
}

// The trace read whole, then split into `groups` and read by one process
// per group: each process's windows are the whole's, restricted to its ranks.
void ExpectSameWindows(const std::string& name, const std::string& text, const std::vector<std::pair<int, int>>& groups,
                       int processes, int64_t hold = window::kDefaultHoldLimit) {
  trace::InputSet whole_input = trace::TextInput(text);
  const Read whole = ReadAll(whole_input, nullptr, hold);
  const std::string index = trace::WriteSplit(name, text, groups);
  std::mutex mu;
  std::vector<Read> reads(processes);
  std::vector<std::pair<int64_t, int64_t>> selected(processes);
  LocalGroup::Run(processes, [&](Comm& comm) {
    trace::InputSet input(std::vector<std::string>{index}, {});
    input.SelectParts(comm.rank(), comm.size());
    CommJudge judge(comm);
    Read read = ReadAll(input, &judge, hold);
    std::lock_guard lock(mu);
    reads[comm.rank()] = std::move(read);
    selected[comm.rank()] = {input.first_rank(), input.last_rank()};
  });
  for (int p = 0; p < processes; ++p) {
    SCOPED_TRACE(name + ": process " + std::to_string(p) + " of " + std::to_string(processes));
    ASSERT_EQ(reads[p].windows.size(), whole.windows.size());
    EXPECT_EQ(reads[p].ends_with_sync, whole.ends_with_sync);
    const auto [first, last] = selected[p];
    for (size_t w = 0; w < whole.windows.size(); ++w) {
      std::vector<std::string> mine;
      for (size_t i = 0; i < whole.windows[w].size(); ++i) {
        const int rank = whole.ranks[w][i];
        if (rank >= first && rank <= last) mine.push_back(whole.windows[w][i]);
      }
      EXPECT_EQ(reads[p].windows[w], mine) << "window " << w;
    }
  }
}

// 4 ranks: a message from rank 1 to rank 2 (another part when split in
// two) crosses each synchronization the first time round, so barriers
// 1, 3, ... are not clean; an Isend of rank 0 stays active over barrier 4.
std::string Trace() {
  std::string text = window::TestHeader(4);
  std::vector<int> seq(4, 0);
  int64_t t = 0;
  auto call = [&](int rank, const std::string& fn, const std::string& extra = "") {
    text += TestMpi(rank, seq[rank]++, fn, t, t + 5, extra);
    t += 10;
  };
  for (int r = 0; r < 4; ++r) call(r, "MPI_Init");
  for (int round = 0; round < 8; ++round) {
    const std::string tag = R"(,"tag":)" + std::to_string(round) + R"(,"bytes":8)";
    call(1, "MPI_Send", R"(,"peer":2)" + tag);
    if (round % 2 == 1) call(2, "MPI_Recv", R"(,"peer":1)" + tag);
    if (round == 4) call(0, "MPI_Isend", R"(,"peer":3,"req":7)" + tag);
    for (int r = 0; r < 4; ++r) call(r, "MPI_Barrier");
    if (round % 2 == 0) call(2, "MPI_Recv", R"(,"peer":1)" + tag);
    if (round == 4) call(3, "MPI_Recv", R"(,"peer":0)" + tag);
    if (round == 5) call(0, "MPI_Wait", R"(,"completed":[7])");
  }
  for (int r = 0; r < 4; ++r) call(r, "MPI_Finalize");
  return text;
}

TEST(CommJudge, WindowsEndWhereTheOneProcessReadersDo) {
  const std::string text = Trace();
  for (int processes : {1, 2, 3, 4}) {
    ExpectSameWindows("judge-2", text, {{0, 1}, {2, 3}}, processes);
    ExpectSameWindows("judge-4", text, {{0, 0}, {1, 1}, {2, 2}, {3, 3}}, processes);
  }
}

TEST(CommJudge, WindowsEndAtTheHoldLimitOverAllProcesses) {
  const std::string text = Trace();
  for (int processes : {2, 4}) ExpectSameWindows("judge-hold", text, {{0, 0}, {1, 1}, {2, 2}, {3, 3}}, processes, 12);
}

TEST(CommJudge, AProcessWithoutRanksGetsEveryWindow) {
  ExpectSameWindows("judge-idle", Trace(), {{0, 1}, {2, 3}}, 3);
}

}  // namespace
}  // namespace rp::dist
