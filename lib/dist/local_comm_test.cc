// The in-process group's collectives: what every thread gets back, worked
// out by hand for three processes.
#include "lib/dist/local_comm.h"

#include <gtest/gtest.h>

#include <mutex>

namespace rp::dist {
namespace {

struct Sum {
  int64_t value;
  void Add(const Sum& o) { value += o.value; }
};

TEST(LocalGroup, Collectives) {
  std::mutex mu;
  std::vector<std::string> gathered(3), received(3);
  std::vector<int64_t> sums(3);
  LocalGroup::Run(3, [&](Comm& comm) {
    const int me = comm.rank();
    auto all = comm.Allgather(std::string(1, static_cast<char>('a' + me)));
    ASSERT_TRUE(all.ok());
    Sum s{me + 1};
    std::string slot(reinterpret_cast<const char*>(&s), sizeof s);
    ASSERT_TRUE(comm.Allreduce(&slot, sizeof s, &FoldSlots<Sum>).ok());
    std::memcpy(&s, slot.data(), sizeof s);
    std::vector<std::string> out(3);
    for (int q = 0; q < 3; ++q) out[q] = std::to_string(me) + ">" + std::to_string(q);
    auto in = comm.Alltoallv(out);
    ASSERT_TRUE(in.ok());
    std::lock_guard lock(mu);
    gathered[me] = (*all)[0] + (*all)[1] + (*all)[2];
    sums[me] = s.value;
    for (const std::string& piece : *in) received[me] += piece + " ";
  });
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(gathered[p], "abc");
    EXPECT_EQ(sums[p], 6);
  }
  EXPECT_EQ(received[0], "0>0 1>0 2>0 ");
  EXPECT_EQ(received[2], "0>2 1>2 2>2 ");
}

// A replay's round: bytes only where a process has some for another, and
// counts added up over the three.
TEST(LocalGroup, ExchangeAndSum) {
  std::mutex mu;
  std::vector<std::string> received(3);
  std::vector<std::vector<int64_t>> sums(3);
  LocalGroup::Run(3, [&](Comm& comm) {
    const int me = comm.rank();
    std::vector<std::string> out(3);
    out[(me + 1) % 3] = std::to_string(me) + ">" + std::to_string((me + 1) % 3);
    std::vector<int64_t> counts{me, 10 * me + 1};
    auto in = comm.ExchangeAndSum(out, &counts);
    ASSERT_TRUE(in.ok());
    std::lock_guard lock(mu);
    for (const std::string& piece : *in) received[me] += piece + " ";
    sums[me] = counts;
  });
  EXPECT_EQ(received[0], "  2>0 ");
  EXPECT_EQ(received[1], "0>1   ");
  for (int p = 0; p < 3; ++p) EXPECT_EQ(sums[p], (std::vector<int64_t>{3, 33}));
}

}  // namespace
}  // namespace rp::dist
