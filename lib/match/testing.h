// Test helpers: generated traces whose messages and collectives take every
// path through the matcher, for tests of distributed analyses.
#ifndef RP_LIB_MATCH_TESTING_H_
#define RP_LIB_MATCH_TESTING_H_

#include <functional>
#include <string>

#include "lib/dist/comm.h"
#include "lib/match/distributed.h"

namespace rp::match {

// `ranks` (at least 4) ranks, `rounds` rounds, each: a ring of Irecv from
// ANY_SOURCE and Isend with one Waitall, blocking pairs (2j -> 2j+1), a
// Sendrecv shift by 2, a Bcast on the even ranks' communicator every
// other round, a persistent send from rank 0 to the last rank, an
// Allreduce on the world; the last round leaves one send of rank 1 never
// received. Times differ between ranks; they are causal (every receive
// ends after its send starts) when `skew` is 0, else ranks 0, 3, ... run
// `skew` ns behind and ranks 2, 5, ... ahead, for clock repairs.
std::string MixedTrace(int ranks, int rounds, int64_t skew = 0);

// Reads the split trace at `index` as process comm.rank() of comm.size()
// (windows judged with the others) and calls `each` with every window,
// matched across the processes; returns the processes' rank groups.
using EachWindow = std::function<void(const Owners& owners, window::Window& w,
                                      const Matching& m, const Ghosts& ghosts)>;
Owners ForEachWindowAcross(dist::Comm& comm, const std::string& index, const EachWindow& each);

// The run's start as one process finds it (the first window with calls),
// for a window read by several processes: `start` is this process's
// window's (INT64_MAX without calls); sets *run_start and *started at the
// first window with calls on any.
void RunStartAcross(dist::Comm& comm, int64_t start, bool* started, int64_t* run_start);

}  // namespace rp::match

#endif  // RP_LIB_MATCH_TESTING_H_
