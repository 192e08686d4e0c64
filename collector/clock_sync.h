// The clock-offset handshake the collector runs at MPI_Init and
// MPI_Finalize (papers: mpi-graph §clock synchronisation, diagnosis §clock
// skew). Ranks that share a host and a boot read one CLOCK_MONOTONIC: they
// need no offset between them. So the ranks first learn which of them
// share a clock (one MPI_Allgather of a hash of host name and boot id);
// then rank 0 ping-pongs only with the lowest rank of every other such
// group, its leader. The exchange with the smallest round trip gives
// offset = t_rank0 - (t_send + t_receive) / 2, good to within half that
// round trip; rp-clocksync fits offset and drift through the two
// measurements and gives every member of a group its leader's mapping.
#ifndef RP_COLLECTOR_CLOCK_SYNC_H_
#define RP_COLLECTOR_CLOCK_SYNC_H_

#include <cstdint>
#include <optional>
#include <vector>

namespace rp::collector {

struct ClockOffset {
  int64_t local_time;  // midpoint of the best exchange, local clock
  int64_t offset;      // rank 0 time minus local time
  int64_t rtt;         // round trip of the best exchange
};

struct ClockGroups {
  // Leaders of the groups other than rank 0's, in rank order (every rank
  // knows them all: they are who rank 0 measures).
  std::vector<int> leaders;
  bool measured = false;  // this rank is rank 0, or one of `leaders`
  int leader = 0;         // the rank whose clock this one reads (its group's lowest)
};

// Collective over MPI_COMM_WORLD (through PMPI).
ClockGroups FindClockGroups(const char* host, const char* boot_id);

// Collective: rank 0 gets offset 0, the leaders their measurement, the
// other ranks nothing (their leader's stands for them).
std::optional<ClockOffset> MeasureClockOffset(const ClockGroups& groups, int exchanges);

}  // namespace rp::collector

#endif  // RP_COLLECTOR_CLOCK_SYNC_H_
