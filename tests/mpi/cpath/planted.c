/* planted: a run whose critical path is known by construction.
 *
 * Each iteration every rank computes BASE microseconds (a sleep), swaps a
 * message with its ring neighbours (MPI_Sendrecv), then rank SLOW alone
 * computes EXTRA more in planted_work() before all ranks meet in an
 * MPI_Allreduce. Every iteration the others wait for rank SLOW, so the
 * critical path runs through planted_work() on rank SLOW: the computation
 * before the Allreduce carries about ITERATIONS * EXTRA of it, and without
 * it the run would be that much shorter.
 *
 * Each rank prints "span RANK START END" (CLOCK_MONOTONIC ns, from the
 * return of MPI_Init to the call of MPI_Finalize: the application's time)
 * and "init RANK NS" (how long its MPI_Init took, as it saw it), so the
 * test knows the times rp-cpath must report.
 *
 *   planted -n ITERATIONS -u BASE_US -s SLOW -x EXTRA_US
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

__attribute__((noinline)) void base_work(long us) { sleep_us(us); }
__attribute__((noinline)) void planted_work(long us) { sleep_us(us); }

int main(int argc, char** argv) {
  const long long init_start = now_ns();
  MPI_Init(&argc, &argv);
  const long long start = now_ns();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long iterations = 20, base = 2000, slow = 1, extra = 20000;
  int opt;
  while ((opt = getopt(argc, argv, "n:u:s:x:")) != -1) {
    const long v = atol(optarg);
    if (opt == 'n') iterations = v;
    else if (opt == 'u') base = v;
    else if (opt == 's') slow = v;
    else if (opt == 'x') extra = v;
  }
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double out = rank, in = 0, sum = 0;
  for (long it = 0; it < iterations; ++it) {
    base_work(base);
    MPI_Sendrecv(&out, 1, MPI_DOUBLE, right, 0, &in, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == slow) planted_work(extra);
    MPI_Allreduce(&in, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  const long long end = now_ns();
  MPI_Finalize();
  printf("span %d %lld %lld\n", rank, start, end);
  printf("init %d %lld\n", rank, start - init_start);
  return 0;
}
