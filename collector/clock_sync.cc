#include "collector/clock_sync.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <unordered_set>

#include "collector/runtime.h"
#include "lib/base/fnv.h"

namespace rp::collector {
namespace {

// FNV-1a over host name and boot id (a NUL between them).
uint64_t ClockKey(const char* host, const char* boot_id) {
  return Fnv1a(Fnv1a(kFnvOffset, host, std::strlen(host) + 1), boot_id, std::strlen(boot_id));
}

}  // namespace

ClockGroups FindClockGroups(const char* host, const char* boot_id) {
  int rank = 0, size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  // An unknown boot id (no /proc) shares nothing: every rank is its own group.
  const uint64_t mine = boot_id[0] != '\0' ? ClockKey(host, boot_id) : static_cast<uint64_t>(rank) + 1;
  std::vector<uint64_t> keys(size);
  PMPI_Allgather(&mine, 1, MPI_UINT64_T, keys.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  ClockGroups groups;
  std::unordered_set<uint64_t> seen{keys[0]};
  for (int r = 1; r < size; ++r) {
    if (seen.insert(keys[r]).second) groups.leaders.push_back(r);
  }
  groups.leader = static_cast<int>(std::find(keys.begin(), keys.end(), mine) - keys.begin());
  groups.measured = rank == 0 || std::binary_search(groups.leaders.begin(), groups.leaders.end(), rank);
  return groups;
}

std::optional<ClockOffset> MeasureClockOffset(const ClockGroups& groups, int exchanges) {
  if (groups.leaders.empty()) {  // every rank reads rank 0's clock
    if (groups.measured) return ClockOffset{MonotonicNs(), 0, 0};
    return std::nullopt;
  }
  MPI_Comm comm;
  PMPI_Comm_dup(MPI_COMM_WORLD, &comm);  // keeps the handshake off the app's tags
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  std::optional<ClockOffset> result;
  constexpr int kTag = 7;
  if (rank == 0) {
    result = ClockOffset{MonotonicNs(), 0, 0};
    for (int peer : groups.leaders) {
      for (int i = 0; i < exchanges; ++i) {
        int64_t ping = 0;
        PMPI_Recv(&ping, 1, MPI_INT64_T, peer, kTag, comm, MPI_STATUS_IGNORE);
        const int64_t now = MonotonicNs();
        PMPI_Send(&now, 1, MPI_INT64_T, peer, kTag, comm);
      }
    }
  } else if (groups.measured) {
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
