#include "lib/online/path_set.h"

#include <gtest/gtest.h>

#include <vector>

namespace rp::online {
namespace {

std::vector<int64_t> Costs(const PathSet& s) {
  std::vector<int64_t> out;
  for (const SetPath& p : s.paths()) out.push_back(p.cost);
  return out;
}

// A set holding paths of the given costs, each one task on `rank`.
PathSet WithCosts(const SetConfig& c, int32_t rank, const std::vector<int64_t>& costs) {
  PathSet out(c);
  std::vector<PathSet> singles;
  for (int64_t cost : costs) {
    PathSet s(c);
    s.AddTask(rank, 1, 0, cost);
    singles.push_back(s);
  }
  std::vector<const PathSet*> others;
  for (const PathSet& s : singles) others.push_back(&s);
  PathSet first = singles[0];
  first.Join({others.data() + 1, others.size() - 1});
  return first;
}

TEST(PathSetTest, ChainBranchesAndJoins) {
  const SetConfig c{.k = 2, .intervals = 8};
  PathSet r0(c), r1(c);
  r0.AddTask(0, 1, 0, 10);  // rank 0 works 10 ns, sends its set
  r1.AddTask(1, 1, 0, 5);   // rank 1 works 5 ns, receives it
  const PathSet* in = &r0;
  std::vector<int> positions;
  int total = 0;
  r1.Join({&in, 1}, &positions, &total);
  EXPECT_EQ(total, 2);
  EXPECT_EQ(positions, (std::vector<int>{0, 1}));
  r1.AddTask(1, 2, 20, 30);
  ASSERT_EQ(Costs(r1), (std::vector<int64_t>{20, 15}));
  // The 20 ns path came from rank 0: one interval there, one here.
  const auto& a = r1.paths()[0].summary;
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].rank, 0);
  EXPECT_EQ(a[0].cost, 10);
  EXPECT_EQ(a[1].rank, 1);
  EXPECT_EQ(a[1].first, 2);
  EXPECT_EQ(a[1].t0, 20);
  EXPECT_EQ(a[1].t1, 30);
  // The 15 ns path stayed on rank 1: both tasks in one interval.
  const auto& b = r1.paths()[1].summary;
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].rank, 1);
  EXPECT_EQ(b[0].first, 1);
  EXPECT_EQ(b[0].last, 2);
  EXPECT_EQ(b[0].tasks, 2);
  EXPECT_EQ(b[0].cost, 15);
}

TEST(PathSetTest, SelectsPercentilesOrExtremes) {
  // 50, 40, 30, 20, 10 with k = 3: repr keeps positions 0, 2, 4; topk the
  // 1 most and the 2 least costly.
  SetConfig c{.k = 3, .intervals = 4};
  PathSet repr = WithCosts(c, 0, {10, 20});
  PathSet more = WithCosts(c, 1, {30, 40, 50});
  const PathSet* in = &more;
  std::vector<int> positions;
  int total = 0;
  repr.Join({&in, 1}, &positions, &total);
  EXPECT_EQ(Costs(repr), (std::vector<int64_t>{50, 30, 10}));
  EXPECT_EQ(positions, (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(total, 5);

  c.select = repr::Select::kTopK;
  PathSet topk = WithCosts(c, 0, {10, 20});
  PathSet more_topk = WithCosts(c, 1, {30, 40, 50});
  in = &more_topk;
  topk.Join({&in, 1});
  EXPECT_EQ(Costs(topk), (std::vector<int64_t>{50, 20, 10}));
}

TEST(PathSetTest, CopiesCountOnce) {
  // After an all-to-all every rank holds the same paths: a join of two
  // copies keeps each once.
  const SetConfig c{.k = 4, .intervals = 4};
  PathSet a = WithCosts(c, 0, {10, 20, 30});
  PathSet b = a;
  const PathSet* in = &b;
  int total = 0;
  a.Join({&in, 1}, nullptr, &total);
  EXPECT_EQ(total, 3);
  EXPECT_EQ(Costs(a), (std::vector<int64_t>{30, 20, 10}));
}

TEST(PathSetTest, OverflowKeepsTheRest) {
  // Two intervals a path: tasks on ranks 0, 1, 2, 3 leave rank 0's and
  // the rest (ranks 1-3, 3 tasks, their cost), the cost exact.
  const SetConfig c{.k = 1, .intervals = 2};
  PathSet s(c);
  s.AddTask(0, 1, 0, 1);
  s.AddTask(1, 1, 10, 12);
  s.AddTask(2, 1, 20, 23);
  s.AddTask(3, 1, 30, 34);
  const SetPath& p = s.paths()[0];
  EXPECT_EQ(p.cost, 10);
  ASSERT_EQ(p.summary.size(), 2u);
  EXPECT_TRUE(p.overflow());
  EXPECT_EQ(p.summary[0].rank, 0);
  EXPECT_EQ(p.summary[1].rank, SetPath::kRest);
  EXPECT_EQ(p.summary[1].tasks, 3);
  EXPECT_EQ(p.summary[1].cost, 9);
  EXPECT_EQ(p.summary[1].t0, 10);
  EXPECT_EQ(p.summary[1].t1, 34);
}

TEST(PathSetTest, WireRoundTripAndJoinWire) {
  const SetConfig c{.k = 3, .intervals = 4};
  PathSet a = WithCosts(c, 0, {10, 20});
  a.AddTask(1, 7, 100, 150);
  std::vector<uint8_t> buf(PathSet::MaxBytes(c)), other(PathSet::MaxBytes(c));
  ASSERT_EQ(a.Encode(buf), a.WireBytes());
  EXPECT_EQ(a.WireBytes(), 8u + 2 * 16 + 4 * 40);
  PathSet back;
  ASSERT_TRUE(PathSet::Decode(buf, c, &back));
  EXPECT_EQ(Costs(back), Costs(a));
  EXPECT_EQ(back.paths()[0].summary[1].first, 7);
  EXPECT_EQ(back.paths()[0].summary[1].t1, 150);
  // Damaged or over the bounds: refused.
  EXPECT_FALSE(PathSet::Decode({buf.data(), 20}, c, &back));
  EXPECT_FALSE(PathSet::Decode(buf, SetConfig{.k = 1, .intervals = 4}, &back));
  EXPECT_FALSE(PathSet::Decode(buf, SetConfig{.k = 3, .intervals = 1}, &back));

  // The collectives' operation gives what Join gives.
  PathSet b = WithCosts(c, 2, {5, 25, 40});
  b.Encode(other);
  JoinWire(c, buf.data(), other.data());
  PathSet joined;
  ASSERT_TRUE(PathSet::Decode(other, c, &joined));
  const PathSet* in = &a;
  b.Join({&in, 1});
  EXPECT_EQ(Costs(joined), Costs(b));
  EXPECT_EQ(Costs(joined), (std::vector<int64_t>{70, 40, 5}));
}

TEST(PathSetTest, IntervalsForABudget) {
  // 5 paths in 2008 bytes: (2000 / 5 - 16) / 40 = 9 intervals each.
  EXPECT_EQ(IntervalsFor(2008, 5), 9);
  EXPECT_LE(PathSet::MaxBytes({.k = 5, .intervals = 9}), 2008u);
  EXPECT_EQ(IntervalsFor(20, 5), 0);
  // With 4 functions a path: (400 - 16 - 64) / 40 = 8.
  EXPECT_EQ(IntervalsFor(2008, 5, 4), 8);
  EXPECT_EQ(ProfileFunctionsFor(2008, 5), 4);
  // 16 paths in 1928 bytes: 120 each keeps 2 intervals beside 1 function.
  EXPECT_EQ(ProfileFunctionsFor(1928, 16), 1);
  EXPECT_EQ(IntervalsFor(1928, 16, 1), 2);
}

// Path profiles (§6): each path keeps its tasks' cost by function, its
// heaviest `functions`; a join keeps each kept path's with it, and the
// wire carries them. By hand: rank 0 spends 6 in f1 and 4 in f2, rank 1
// 3 in f3; the chain's path holds all three (13), rank 1's own only f3.
TEST(PathSetTest, PathsKeepTheirFunctions) {
  const SetConfig c{.k = 2, .intervals = 4, .functions = 2};
  PathSet r0(c), r1(c);
  const FunctionCost f0[] = {{1, 6}, {2, 4}}, f1[] = {{3, 3}};
  r0.AddTask(0, 1, 0, 10, f0);
  r1.AddTask(1, 1, 0, 3, f1);
  const PathSet* in = &r0;
  r1.Join({&in, 1});
  ASSERT_EQ(Costs(r1), (std::vector<int64_t>{10, 3}));
  r1.AddTask(1, 2, 10, 13, f1);
  ASSERT_EQ(Costs(r1), (std::vector<int64_t>{13, 6}));
  // The chain's path: f1 6, f2 4, then f3 3 takes the lightest's place
  // (f2's 4 go to the rest of the path).
  const std::vector<FunctionCost>& chain = r1.paths()[0].code;
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(chain[0].function, 1u);
  EXPECT_EQ(chain[0].ns, 6);
  EXPECT_EQ(chain[1].function, 3u);
  EXPECT_EQ(chain[1].ns, 3);
  const std::vector<FunctionCost>& own = r1.paths()[1].code;
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].ns, 6);  // f3 twice
  std::vector<uint8_t> buf(PathSet::MaxBytes(c));
  const size_t n = r1.Encode(buf);
  ASSERT_EQ(n, r1.WireBytes());
  PathSet back(c);
  ASSERT_TRUE(PathSet::Decode({buf.data(), n}, c, &back));
  ASSERT_EQ(back.paths()[0].code.size(), 2u);
  EXPECT_EQ(back.paths()[0].code[1].ns, 3);
  r1.MapFunctions([](uint64_t key) { return key + 100; });
  EXPECT_EQ(r1.paths()[1].code[0].function, 103u);
  // More functions than the config allows: refused.
  EXPECT_FALSE(PathSet::Decode({buf.data(), n}, {.k = 2, .intervals = 4, .functions = 1}, &back));
}

}  // namespace
}  // namespace rp::online
