/* How long MPI_Init and MPI_Finalize take, as the application sees them:
 * each rank prints "init RANK NS" and "finalize RANK NS" (CLOCK_MONOTONIC,
 * from the call to the return). With the collector preloaded the times
 * include its set-up and tear-down. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char** argv) {
  const long long t0 = now_ns();
  MPI_Init(&argc, &argv);
  const long long t1 = now_ns();
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  const long long t2 = now_ns();
  MPI_Finalize();
  const long long t3 = now_ns();
  printf("init %d %lld\nfinalize %d %lld\n", rank, t1 - t0, rank, t3 - t2);
  return 0;
}
