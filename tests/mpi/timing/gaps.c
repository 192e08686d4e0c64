/* Known gaps between MPI calls: each rank sleeps 30 ms after MPI_Init, then
 * 50, 100, 200 and 400 ms between barriers, and measures with
 * CLOCK_MONOTONIC the time from the return of one call to the next call. Writes the measured gaps
 * (ns) to $RP_EXPECT_DIR/gaps-<rank>.txt; the trace's gaps (t0 of the next
 * barrier minus t1 of the previous one) must agree. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long NowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void SleepMs(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long long after_init = NowNs();
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int sleeps_ms[] = {50, 100, 200, 400};
  long long gaps[5];
  SleepMs(30);
  gaps[0] = NowNs() - after_init;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < 4; ++i) {
    const long long start = NowNs();
    SleepMs(sleeps_ms[i]);
    gaps[i + 1] = NowNs() - start;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  char path[4096];
  const char* dir = getenv("RP_EXPECT_DIR");
  snprintf(path, sizeof path, "%s/gaps-%d.txt", dir ? dir : ".", rank);
  FILE* f = fopen(path, "w");
  for (int i = 0; i < 5; ++i) fprintf(f, "%lld\n", gaps[i]);
  fclose(f);
  MPI_Finalize();
  return 0;
}
