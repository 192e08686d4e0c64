// Clock repair across the processes of a distributed analysis (mpirun -np
// P rp-clocksync-mpi): each process holds its ranks' events and, as
// ghosts, their partners' on other processes (lib/match/distributed.h).
// The forward pass runs as a replay (Scalasca's parallel replay, here of
// the controlled logical clock; diagnosis paper §2): each process finishes
// what it can, sends the starts of its gate sources to the processes that
// hold them as ghosts, and goes on with what the others sent, round after
// round. A round is one Comm::ExchangeAndSum (the starts, and how many
// processes are not finished and how many starts were sent). When no
// process can go on and nothing is on its way, the dependencies form a
// cycle: the earliest started event over all processes (by start, then
// rank) is finished, as the one-process pass finishes it. Then the
// ghosts' ends travel once more for the amortisation, which bounds a
// moved send by its receive's end.
//
// Every event gets the times Repair gives it on the whole window.
//
//   RP_ASSIGN_OR_RETURN(clock::RepairResult r,
//                       clock::RepairAcross(comm, &w, constraints, ghosts, options, &shift, &stats));
#ifndef RP_LIB_CLOCK_DISTRIBUTED_H_
#define RP_LIB_CLOCK_DISTRIBUTED_H_

#include <cstdint>
#include <vector>

#include "lib/base/status.h"
#include "lib/clock/repair.h"
#include "lib/dist/comm.h"
#include "lib/match/distributed.h"

namespace rp::clock {

struct RepairStats {
  int64_t rounds = 0, bytes_sent = 0;
};

// Repair on every process's part of one window (every process calls it,
// in the same turn). `shift` as Repair's, for this process's ranks. The
// result's moves are this process's ranks'; a broken cycle is counted by
// the process that breaks it.
Expected<RepairResult> RepairAcross(dist::Comm& comm, window::Window* window, const Constraints& constraints,
                                    const match::Ghosts& ghosts, const RepairOptions& options,
                                    std::vector<int64_t>* shift, RepairStats* stats);

// Sends every event of this process that others hold as a ghost its
// current times, and sets the ghosts' times from theirs.
Status ShareGhostTimes(dist::Comm& comm, window::Window* window, const match::Ghosts& ghosts, RepairStats* stats);

}  // namespace rp::clock

#endif  // RP_LIB_CLOCK_DISTRIBUTED_H_
