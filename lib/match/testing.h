// Test helpers: generated traces whose messages and collectives take every
// path through the matcher, for tests of distributed analyses.
#ifndef RP_LIB_MATCH_TESTING_H_
#define RP_LIB_MATCH_TESTING_H_

#include <string>

namespace rp::match {

// `ranks` (at least 4) ranks, `rounds` rounds, each: a ring of Irecv from
// ANY_SOURCE and Isend with one Waitall, blocking pairs (2j -> 2j+1), a
// Sendrecv shift by 2, a Bcast on the even ranks' communicator every
// other round, a persistent send from rank 0 to the last rank, an
// Allreduce on the world; the last round leaves one send of rank 1 never
// received. Times are causal (every receive ends after its send starts)
// and differ between ranks.
std::string MixedTrace(int ranks, int rounds);

}  // namespace rp::match

#endif  // RP_LIB_MATCH_TESTING_H_
