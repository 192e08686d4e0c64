/* Functions that spend known shares of wall time: computing (50%),
 * sleeping in nanosleep (30%) and waiting in poll() (20%), for `rounds`
 * rounds of 100 ms separated by a barrier. Wall-clock samples must
 * attribute each share to its function. The time is measured, not assumed:
 * each function runs until its deadline on the monotonic clock. */
#include <mpi.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) void compute_work(double seconds) {
  const double end = Now() + seconds;
  volatile double x = 1.0;
  while (Now() < end) {
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
  }
}

__attribute__((noinline)) void sleep_work(double seconds) {
  struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
  nanosleep(&ts, NULL);
}

/* Blocked in a system call; poll() returns early on signals, so loop to the
 * deadline as robust code does. */
__attribute__((noinline)) void syscall_work(double seconds) {
  const double end = Now() + seconds;
  for (double left = seconds; left > 0; left = end - Now()) poll(NULL, 0, (int)(left * 1000) + 1);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int rounds = argc > 1 ? atoi(argv[1]) : 10;
  for (int r = 0; r < rounds; ++r) {
    compute_work(0.050);
    sleep_work(0.030);
    syscall_work(0.020);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
