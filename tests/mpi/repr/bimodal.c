/* bimodal: 40% of the ranks get a fifth more work, in one function.
 *
 * Each of ITERATIONS phases every rank spends BASE microseconds in
 * base_cells(); ranks 0 .. 2P/5 - 1 (40%) spend BASE / 5 more in
 * extra_cells(); then all meet in an MPI_Allreduce. Both sleep in libc.
 * With P = 5 and k = 5 a phase's paths cost 1.2 BASE, 1.2 BASE, BASE,
 * BASE, BASE: the 100% and 75% paths are long, 50% to 0% short, and what
 * the 100% path spends more than the 0% path is extra_cells, BASE / 5 a
 * phase.
 *
 *   bimodal -n ITERATIONS -b BASE_US
 */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Each kernel sleeps in libc itself, so that the samples name it. */
__attribute__((noinline)) void base_cells(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

__attribute__((noinline)) void extra_cells(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long iterations = 40, base = 20000;
  int opt;
  while ((opt = getopt(argc, argv, "n:b:")) != -1) {
    if (opt == 'n') iterations = atol(optarg);
    else if (opt == 'b') base = atol(optarg);
  }
  const int heavy = rank < (2 * size) / 5;
  double x = rank, sum = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (long it = 0; it < iterations; ++it) {
    base_cells(base);
    if (heavy) extra_cells(base / 5);
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
