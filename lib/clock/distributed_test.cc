// RepairAcross over threads as processes: on a generated trace whose ranks'
// clocks disagree, split between 1-4 processes, every event of every
// window gets the times Repair gives it on the whole window, each rank's
// moves and carried shift are the same, and so are the violations left;
// a cycle of inconsistent messages is broken where one process breaks it.
#include "lib/clock/distributed.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "lib/dist/local_comm.h"
#include "lib/match/testing.h"
#include "lib/trace/testing.h"
#include "lib/window/testing.h"

namespace rp::clock {
namespace {

// What the repair did, by "rank.seq" (times) and by rank (moves, shift).
struct Outcome {
  std::map<std::string, std::pair<int64_t, int64_t>> times;
  std::map<int64_t, std::tuple<int64_t, int64_t, int64_t>> ranks;  // moved, max shift, shift at the end
  int64_t cycles = 0, violations_before = 0, violations_after = 0;
  bool operator==(const Outcome&) const = default;
};

void ExpectSameRepair(const std::string& name, const std::string& text, const std::vector<std::pair<int, int>>& groups,
                      int processes, const RepairOptions& options, int64_t expected_cycles = 0) {
  const window::TestWindows whole = window::ReadWindows(text);
  Outcome expected;
  {
    std::vector<int64_t> shift;
    std::vector<RankRepair> moves;
    for (window::Window w : whole.windows) {
      const match::Matching m = match::Match(w, whole.dict);
      Constraints constraints;
      constraints.Build(w, m);
      expected.violations_before += CountViolations(w, constraints, options.min_latency).messages;
      const RepairResult r = Repair(&w, constraints, options, &shift);
      expected.violations_after += CountViolations(w, constraints, options.min_latency).messages;
      expected.cycles += r.cycles_broken;
      if (moves.size() < r.ranks.size()) moves.resize(r.ranks.size());
      for (size_t k = 0; k < r.ranks.size(); ++k) {
        moves[k].moved += r.ranks[k].moved;
        moves[k].max_shift = std::max(moves[k].max_shift, r.ranks[k].max_shift);
      }
      for (const window::Event& e : w.events) {
        expected.times[std::to_string(e.rank) + "." + std::to_string(e.seq)] = {e.t0, e.t1};
      }
    }
    for (size_t k = 0; k < moves.size(); ++k) expected.ranks[k] = {moves[k].moved, moves[k].max_shift, shift[k]};
  }
  ASSERT_EQ(expected.cycles, expected_cycles);

  const std::string index = trace::WriteSplit(name, text, groups);
  std::mutex mu;
  Outcome got;
  RepairStats most;
  dist::LocalGroup::Run(processes, [&](dist::Comm& comm) {
    const int me = comm.rank();
    std::vector<int64_t> shift;
    std::vector<RankRepair> moves;
    Outcome mine;
    RepairStats stats;
    const match::Owners owners = match::ForEachWindowAcross(
        comm, index, [&](const match::Owners&, window::Window& w, const match::Matching& m, const match::Ghosts& ghosts) {
          Constraints constraints;
          constraints.Build(w, m);
          mine.violations_before += CountViolations(w, constraints, options.min_latency).messages;
          auto r = RepairAcross(comm, &w, constraints, ghosts, options, &shift, &stats);
          ASSERT_TRUE(r.ok()) << r.status().message();
          ASSERT_TRUE(ShareGhostTimes(comm, &w, ghosts, &stats).ok());
          mine.violations_after += CountViolations(w, constraints, options.min_latency).messages;
          mine.cycles += r->cycles_broken;
          if (moves.size() < r->ranks.size()) moves.resize(r->ranks.size());
          for (size_t k = 0; k < r->ranks.size(); ++k) {
            moves[k].moved += r->ranks[k].moved;
            moves[k].max_shift = std::max(moves[k].max_shift, r->ranks[k].max_shift);
          }
          for (const window::Event& e : w.events) {
            if (!e.ghost()) mine.times[std::to_string(e.rank) + "." + std::to_string(e.seq)] = {e.t0, e.t1};
          }
        });
    for (size_t k = 0; k < moves.size(); ++k) {
      if (owners.Of(static_cast<int64_t>(k)) == me) {
        mine.ranks[k] = {moves[k].moved, moves[k].max_shift, k < shift.size() ? shift[k] : 0};
      }
    }
    std::lock_guard lock(mu);
    got.times.insert(mine.times.begin(), mine.times.end());
    got.ranks.insert(mine.ranks.begin(), mine.ranks.end());
    got.cycles += mine.cycles;
    got.violations_before += mine.violations_before;
    got.violations_after += mine.violations_after;
    most.rounds = std::max(most.rounds, stats.rounds);
  });
  EXPECT_EQ(got.times, expected.times) << name << " on " << processes << " processes";
  EXPECT_EQ(got.ranks, expected.ranks) << name << " on " << processes << " processes";
  EXPECT_EQ(got.cycles, expected.cycles);
  EXPECT_EQ(got.violations_before, expected.violations_before);
  EXPECT_EQ(got.violations_after, expected.violations_after);
  EXPECT_GT(most.rounds, 0);
}

TEST(RepairAcross, TimesAreTheOneProcessRepairs) {
  const std::string text = match::MixedTrace(6, 5, 300);
  // The skew breaks causality: there is something to repair.
  {
    const window::TestWindows whole = window::ReadWindows(text);
    int64_t violations = 0;
    for (const window::Window& w : whole.windows) {
      Constraints constraints;
      constraints.Build(w, match::Match(w, whole.dict));
      violations += CountViolations(w, constraints, 0).messages;
    }
    ASSERT_GT(violations, 10);
  }
  RepairOptions plain;
  RepairOptions latency;
  latency.min_latency = 50;
  RepairOptions jumps;
  jumps.amortize = false;
  for (int processes : {1, 2, 3, 4}) {
    ExpectSameRepair("repair-3", text, {{0, 1}, {2, 3}, {4, 5}}, processes, plain);
    ExpectSameRepair("repair-6", text, {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}, processes, plain);
    ExpectSameRepair("repair-latency", text, {{0, 0}, {1, 2}, {3, 5}}, processes, latency);
    ExpectSameRepair("repair-jumps", text, {{0, 2}, {3, 5}}, processes, jumps);
  }
}

// Each rank first receives what the other sends only afterwards: nothing
// is ready anywhere, and the earliest started event (rank 0's Recv) is
// finished first, as clock_test's one-process case.
TEST(RepairAcross, BreaksACycleWhereOneProcessBreaksIt) {
  using window::TestMpi;
  const std::string text = window::TestHeader(2) + TestMpi(0, 0, "MPI_Recv", 10, 20, R"(,"peer":1,"tag":1)") +
                           TestMpi(1, 0, "MPI_Recv", 10, 20, R"(,"peer":0,"tag":2)") +
                           TestMpi(0, 1, "MPI_Send", 30, 40, R"(,"peer":1,"tag":2)") +
                           TestMpi(1, 1, "MPI_Send", 30, 40, R"(,"peer":0,"tag":1)");
  RepairOptions options;
  for (int processes : {1, 2}) ExpectSameRepair("repair-cycle", text, {{0, 0}, {1, 1}}, processes, options, 1);
}

}  // namespace
}  // namespace rp::clock
