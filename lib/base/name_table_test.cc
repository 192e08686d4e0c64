#include "lib/base/name_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rp {
namespace {

// SameName reads words for some lengths: it must agree with == for every
// length and every position of a differing byte.
TEST(SameName, AgreesWithEqualityAtEveryLengthAndPosition) {
  for (size_t n = 0; n <= 40; ++n) {
    std::string a(n, 'x');
    for (size_t i = 0; i < n; ++i) a[i] = static_cast<char>('a' + i % 26);
    EXPECT_TRUE(SameName(a, std::string(a))) << n;
    EXPECT_FALSE(SameName(a, a + "y")) << n;
    for (size_t i = 0; i < n; ++i) {
      std::string b = a;
      b[i] = '#';
      EXPECT_FALSE(SameName(a, b)) << n << " " << i;
      EXPECT_FALSE(SameName(b, a)) << n << " " << i;
    }
  }
}

TEST(NameTable, FindsEveryNameAddedAndNoOther) {
  const std::vector<std::string> names = {"MPI_Send", "MPI_Isend", "MPI_Recv", "MPI_Irecv", "MPI_Allreduce",
                                          "MPI_Wait", "MPI_Waitall", "MPI_Neighbor_alltoallw_init", "a", ""};
  NameTable table;
  for (size_t i = 0; i < names.size(); ++i) table.Add(names[i], static_cast<int>(i));
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(table.Find(names[i]), static_cast<int>(i)) << names[i];
  EXPECT_EQ(table.Find("MPI_Sendx"), -1);
  EXPECT_EQ(table.Find("MPI_Wai"), -1);
  EXPECT_EQ(table.Find("b"), -1);
}

}  // namespace
}  // namespace rp
