/* MPI started with MPI_Init_thread(MPI_THREAD_FUNNELED) rather than
 * MPI_Init: the first record is the MPI_Init_thread, and the calls after it
 * are recorded as usual. Any number of ranks. */
#include <mpi.h>
#include <stdio.h>

#include "tests/mpi/expect.h"

int main(int argc, char** argv) {
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  rp_expect_init_as("MPI_Init_thread");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided < MPI_THREAD_FUNNELED) {
    fprintf(stderr, "init_thread: rank %d: asked for MPI_THREAD_FUNNELED, provided %d\n", rank, provided);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* MPI_COMM_WORLD's members as a JSON list. */
  char world[1024];
  size_t len = snprintf(world, sizeof world, "[");
  for (int r = 0; r < size && len < sizeof world; ++r)
    len += snprintf(world + len, sizeof world - len, "%s%d", r ? "," : "", r);
  if (len < sizeof world) snprintf(world + len, sizeof world - len, "]");
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;

  MPI_Barrier(MPI_COMM_WORLD);
  rp_expect("MPI_Barrier", "\"comm_ranks\":%s,\"absent\":[\"bytes\",\"rbytes\",\"root\"]", world);

  /* Sum of 1..size, 2 ints (the second a copy). */
  int mine[2] = {rank + 1, rank + 1}, sum[2] = {0, 0};
  MPI_Allreduce(mine, sum, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  rp_expect("MPI_Allreduce", "\"op\":\"MPI_SUM\",\"bytes\":8,\"comm_ranks\":%s,\"absent\":[\"root\"]", world);
  if (sum[0] != size * (size + 1) / 2) fprintf(stderr, "init_thread: rank %d: Allreduce gave %d\n", rank, sum[0]);

  /* Round the ring: 3 doubles to next, from prev. */
  double out[3] = {rank, rank, rank}, in[3] = {-1, -1, -1};
  MPI_Sendrecv(out, 3, MPI_DOUBLE, next, 7, in, 3, MPI_DOUBLE, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  rp_expect("MPI_Sendrecv", "\"peer\":%d,\"tag\":7,\"bytes\":24,\"rpeer\":%d,\"rtag\":7,\"rbytes\":24", next, prev);
  if (in[0] != prev) fprintf(stderr, "init_thread: rank %d: got %g from %d\n", rank, in[0], prev);

  rp_expect_finalize();
  MPI_Finalize();
  return 0;
}
