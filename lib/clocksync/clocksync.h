// rp-clocksync: puts every rank's times on rank 0's clock, then repairs
// what is still impossible (papers: diagnosis §4.1, mpi-graph §5.4).
//
//  1. A line per rank (offset and drift) through the collector's ping-pong
//     measurements at MPI_Init and MPI_Finalize (`clock` records), or, for
//     traces without them, through the gaps between global synchronization
//     exits (Method::kGaps); clocks.h.
//  2. Per window (lib/window), a controlled-logical-clock repair of
//     receives that end before their send started and collective exits
//     before the entries they wait for (lib/clock/repair.h).
//
// Writes the same stream with global times (header "clock":"global",
// records sorted by their new times within each window), then one `clock`
// record per rank summing up what was done.
//
//   clocksync::Config config;
//   config.method = clocksync::Method::kGaps;  // reads the input twice
//   RP_RETURN_IF_ERROR(clocksync::Run(config, input, out));
#ifndef RP_LIB_CLOCKSYNC_CLOCKSYNC_H_
#define RP_LIB_CLOCKSYNC_CLOCKSYNC_H_

#include <cstdint>

#include "lib/base/status.h"
#include "lib/clocksync/clocks.h"
#include "lib/trace/input_set.h"
#include "lib/trace/writer.h"
#include "lib/window/window.h"

namespace rp::clocksync {

struct Config {
  Method method = Method::kAuto;
  bool repair = true;
  int64_t min_latency = 0;  // ns a message takes at least
  double max_slope = 0.01;  // amortisation: how much faster a repaired clock may run
  bool amortize = true;
  int64_t gaps_tolerance = 20'000;  // ns (Method::kGaps)
  bool report = false;              // violations and each rank's clock on the log
  window::ReadConfig read;
};

// Reads `input` (twice for Method::kGaps: it must rewind, see
// InputSet::Rewind), writes the synchronized stream to `out` and closes it.
// Exit status 1 (NothingError) for a trace without mpi records, its stream
// written all the same.
Status Run(const Config& config, trace::InputSet& input, trace::Writer& out);

}  // namespace rp::clocksync

#endif  // RP_LIB_CLOCKSYNC_CLOCKSYNC_H_
