// rp-diagnose on P processes (mpirun -np P rp-diagnose-mpi SPLIT -o OUT):
// each process reads its share of a split trace's parts (rp-cpath-mpi's
// output: the critical path's records come with it) and measures its
// ranks' phases on the program activity graph split by ranks (Figures
// with FiguresAcrossProcesses: the window's messages and collectives
// matched across processes, the ideal time's path sets and the balancing
// what-ifs replayed, a late delayer's side of a delay cost computed where
// its rank is read). Each window's ended phases go to process 0, which
// merges them by phase and sums them into the diagnosis; at the end the
// run-wide tables and the path's records join them there, and the
// efficiency, finding and timeline records follow the last line of all
// (written by its holder). OUT, read through its index, is rp-diagnose's
// output on the whole trace, byte for byte.
//
// What crosses processes per window, besides the match and the replays:
// the phase ends (an all-gather of the window's phase records and calls
// by phase), the window's extent (its start and ranks, one all-reduce),
// the phases the timeline may draw (an all-gather), the balancing choices
// of the phases that lie in it, and the ended phases' figures to process
// 0. Batching these into one collective would cut the rounds' latency.
#ifndef RP_LIB_DIAGNOSE_PARALLEL_H_
#define RP_LIB_DIAGNOSE_PARALLEL_H_

#include "lib/base/status.h"
#include "lib/diagnose/diagnose.h"
#include "lib/dist/comm.h"
#include "lib/dist/split_output.h"
#include "lib/trace/input_set.h"

namespace rp::diagnose {

// Every process calls it with the same arguments. `files`: with
// passthrough a split trace's index, without the one stream process 0
// writes.
Status RunParallel(const Config& config, dist::Comm& comm, trace::InputSet& input, const dist::OutputFiles& files);

}  // namespace rp::diagnose

#endif  // RP_LIB_DIAGNOSE_PARALLEL_H_
