/* kernels: two compute functions of known lengths and a planted slow rank,
 * to check that rp-cpath names the code on the critical path.
 *
 * Each iteration every rank spends LIGHT microseconds in light_kernel(),
 * rank SLOW another HEAVY in heavy_kernel(), then all meet in an
 * MPI_Allreduce. Both kernels sleep in libc (usleep, nanosleep), so the
 * samples' innermost frames are libc's and must be charged to the kernel
 * calling it. The critical path runs through rank SLOW every iteration:
 * heavy_kernel carries HEAVY / (LIGHT + HEAVY) of its computation although
 * light_kernel takes as much time over all ranks when there are
 * (LIGHT + HEAVY) / LIGHT ranks.
 *
 * Each rank prints "span RANK START END" (the application's time, from
 * MPI_Init's return to MPI_Finalize's call, CLOCK_MONOTONIC ns) and
 * "kernel RANK NAME NS" (the time it measured in each kernel), so the test
 * compares rp-cpath's attribution with what the ranks really spent.
 *
 *   kernels -n ITERATIONS -l LIGHT_US -x HEAVY_US -s SLOW
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

/* To the deadline: a sleep a signal (the sampler's) cuts short resumes. */
__attribute__((noinline)) void light_kernel(long us) {
  const long long end = now_ns() + us * 1000LL;
  for (long long left = us * 1000LL; left > 0; left = end - now_ns()) usleep((useconds_t)((left + 999) / 1000));
}

__attribute__((noinline)) void heavy_kernel(long us) {
  const long long end = now_ns() + us * 1000LL;
  for (long long left = us * 1000LL; left > 0; left = end - now_ns()) {
    struct timespec ts = {left / 1000000000LL, left % 1000000000LL};
    nanosleep(&ts, NULL);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long long start = now_ns();
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long iterations = 40, light = 5000, heavy = 20000, slow = 3;
  int opt;
  while ((opt = getopt(argc, argv, "n:l:x:s:")) != -1) {
    const long v = atol(optarg);
    if (opt == 'n') iterations = v;
    else if (opt == 'l') light = v;
    else if (opt == 'x') heavy = v;
    else if (opt == 's') slow = v;
  }
  long long in_light = 0, in_heavy = 0;
  double x = rank, sum = 0;
  for (long it = 0; it < iterations; ++it) {
    long long t = now_ns();
    light_kernel(light);
    in_light += now_ns() - t;
    if (rank == slow) {
      t = now_ns();
      heavy_kernel(heavy);
      in_heavy += now_ns() - t;
    }
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  const long long end = now_ns();
  MPI_Finalize();
  printf("span %d %lld %lld\n", rank, start, end);
  printf("kernel %d light_kernel %lld\n", rank, in_light);
  printf("kernel %d heavy_kernel %lld\n", rank, in_heavy);
  return 0;
}
