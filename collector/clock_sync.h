// The clock-offset handshake the collector runs at MPI_Init and
// MPI_Finalize (papers: mpi-graph §clock synchronisation, diagnosis §clock
// skew): rank 0 ping-pongs with every other rank in turn; the exchange with
// the smallest round trip gives offset = t_rank0 - (t_send + t_receive) / 2,
// good to within half that round trip. rp-clocksync fits offset and drift
// through the two measurements.
#ifndef RP_COLLECTOR_CLOCK_SYNC_H_
#define RP_COLLECTOR_CLOCK_SYNC_H_

#include <cstdint>

namespace rp::collector {

struct ClockOffset {
  int64_t local_time;  // midpoint of the best exchange, local clock
  int64_t offset;      // rank 0 time minus local time
  int64_t rtt;         // round trip of the best exchange
};

// Collective over MPI_COMM_WORLD (through PMPI); rank 0 gets offset 0.
ClockOffset MeasureClockOffset(int exchanges);

}  // namespace rp::collector

#endif  // RP_COLLECTOR_CLOCK_SYNC_H_
