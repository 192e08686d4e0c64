/* halo: a 1-D halo exchange, the bundled example of `make demo` and the
 * application of the overhead benchmark.
 *
 * Each iteration every rank computes, posts Irecv/Isend to both ring
 * neighbours and waits; every `reduce_every` iterations an Allreduce.
 * Compute is either real arithmetic (`-w UNITS`, fixed work: traced and
 * untraced runs do the same) or a sleep (`-u MICROSECONDS`, meaningful when
 * ranks are oversubscribed). One rank can be planted slower (`-s RANK
 * -x EXTRA_MICROSECONDS`), which is then the critical path. With `-e 1`
 * every iteration also calls an MPI_Allgatherv that moves nothing (every
 * count 0) after its computation: MPI does not make such a call wait for
 * the others (Open MPI returns at once), so the ranks leave it while the
 * slow rank still computes.
 *
 *   halo [-n ITERATIONS] [-w UNITS | -u US] [-b BYTES] [-r REDUCE_EVERY]
 *        [-s SLOW_RANK -x EXTRA_US] [-e 1]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double sink;

/* Fixed floating-point work: `units` thousand multiply-adds. */
__attribute__((noinline)) void compute(long units) {
  double x = sink + 1.0;
  for (long i = 0; i < units * 1000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

__attribute__((noinline)) void compute_by_sleeping(long microseconds) {
  struct timespec ts = {microseconds / 1000000, (microseconds % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

__attribute__((noinline)) void exchange(double* left_out, double* right_out, double* left_in,
                                        double* right_in, int count, int left, int right) {
  MPI_Request requests[4];
  MPI_Irecv(left_in, count, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &requests[0]);
  MPI_Irecv(right_in, count, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &requests[1]);
  MPI_Isend(right_out, count, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &requests[2]);
  MPI_Isend(left_out, count, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &requests[3]);
  MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long iterations = 100, work = 0, sleep_us = 1000, bytes = 8192, reduce_every = 10;
  long slow_rank = -1, slow_us = 0, empty = 0;
  int opt;
  while ((opt = getopt(argc, argv, "n:w:u:b:r:s:x:e:")) != -1) {
    const long value = atol(optarg);
    switch (opt) {
      case 'n': iterations = value; break;
      case 'w': work = value; sleep_us = 0; break;
      case 'u': sleep_us = value; work = 0; break;
      case 'b': bytes = value; break;
      case 'r': reduce_every = value > 0 ? value : 1; break;
      case 's': slow_rank = value; break;
      case 'x': slow_us = value; break;
      case 'e': empty = value; break;
      default:
        if (rank == 0) fprintf(stderr, "usage: halo [-n N] [-w UNITS|-u US] [-b BYTES] [-r K] [-s RANK -x US] [-e 1]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  const int count = (int)(bytes / sizeof(double));
  double* buffers = calloc(4 * (size_t)(count > 0 ? count : 1), sizeof(double));
  double *left_out = buffers, *right_out = buffers + count, *left_in = buffers + 2 * count,
         *right_in = buffers + 3 * count;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int* no_counts = calloc((size_t)size, sizeof(int));  /* counts and displacements of -e's call */
  const double start = MPI_Wtime();
  double residual = 1.0;
  for (long it = 0; it < iterations; ++it) {
    if (work > 0) compute(work);
    if (sleep_us > 0) compute_by_sleeping(sleep_us);
    if (rank == slow_rank && slow_us > 0) compute_by_sleeping(slow_us);
    if (empty) MPI_Allgatherv(NULL, 0, MPI_DOUBLE, NULL, no_counts, no_counts, MPI_DOUBLE, MPI_COMM_WORLD);
    exchange(left_out, right_out, left_in, right_in, count, left, right);
    if ((it + 1) % reduce_every == 0) {
      double local = sink + left_in[0], global = 0;
      MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      residual = global;
    }
  }
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0) printf("halo: %d ranks, %ld iterations, %.3f s (%g)\n", size, iterations, elapsed, residual * 0);
  free(buffers);
  free(no_counts);
  MPI_Finalize();
  return 0;
}
