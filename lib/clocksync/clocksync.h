// rp-clocksync: puts every rank's times on rank 0's clock, then repairs
// what is still impossible (papers: diagnosis §4.1, mpi-graph §5.4).
//
//  1. A line per rank (offset and drift) through the collector's ping-pong
//     measurements at MPI_Init and MPI_Finalize (`clock` records), or, for
//     traces without them, through the gaps between global synchronization
//     exits (--method gaps).
//  2. Per window (lib/window), a controlled-logical-clock repair of
//     receives that end before their send started and collective exits
//     before the entries they wait for (lib/clock/repair.h).
//
// Writes the same stream with global times (header "clock":"global",
// records sorted by their new times within each window), then one `clock`
// record per rank summing up what was done.
#ifndef RP_LIB_CLOCKSYNC_CLOCKSYNC_H_
#define RP_LIB_CLOCKSYNC_CLOCKSYNC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/cli/tool.h"

namespace rp::clocksync {

struct Options {
  std::string method = "auto";  // auto, pingpong, gaps, identity
  bool repair = true;
  int64_t min_latency = 0;        // ns
  double max_slope = 0.01;        // amortisation
  bool amortize = true;
  int64_t gaps_tolerance = 20'000;  // ns
  bool report = false;
};

std::vector<std::string> Methods();

Status Run(const cli::IoOptions& io, const Options& options);

}  // namespace rp::clocksync

#endif  // RP_LIB_CLOCKSYNC_CLOCKSYNC_H_
