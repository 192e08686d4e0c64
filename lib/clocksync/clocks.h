// Which clock each rank's times are mapped with (rp-clocksync's step 1):
// a line through the collector's ping-pong measurements, a fit of the gaps
// between global synchronization exits, or none.
#ifndef RP_LIB_CLOCKSYNC_CLOCKS_H_
#define RP_LIB_CLOCKSYNC_CLOCKS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/clock/gaps.h"
#include "lib/clock/linear.h"
#include "lib/window/window.h"

namespace rp::clocksync {

enum class Method {
  kAuto,      // pingpong when the trace has measurements, else identity
  kPingpong,  // lines through the collector's MPI_Init/MPI_Finalize offsets
  kGaps,      // lines through the exits of global synchronizations
  kIdentity,  // times left as they are
};
std::string_view MethodName(Method method);

// The ranks of a stream: the header's count, or (without one, or when it
// is short) as many as its rank, comm and clock records name. Clock
// records naming ranks beyond the header's count are warned of.
int64_t CountRanks(const window::Dictionary& dict);

// Ranks that read one clock: those whose rank records give the same host
// and boot id. By rank, the lowest rank of its group (itself when its
// records do not say, or when it is alone).
std::vector<int64_t> ClockGroups(const window::Dictionary& dict, int64_t ranks);

struct Clocks {
  Method method = Method::kIdentity;  // the one used (kAuto resolved)
  std::vector<clock::LinearClock> by_rank;
  // Each rank's summary method: "linear", "gaps" or "identity".
  std::vector<std::string> method_of;
  std::vector<int64_t> group_of;  // ClockGroups
};

// The clock of each of `ranks` ranks. `gaps` is the fit of the ranks'
// global synchronization exits (clock::FitGaps; Method::kGaps only, with a
// tolerance of `gaps_tolerance` ns, for the warning). Ranks that read one clock
// get the same mapping: rank 0's group none at all, another group the line
// through all its members' measurements (or its lowest rank's gaps fit).
// A drift beyond 1% is dropped (offset kept) with a warning; ranks without
// measurements are left as they are, with a warning.
Expected<Clocks> ChooseClocks(const window::Dictionary& dict, int64_t ranks, Method requested,
                              const clock::GapsFit& gaps, int64_t gaps_tolerance);

// "0-7", "2,5,9-11": ranks for messages.
std::string RankList(const std::vector<int64_t>& ranks);

// A duration for messages: "12.345 ms", "3.210 us", "17 ns".
std::string Ns(int64_t ns);

}  // namespace rp::clocksync

#endif  // RP_LIB_CLOCKSYNC_CLOCKS_H_
