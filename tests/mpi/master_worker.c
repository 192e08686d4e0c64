/* Master/worker with MPI_ANY_SOURCE and MPI_ANY_TAG: rank 0 hands out
 * tasks to whichever worker reports first; every receive's source, tag and
 * size is known only from the status, so the trace must resolve them.
 * Task t's payload is (t % 5 + 1) ints; workers answer with tag 100 + t. */
#include <mpi.h>
#include <stdio.h>

#include "tests/mpi/expect.h"

enum { kTasks = 12, kStop = 999 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  rp_expect_init();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int data[8] = {0};
  MPI_Status status;
  if (rank == 0) {
    int next = 0, done = 0, stopped = 0;
    /* A first request from each worker: tag 1, no payload. */
    while (stopped < size - 1) {
      MPI_Recv(data, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      int count;
      MPI_Get_count(&status, MPI_INT, &count);
      rp_expect("MPI_Recv", "\"peer\":%d,\"tag\":%d,\"bytes\":%d", status.MPI_SOURCE, status.MPI_TAG,
                count * 4);
      if (status.MPI_TAG >= 100) ++done;
      if (next < kTasks) {
        const int n = next % 5 + 1;
        MPI_Send(data, n, MPI_INT, status.MPI_SOURCE, next, MPI_COMM_WORLD);
        rp_expect("MPI_Send", "\"peer\":%d,\"tag\":%d,\"bytes\":%d", status.MPI_SOURCE, next, n * 4);
        ++next;
      } else {
        MPI_Send(data, 0, MPI_INT, status.MPI_SOURCE, kStop, MPI_COMM_WORLD);
        rp_expect("MPI_Send", "\"peer\":%d,\"tag\":%d,\"bytes\":0", status.MPI_SOURCE, kStop);
        ++stopped;
      }
    }
    if (done != kTasks) fprintf(stderr, "master: %d of %d tasks done\n", done, kTasks);
  } else {
    MPI_Send(data, 0, MPI_INT, 0, 1, MPI_COMM_WORLD);
    rp_expect("MPI_Send", "\"peer\":0,\"tag\":1,\"bytes\":0");
    for (;;) {
      /* Wildcard receive with MPI_STATUS_IGNORE: the collector must still
       * resolve the tag (its own status), which this worker learns by probing. */
      MPI_Status probe;
      MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &probe);
      int count;
      MPI_Get_count(&probe, MPI_INT, &count);
      rp_expect("MPI_Probe", "\"peer\":0,\"tag\":%d,\"bytes\":%d", probe.MPI_TAG, count * 4);
      MPI_Recv(data, 8, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      rp_expect("MPI_Recv", "\"peer\":0,\"tag\":%d,\"bytes\":%d", probe.MPI_TAG, count * 4);
      if (probe.MPI_TAG == kStop) break;
      MPI_Send(data, 2, MPI_INT, 0, 100 + probe.MPI_TAG, MPI_COMM_WORLD);
      rp_expect("MPI_Send", "\"peer\":0,\"tag\":%d,\"bytes\":8", 100 + probe.MPI_TAG);
    }
  }
  rp_expect_finalize();
  MPI_Finalize();
  return 0;
}
