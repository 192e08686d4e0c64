/* staircase: a run whose representative paths are known by construction.
 *
 * Each of ITERATIONS phases, rank r computes (r + 1) * C microseconds (a
 * sleep) and then all ranks meet in an MPI_Barrier. A phase's paths are
 * each rank's own computation, so with P ranks its k path costs are order
 * statistics of (1..P) * C: for P = 8 and k = 5 (repr) 8C, 6C, 4C, 3C, C;
 * for k = 4 (topk) 8C, 7C, 2C, C.
 *
 *   staircase -n ITERATIONS -c C_US
 */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) void step_work(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long iterations = 10, c = 5000;
  int opt;
  while ((opt = getopt(argc, argv, "n:c:")) != -1) {
    if (opt == 'n') iterations = atol(optarg);
    else if (opt == 'c') c = atol(optarg);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (long it = 0; it < iterations; ++it) {
    step_work((rank + 1) * c);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
