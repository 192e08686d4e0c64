#include "lib/trace/split.h"

#include <gtest/gtest.h>

#include <map>

#include "lib/trace/io.h"
#include "lib/trace/testing.h"

namespace rp::trace {
namespace {

std::vector<std::pair<int64_t, int64_t>> Pairs(const std::vector<RankGroup>& groups) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const RankGroup& g : groups) out.emplace_back(g.first, g.last);
  return out;
}

TEST(BalancedGroups, CutsWhereTheWeightReachesEachShare) {
  using P = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(Pairs(BalancedGroups(std::vector<int64_t>(8, 1), 4)), (P{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  // 10 of 16 on rank 0: half the weight is reached at rank 0.
  EXPECT_EQ(Pairs(BalancedGroups({10, 2, 2, 2}, 2)), (P{{0, 0}, {1, 3}}));
  // Every group keeps a rank, whatever the weights: the heavy rank is alone.
  EXPECT_EQ(Pairs(BalancedGroups({1, 1, 1, 100}, 3)), (P{{0, 1}, {2, 2}, {3, 3}}));
  EXPECT_EQ(Pairs(BalancedGroups({5, 5}, 9)), (P{{0, 0}, {1, 1}}));  // at most one group per rank
  EXPECT_EQ(Pairs(BalancedGroups({5, 5, 5}, 1)), (P{{0, 2}}));
}

TEST(PartPath, KeepsTheSuffixAndPadsTheNumber) {
  EXPECT_EQ(PartPath("run.ndjson.zst", 3, 16), "run.part03.ndjson.zst");
  EXPECT_EQ(PartPath("d.x/run.ndjson", 0, 2), "d.x/run.part0.ndjson");
  EXPECT_EQ(PartPath("run.zst", 9, 10), "run.part9.zst");
  EXPECT_EQ(PartPath("dir.ndjson/run", 1, 2), "dir.ndjson/run.part1");
  EXPECT_EQ(PartPath(".ndjson", 1, 2), ".ndjson.part1");
}

TEST(SplitWriter, RoutesByRankAndNamesThePartsLast) {
  std::string index, a, b;
  std::vector<SplitWriter::Part> parts(2);
  parts[0] = {std::make_unique<Writer>(StringOutput(&a)), "dir/a", {0, 1}};
  parts[1] = {std::make_unique<Writer>(StringOutput(&b)), "dir/b", {2, 2}};
  ASSERT_TRUE(parts[0].writer->WriteRaw("H").ok() && parts[1].writer->WriteRaw("H").ok());
  SplitWriter split(std::move(parts));
  EXPECT_EQ(split.After(), nullptr);  // before any event: the index's
  for (auto [rank, time] : std::vector<std::pair<int, int>>{{2, 5}, {0, 7}, {2, 9}, {1, 9}}) {
    auto out = split.For(rank, time);
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE((*out)->WriteRaw(std::to_string(rank)).ok());
  }
  ASSERT_TRUE(split.After()->WriteRaw("x").ok());  // follows rank 1's record
  EXPECT_EQ(split.For(3, 1).status().message(), "rank 3 is in no part of the split");
  Writer out(StringOutput(&index));
  ASSERT_TRUE(split.Finish(out).ok());
  ASSERT_TRUE(out.Close().ok());
  EXPECT_EQ(a, "H\n0\n1\nx\n");
  EXPECT_EQ(b, "H\n2\n2\n");
  EXPECT_EQ(index,
            R"({"type":"part","file":"a","first_rank":0,"last_rank":1,"records":3,"t0":7,"t1":9})" "\n"
            R"({"type":"part","file":"b","first_rank":2,"last_rank":2,"records":2,"t0":5,"t1":9})" "\n");
}

TEST(SplitWriter, OpensPartsBesideTheIndexStartedWithItsHeader) {
  std::map<std::string, std::string> files;
  const PartOpener open = [&](const std::string& path) -> Expected<std::unique_ptr<Writer>> {
    return std::make_unique<Writer>(StringOutput(&files[path]));
  };
  auto split = SplitWriter::Open("d/run.ndjson", {{0, 0}, {1, 2}}, open, "H");
  ASSERT_TRUE(split.ok()) << split.status().message();
  ASSERT_TRUE((*(*split)->For(2, 5))->WriteRaw("2").ok());
  std::string index;
  Writer out(StringOutput(&index));
  ASSERT_TRUE((*split)->Finish(out).ok());
  ASSERT_TRUE(out.Close().ok());
  EXPECT_EQ(files, (std::map<std::string, std::string>{{"d/run.part0.ndjson", "H\n"}, {"d/run.part1.ndjson", "H\n2\n"}}));
  EXPECT_EQ(index,
            R"({"type":"part","file":"run.part0.ndjson","first_rank":0,"last_rank":0,"records":0})" "\n"
            R"({"type":"part","file":"run.part1.ndjson","first_rank":1,"last_rank":2,"records":1,"t0":5,"t1":5})" "\n");
}

}  // namespace
}  // namespace rp::trace
