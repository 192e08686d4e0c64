/* An application that returns from main without MPI_Finalize: every call
 * it made must still be in the trace (flushed at exit), and the ranks must
 * be reported incomplete. */
#include <mpi.h>

#include "tests/mpi/expect.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  rp_expect_init();
  int rank, size, value = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 50; ++i) {
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    rp_expect("MPI_Allreduce", "\"bytes\":4,\"op\":\"MPI_SUM\",\"comm_ranks\":[0,1,2]");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  rp_expect("MPI_Barrier", " ");
  return 0; /* no MPI_Finalize */
}
