/* A rank that dies mid-run. Every rank exchanges in a ring for `iterations`
 * rounds; rank `victim` kills itself with `signal` (SIGKILL or SIGTERM)
 * after `kill_at` rounds. Expectations are written up to the last call made
 * before dying, so the trace of each rank must be a prefix of them:
 *  - SIGKILL: the victim loses at most its last, unwritten buffer;
 *  - SIGTERM (and the SIGTERM mpirun sends the others): nothing is lost.
 *   killed_rank ITERATIONS KILL_AT VICTIM SIGNAL */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/mpi/expect.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  rp_expect_init();
  const int iterations = atoi(argv[1]), kill_at = atoi(argv[2]), victim = atoi(argv[3]),
            sig = atoi(argv[4]);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = rank, in = -1;
  for (int i = 0; i < iterations; ++i) {
    if (rank == victim && i == kill_at) raise(sig);
    MPI_Sendrecv(&out, 1, MPI_INT, right, i % 100, &in, 1, MPI_INT, left, i % 100, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    rp_expect("MPI_Sendrecv", "\"peer\":%d,\"tag\":%d,\"bytes\":4,\"rpeer\":%d,\"rtag\":%d,\"rbytes\":4",
              right, i % 100, left, i % 100);
  }
  rp_expect_finalize();
  MPI_Finalize();
  return 0;
}
