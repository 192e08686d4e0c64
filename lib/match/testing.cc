#include "lib/match/testing.h"

#include <algorithm>

#include <vector>

#include <gtest/gtest.h>

#include "lib/dist/judge.h"
#include "lib/window/testing.h"

namespace rp::match {
namespace {

struct Least {
  int64_t value;
  void Add(const Least& o) { value = std::min(value, o.value); }
};

}  // namespace

std::string MixedTrace(int ranks, int rounds, int64_t skew) {
  using window::TestMpi;
  std::string text = window::TestHeader(ranks);
  std::string evens;
  for (int r = 0; r < ranks; r += 2) evens += (r ? "," : "") + std::to_string(r);
  text += R"({"type":"comm","id":1,"size":)" + std::to_string((ranks + 1) / 2) + R"(,"ranks":[)" + evens + "]}\n";
  std::vector<int> seq(ranks, 0);
  std::string lines;
  int64_t slot = skew;  // each step of a round has its 1000 ns
  // Ranks 0, 3, ... run `skew` behind, ranks 2, 5, ... ahead.
  auto at = [&](int rank, int64_t offset) { return slot + offset + 7 * rank % 13 + (rank % 3 - 1) * skew; };
  auto call = [&](int rank, const std::string& fn, int64_t t0, int64_t t1, const std::string& extra = "") {
    lines += TestMpi(rank, seq[rank]++, fn, t0, t1, extra);
  };
  auto step = [&] { slot += 1000; };
  auto tag = [](int t) { return R"(,"tag":)" + std::to_string(t) + R"(,"bytes":8)"; };
  for (int r = 0; r < ranks; ++r) call(r, "MPI_Init", at(r, 0), at(r, 50));
  step();
  call(0, "MPI_Send_init", at(0, 0), at(0, 5), R"(,"peer":)" + std::to_string(ranks - 1) + R"(,"req":5)" + tag(50));
  call(ranks - 1, "MPI_Recv_init", at(ranks - 1, 0), at(ranks - 1, 5), R"(,"peer":0,"req":6)" + tag(50));
  step();
  for (int round = 0; round < rounds; ++round) {
    // The ring: Irecv from anyone, Isend to the next, one Waitall.
    for (int r = 0; r < ranks; ++r) {
      const int from = (r + ranks - 1) % ranks, to = (r + 1) % ranks;
      call(r, "MPI_Irecv", at(r, 0), at(r, 5), R"(,"peer":-1,"req":0)" + tag(round));
      call(r, "MPI_Isend", at(r, 10), at(r, 15), R"(,"peer":)" + std::to_string(to) + R"(,"req":1)" + tag(round));
      call(r, "MPI_Waitall", at(r, 20), at(r, 100 + 11 * r),
           R"(,"completed":[0,1],"resolved":[{"req":0,"peer":)" + std::to_string(from) + R"(,"tag":)" +
               std::to_string(round) + R"(,"bytes":8}])");
    }
    step();
    // Blocking pairs.
    for (int r = 0; r + 1 < ranks; r += 2) {
      call(r, "MPI_Send", at(r, 0), at(r, 30), R"(,"peer":)" + std::to_string(r + 1) + tag(100 + round));
      call(r + 1, "MPI_Recv", at(r + 1, 5), at(r + 1, 200), R"(,"peer":)" + std::to_string(r) + tag(100 + round));
    }
    step();
    // A shift by two.
    for (int r = 0; r < ranks; ++r) {
      call(r, "MPI_Sendrecv", at(r, 0), at(r, 300 + r),
           R"(,"peer":)" + std::to_string((r + 2) % ranks) + tag(7) + R"(,"rpeer":)" +
               std::to_string((r + ranks - 2) % ranks) + R"(,"rtag":7,"rbytes":8)");
    }
    step();
    if (round % 2 == 0) {
      for (int r = 0; r < ranks; r += 2) call(r, "MPI_Bcast", at(r, 0), at(r, 400), R"(,"comm":1,"root":0,"bytes":8)");
      step();
    }
    // The persistent message.
    call(0, "MPI_Start", at(0, 0), at(0, 5), R"(,"req":5)");
    call(ranks - 1, "MPI_Start", at(ranks - 1, 0), at(ranks - 1, 5), R"(,"req":6)");
    call(0, "MPI_Wait", at(0, 10), at(0, 20), R"(,"completed":[5])");
    call(ranks - 1, "MPI_Wait", at(ranks - 1, 10), at(ranks - 1, 90), R"(,"completed":[6])");
    step();
    if (round == rounds - 1) call(1, "MPI_Send", at(1, 0), at(1, 10), R"(,"peer":4)" + tag(99));
    for (int r = 0; r < ranks; ++r) call(r, "MPI_Allreduce", at(r, 100), at(r, 600), R"(,"bytes":8)");
    step();
  }
  for (int r = 0; r < ranks; ++r) call(r, "MPI_Finalize", at(r, 0), at(r, 50));
  // In the stream's order: by time, then rank.
  std::vector<std::string> sorted;
  size_t start = 0;
  while (start < lines.size()) {
    const size_t end = lines.find('\n', start);
    sorted.push_back(lines.substr(start, end + 1 - start));
    start = end + 1;
  }
  auto key = [](const std::string& line) {
    auto field = [&](const char* name) {
      const size_t at = line.find(name) + std::string(name).size();
      return std::stoll(line.substr(at));
    };
    return std::make_pair(field("\"t0\":"), field("\"rank\":"));
  };
  std::stable_sort(sorted.begin(), sorted.end(), [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  for (const std::string& line : sorted) text += line;
  return text;
}

Owners ForEachWindowAcross(dist::Comm& comm, const std::string& index, const EachWindow& each) {
  trace::InputSet input(std::vector<std::string>{index}, {});
  input.SelectParts(comm.rank(), comm.size());
  dist::CommJudge judge(comm);
  window::WindowReader reader(input);
  reader.SetJudge(&judge);
  EXPECT_TRUE(reader.Start().ok());
  auto owners = ShareOwners(comm, input.first_rank(), input.last_rank());
  EXPECT_TRUE(owners.ok());
  window::Window w;
  for (;;) {
    auto more = reader.Next(&w);
    EXPECT_TRUE(more.ok());
    if (!more.ok() || !*more) break;
    Ghosts ghosts;
    auto m = MatchAcross(comm, *owners, reader.dictionary(), &w, &ghosts);
    EXPECT_TRUE(m.ok()) << m.status().message();
    each(*owners, w, *m, ghosts);
  }
  return *owners;
}

void RunStartAcross(dist::Comm& comm, int64_t start, bool* started, int64_t* run_start) {
  if (*started) return;
  auto least = dist::AllreduceValue(comm, Least{start});
  EXPECT_TRUE(least.ok());
  if (least.ok() && least->value != INT64_MAX) *started = true, *run_start = least->value;
}

}  // namespace rp::match
