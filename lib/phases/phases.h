// rp-phases: cuts a run into phases and recognises repeated ones
// (diagnosis paper §4 "Identifying execution phases", §4.2).
//
// A phase begins at the exit of a global synchronization (an all-to-all
// collective on a communicator spanning every rank) and ends at the exit of
// the next; a rank's k-th phase is what it does between its k-th and
// (k+1)-th such exits, the synchronization ending it included. Instances are
// counted per rank, so phases do not depend on synchronized clocks (their
// t0/t1 do: run rp-clocksync first for meaningful times).
//
// Each phase gets a signature: per rank, the sequence of (function, call
// site) it called, consecutive repeats collapsed (a polling loop that spins
// 3 or 300 times gives one signature), hashed, then each rank's hash mixed
// with its rank and the ranks' summed (MPMD runs, where groups of ranks run
// different code, get one signature per combination; a sum, so that the
// processes of a parallel run can each add their ranks'). Phases with the same signature
// form a cluster (the iterations of a loop, nested loops included); a
// phase's iteration is its index within its cluster.
//
// The first phase starts when MPI_Init returns, the last ends when
// MPI_Finalize is called: phases cover the application's time.
//
// Writes each phase record before the phase's records, and tags every mpi
// and sample record with its phase id. Memory follows the longest window
// (lib/window), so at most the longest run of phases without a clean
// synchronization.
#ifndef RP_LIB_PHASES_PHASES_H_
#define RP_LIB_PHASES_PHASES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/fnv.h"
#include "lib/base/status.h"
#include "lib/trace/input_set.h"
#include "lib/trace/writer.h"
#include "lib/window/window.h"

namespace rp::phases {

// Builds a phase signature from per-rank call sequences.
class Signature {
 public:
  // The next call of `rank` in the phase (ranks may be interleaved).
  void Add(int64_t rank, std::string_view function, int64_t site) { Add(rank, FunctionHash(function), site); }
  // The same with FunctionHash(function) computed once per function.
  void Add(int64_t rank, uint64_t function_hash, int64_t site);
  static uint64_t FunctionHash(std::string_view function);
  // 16 hex digits; ranks without calls do not count.
  std::string Hex() const;
  // The ranks' part of the signature before it is written: sums of several
  // Signatures' ranks (disjoint ranks: a parallel run's processes') add up
  // to the sum of all (Hex() is Hex(Sum())).
  uint64_t Sum() const;
  static std::string Hex(uint64_t sum);

 private:
  struct RankHash {
    uint64_t hash = kFnvOffset;
    uint64_t last = 0;
    bool any = false;
  };
  std::vector<RankHash> ranks_;
};

struct Config {
  window::ReadConfig read;
};

// Reads `input`, writes the phased stream to `out` and closes it. Exit
// status 1 (NothingError) for a trace without mpi records, its stream
// written all the same.
Status Run(const Config& config, trace::InputSet& input, trace::Writer& out);

}  // namespace rp::phases

#endif  // RP_LIB_PHASES_PHASES_H_
