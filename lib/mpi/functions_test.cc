#include "lib/mpi/functions.h"

#include <gtest/gtest.h>

#include <iterator>

namespace rp::mpi {
namespace {

TEST(Functions, IdsAreRowsOfTheTable) {
  EXPECT_EQ(std::size(kFunctions), size_t{kFunctionCount});
  EXPECT_STREQ(kFunctions[kFn_MPI_Init].name, "MPI_Init");
  EXPECT_STREQ(kFunctions[kFn_MPI_Waitall].name, "MPI_Waitall");
  EXPECT_EQ(FindFunction("MPI_Isend"), kFn_MPI_Isend);
  EXPECT_EQ(FindFunction("MPI_Nonesuch"), -1);
  EXPECT_EQ(FindFunction(""), -1);
}

TEST(Functions, SemanticsComeFromTheTable) {
  EXPECT_TRUE(kFunctions[kFn_MPI_Isend].nonblocking);
  EXPECT_FALSE(kFunctions[kFn_MPI_Send].nonblocking);
  EXPECT_TRUE(kFunctions[kFn_MPI_Iallreduce].nonblocking);
  EXPECT_EQ(kFunctions[kFn_MPI_Iallreduce].collective, Collective::kAll);
  EXPECT_EQ(kFunctions[kFn_MPI_Bcast].collective, Collective::kRootOut);
  EXPECT_EQ(kFunctions[kFn_MPI_Gatherv].collective, Collective::kRootIn);
  EXPECT_EQ(kFunctions[kFn_MPI_Exscan].collective, Collective::kPrefix);
  EXPECT_EQ(kFunctions[kFn_MPI_Ineighbor_alltoallw].collective, Collective::kNeighbour);
  EXPECT_EQ(kFunctions[kFn_MPI_Recv].collective, Collective::kNone);
  EXPECT_EQ(kFunctions[kFn_MPI_Waitsome].category, Category::kWaitsome);
}

}  // namespace
}  // namespace rp::mpi
