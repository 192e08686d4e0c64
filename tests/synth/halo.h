// A synthetic but causally consistent halo-exchange trace, for benchmarks
// of every stage: `ranks` ranks on a ring, each iteration computing, then
// Irecv left/right, Isend right/left, Waitall; an Allreduce every
// `sync_every` iterations. Message arrival respects latency and bandwidth,
// the Waitall ends after both arrivals and the Allreduce exits after its
// last entry, so the trace has a well-defined critical path. Output is in
// time order (header "order":"time"), deterministic for a given spec.
//
// With clock_offset_ns or clock_drift_ppm, every rank but 0 writes its own
// clock, as rp-record's traces are ("clock":"local"): offset and drift drawn
// per rank within those bounds, two ping-pong measurements per rank (init,
// finalize) that are off by up to clock_error_ns, and the records merged by
// local start time. rp-clocksync must then map and repair it.
#ifndef RP_TESTS_SYNTH_HALO_H_
#define RP_TESTS_SYNTH_HALO_H_

#include <cstdint>
#include <functional>

#include "lib/trace/record.h"

namespace rp::synth {

struct HaloSpec {
  int64_t ranks = 64;
  int64_t events = 10'000'000;  // approximate number of mpi records
  int64_t sync_every = 10;      // iterations between Allreduces
  uint64_t seed = 1;
  int64_t compute_ns = 50'000;  // per iteration and rank
  int64_t jitter_ns = 2'000;    // uniform extra compute per iteration and rank
  int64_t latency_ns = 1'500;
  int64_t bytes = 8192;         // per halo message
  double ns_per_byte = 0.1;
  int64_t slow_rank = -1;       // this rank computes slow_extra_ns more per iteration
  int64_t slow_extra_ns = 0;
  int64_t clock_offset_ns = 0;  // largest |offset| of a rank's clock to rank 0's
  double clock_drift_ppm = 0;   // largest |drift| of a rank's clock
  int64_t clock_error_ns = 0;   // largest |error| of an offset measurement
  int64_t sample_hz = 0;        // wall-clock samples of each rank's computation
  bool local_clocks() const { return clock_offset_ns != 0 || clock_drift_ppm != 0; }
};

// Calls `emit` for every record: header, rank, comm, site, then mpi (and
// sample) records in time order.
// The Record passed has `type` and the matching struct set; `line` is empty.
void GenerateHalo(const HaloSpec& spec, const std::function<void(const trace::Record&)>& emit);

}  // namespace rp::synth

#endif  // RP_TESTS_SYNTH_HALO_H_
