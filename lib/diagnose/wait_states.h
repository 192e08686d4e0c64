// Wait states, as Scalasca names them (Geimer et al., "The Scalasca
// performance toolset architecture", 2010, and Scalasca's pattern
// reference), and the delay that caused each (Böhme et al., "Identifying
// the root causes of wait states in large-scale parallel applications",
// 2010/2016: delay costs).
//
// A call waits when it could not proceed before a partner arrived: its
// wait is lib/graph's (imbalance.h: wait_before), its delayer the partner
// whose entry it waited for (Graph::latest_partner). The pattern follows
// from what the partner did:
//   late_sender     a receive (Recv, Wait.., Test..) waits for the send
//   wrong_order     a late sender while a message sent earlier to the same
//                   rank was already on its way and is received later
//   late_receiver   a send waits for its receive to be posted
//   wait_nxn        an all-to-all collective waits for its last member
//   wait_barrier    the same at MPI_Barrier
//   late_broadcast  a member of a Bcast/Scatter waits for the root
//   early_reduce    the root of a Reduce/Gather waits for the members
//   early_scan      a Scan/Exscan waits for a lower rank
//
// Delay costs, short-term, over one synchronization interval: the
// delayer's computation before the call it was late to, against the
// waiter's computation before its waiting call, function by function
// (lib/profile's attribution): what the delayer spent more in each
// function is its delay there. Each side's interval reaches back over the
// nonblocking calls that only start something (Isend, Irecv, Start...) to
// its previous call that could wait: a halo exchange that posts its
// receives and sends after computing is charged with that computation. The wait is charged to those delays in
// proportion, at most the delay itself; what the delays do not explain is
// propagated: the delayer was itself held up by an earlier wait.
#ifndef RP_LIB_DIAGNOSE_WAIT_STATES_H_
#define RP_LIB_DIAGNOSE_WAIT_STATES_H_

#include <compare>
#include <cstdint>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/graph/window_graphs.h"
#include "lib/profile/attribution.h"

namespace rp::diagnose {

enum class Pattern : uint8_t {
  kNone,
  kLateSender,
  kWrongOrder,
  kLateReceiver,
  kWaitNxN,
  kWaitBarrier,
  kLateBroadcast,
  kEarlyReduce,
  kEarlyScan,
};
std::string_view PatternName(Pattern p);

// Each event of a window that waited for a partner: its pattern and the
// partner's event.
struct WaitStates {
  std::vector<Pattern> pattern;    // by event; kNone: no wait state
  std::vector<uint32_t> delayer;   // by event: the partner's event

  void Find(const graph::WindowGraph& wg);
};

// One wait state's delay costs: (function, ns) of the delayer's extra
// computation charged with the wait, and the rest, propagated.
struct DelayCost {
  std::vector<std::pair<int32_t, int64_t>> functions;  // by function id (the context tree's)
  int64_t propagated = 0;
};
// One side's computation by function (the context tree's function id).
using Side = std::vector<std::pair<int32_t, int64_t>>;
// `attribution` holds the window of `g`, where both events are.
DelayCost Delay(const graph::Graph& g, const profile::Attribution& attribution, uint32_t waiter, uint32_t delayer,
                int64_t wait);
// Delay's steps, for a delayer another process holds: one side's
// computation by function (the context tree's function ids, which follow
// the site records alike on every process) over its interval, reaching
// back over the calls that only start something; and the cost from both
// sides.
Side SideComputation(const graph::Graph& g, const profile::Attribution& attribution, uint32_t event);
DelayCost DelayFrom(const Side& delayer, const Side& waiter, int64_t wait);

// Wait states of one pattern at one call site, summed.
struct WaitKey {
  Pattern pattern;
  int32_t site;
  int32_t fn;  // the waiting call's mpi::kFunctions index
  auto operator<=>(const WaitKey&) const = default;
};
struct WaitSum {
  int64_t ns = 0;     // waiting
  int64_t count = 0;  // wait states
  int64_t propagated = 0;
  std::vector<int64_t> waiting;   // by waiting rank
  std::vector<int64_t> delaying;  // by delaying rank: the delay costs charged to it
  std::map<int32_t, int64_t> causes;  // by function: delay costs

  void Add(int32_t waiter_rank, int32_t delayer_rank, int64_t wait, const DelayCost& cost);
  void Add(const WaitSum& o);
};
using WaitSums = std::map<WaitKey, WaitSum>;

}  // namespace rp::diagnose

#endif  // RP_LIB_DIAGNOSE_WAIT_STATES_H_
