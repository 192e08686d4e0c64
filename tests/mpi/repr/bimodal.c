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
 * With -w FILE every rank writes, after MPI_Finalize, what its phases
 * really computed as CLOCK_MONOTONIC saw it to FILE.RANK: a line "PHASE
 * COMPUTE_NS EXTRA_NS" a phase, COMPUTE the time between its MPI calls
 * (phase 0 from MPI_Init's return to the Barrier, the last from the last
 * Allreduce to MPI_Finalize), EXTRA the part in extra_cells. A sleep that
 * overshoots on a busy machine is then known, not guessed.
 *
 *   bimodal -n ITERATIONS -b BASE_US [-w FILE]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

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
  long long mark = now_ns();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long iterations = 40, base = 20000;
  const char* report = NULL;
  int opt;
  while ((opt = getopt(argc, argv, "n:b:w:")) != -1) {
    if (opt == 'n') iterations = atol(optarg);
    else if (opt == 'b') base = atol(optarg);
    else if (opt == 'w') report = optarg;
  }
  if (iterations < 0) iterations = 0;
  const int heavy = rank < (2 * size) / 5;
  double x = rank, sum = 0;
  /* compute[p] and extra[p] of phase p, 0 .. iterations + 1. */
  long long* compute = calloc(iterations + 2, sizeof *compute);
  long long* extra = calloc(iterations + 2, sizeof *extra);
  if (!compute || !extra) abort();
  compute[0] = now_ns() - mark;
  MPI_Barrier(MPI_COMM_WORLD);
  mark = now_ns();
  for (long it = 0; it < iterations; ++it) {
    base_cells(base);
    if (heavy) {
      long long begin = now_ns();
      extra_cells(base / 5);
      extra[it + 1] = now_ns() - begin;
    }
    compute[it + 1] = now_ns() - mark;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    mark = now_ns();
  }
  compute[iterations + 1] = now_ns() - mark;
  /* Written after MPI_Finalize, so that the writing is in no phase. */
  MPI_Finalize();
  if (report) {
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", report, rank);
    FILE* f = fopen(path, "w");
    if (f) {
      for (long p = 0; p < iterations + 2; ++p) fprintf(f, "%ld %lld %lld\n", p, compute[p], extra[p]);
      fclose(f);
    }
  }
  free(compute);
  free(extra);
  return 0;
}
