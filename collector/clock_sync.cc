#include "collector/clock_sync.h"

#include <mpi.h>

#include <climits>

#include "collector/runtime.h"

namespace rp::collector {

ClockOffset MeasureClockOffset(int exchanges) {
  MPI_Comm comm;
  PMPI_Comm_dup(MPI_COMM_WORLD, &comm);  // keeps the handshake off the app's tags
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  ClockOffset result{MonotonicNs(), 0, 0};
  constexpr int kTag = 7;
  if (rank == 0) {
    for (int peer = 1; peer < size; ++peer) {
      for (int i = 0; i < exchanges; ++i) {
        int64_t ping = 0;
        PMPI_Recv(&ping, 1, MPI_INT64_T, peer, kTag, comm, MPI_STATUS_IGNORE);
        const int64_t now = MonotonicNs();
        PMPI_Send(&now, 1, MPI_INT64_T, peer, kTag, comm);
      }
    }
  } else {
    int64_t best_rtt = INT64_MAX;
    for (int i = 0; i < exchanges; ++i) {
      const int64_t sent = MonotonicNs();
      PMPI_Send(&sent, 1, MPI_INT64_T, 0, kTag, comm);
      int64_t remote = 0;
      PMPI_Recv(&remote, 1, MPI_INT64_T, 0, kTag, comm, MPI_STATUS_IGNORE);
      const int64_t received = MonotonicNs();
      const int64_t rtt = received - sent;
      if (rtt < best_rtt) {
        best_rtt = rtt;
        const int64_t midpoint = sent + rtt / 2;
        result = ClockOffset{midpoint, remote - midpoint, rtt};
      }
    }
  }
  PMPI_Barrier(comm);
  PMPI_Comm_free(&comm);
  return result;
}

}  // namespace rp::collector
