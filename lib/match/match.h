// Who talked to whom in a window: point-to-point messages paired send to
// receive, and collective calls grouped into instances. The program
// activity graph (rp-cpath), the clock repair (rp-clocksync) and the
// diagnosis all start from this.
//
// Messages: MPI does not let messages overtake each other between the same
// sender and receiver on a communicator with the same tag, so the k-th send
// from s to d on communicator c with tag t is received by the k-th receive
// posted by d for (c, s, t) — once wildcard receives are resolved from their
// statuses (the trace's `resolved` entries). Persistent requests make one
// message per start; a matched probe (MPI_Mprobe) receives the message it
// dequeued. MPI_PROC_NULL partners make no message.
//
// Collectives: members call collectives on a communicator in the same
// order, so the k-th collective call on communicator c of every member is
// one instance. A nonblocking collective's exit is the call completing its
// request.
#ifndef RP_LIB_MATCH_MATCH_H_
#define RP_LIB_MATCH_MATCH_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/window/window.h"

namespace rp::match {

inline constexpr uint32_t kNoEvent = UINT32_MAX;

struct Message {
  uint32_t send;       // event starting the send (Send, Isend, Sendrecv, Start)
  uint32_t send_done;  // event completing it (itself when blocking)
  uint32_t recv;       // event posting the receive (Recv, Irecv, Sendrecv, Start, Mprobe)
  uint32_t recv_done;  // event completing it (itself when blocking)
  int64_t bytes;       // as sent
};

struct Collective {
  int64_t comm;
  int32_t fn;                     // mpi::kFunctions index of the first member's call
  // Whose entries each member's exit waits for: the function's kind, or
  // kNone when every member's call moved nothing and says so for all
  // (Event::MovedNothingAnywhere): MPI requires only a barrier to
  // synchronize (MPI-3.1 §5.1), and Open MPI returns from an
  // MPI_Allgatherv whose counts are all 0 at once.
  mpi::Collective kind = mpi::Collective::kNone;
  int64_t root;                   // world rank, -1 when not rooted
  std::vector<uint32_t> entries;  // each member's call, in communicator rank order
  std::vector<uint32_t> exits;    // where each member's participation ends
};

struct Matching {
  std::vector<Message> messages;
  std::vector<Collective> collectives;
  // Operations that found no partner in the window, and why it matters.
  int64_t unmatched_sends = 0;
  int64_t unmatched_receives = 0;
  int64_t unresolved_receives = 0;  // source or tag unknown: a wildcard receive
                                    // never completed, or fields missing
  int64_t mismatched_collectives = 0;  // members calling different functions
  // Instances with fewer or more members than their communicator has (a
  // rank missing, or one that skipped a call: later instances on that
  // communicator then pair the wrong calls). Counted where the size is
  // known: the world, and comms a comm record lists.
  int64_t incomplete_collectives = 0;
  std::vector<std::string> examples;   // the first few, for messages
  // Each example's place in the window's order of examples: (a receive
  // without send, comm, source, destination, tag), for merging the
  // examples of processes that each matched part of a window.
  std::vector<std::array<int64_t, 5>> example_order;
};

Matching Match(const window::Window& window, const window::Dictionary& dict);

}  // namespace rp::match

#endif  // RP_LIB_MATCH_MATCH_H_
