// rp-clocksync on P processes (mpirun -np P rp-clocksync-mpi SPLIT -o OUT):
// each process reads its share of a split trace's parts and writes its
// ranks' records, on rank 0's clock, into its part of a split output.
// OUT, read through its index, is rp-clocksync's output on the whole trace,
// byte for byte.
//
// Clocks: the collector's ping-pong lines come with the prelude every
// process reads; --method gaps fits each process's ranks against rank 0's
// synchronization exits, which its reader sends everyone, and the lines
// are gathered. Repair: each window's messages and collectives are
// matched across processes (lib/match/distributed.h) and the controlled-
// logical-clock pass is replayed (lib/clock/distributed.h). Each process
// sorts its ranks' records of a window by their new times; a window whose
// first record over all processes would come before the last one of the
// window before (which the split reader could not put back in
// rp-clocksync's order) is an error, as is a record of no rank amid the
// events (traces of other stages: rp-clocksync-mpi runs first). The clock
// records of the ranks, after every event, are written by the holder of
// the last record, from every process's tally.
#ifndef RP_LIB_CLOCKSYNC_PARALLEL_H_
#define RP_LIB_CLOCKSYNC_PARALLEL_H_

#include "lib/base/status.h"
#include "lib/clocksync/clocksync.h"
#include "lib/dist/comm.h"
#include "lib/dist/split_output.h"
#include "lib/trace/input_set.h"

namespace rp::clocksync {

// Every process calls it with the same arguments.
Status RunParallel(const Config& config, dist::Comm& comm, trace::InputSet& input, const dist::OutputFiles& files);

}  // namespace rp::clocksync

#endif  // RP_LIB_CLOCKSYNC_PARALLEL_H_
