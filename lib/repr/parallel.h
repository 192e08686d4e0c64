// rp-repr on P processes (mpirun -np P rp-repr-mpi SPLIT -o OUT): each
// process reads its share of a split trace's parts and propagates the path
// sets of its ranks over the program activity graph split by ranks (the
// sets replayed across processes, repr::SetsPass); a phase's k paths are
// chosen from every process's candidates alike everywhere (UnionAcross)
// and walked back where each task ran (WalkAcross). OUT, read through its
// index, is rp-repr's output on the whole trace, byte for byte.
//
// The tasks kept paths had in earlier windows (the run's paths, and a
// phase that runs on into the next window) are parts shared by the paths
// that went through them, as rp-repr keeps them: which part follows which
// and how many paths hold each (the chain) is decided alike on every
// process from what each window's heads are, an all-gather of k entries a
// rank; a part's intervals and code are kept by the processes whose ranks
// ran its tasks, each interval with the window and the walk's round that
// found it. When a phase ends, its kept paths' pieces go to the writer
// (the holder of the window's last line), which puts them back in the
// path's order and writes the records into its part, and their code to
// process 0, which keeps the path profiles.
//
// What crosses per window, besides the match and the replays: the phase
// ends (SharedPhaseEnds), the window's extent, the heads (k per rank,
// every process: the chain is replicated, its contents are not), the
// walks, and the ended phases' pieces to the writer and code to process 0.
#ifndef RP_LIB_REPR_PARALLEL_H_
#define RP_LIB_REPR_PARALLEL_H_

#include "lib/base/status.h"
#include "lib/dist/comm.h"
#include "lib/dist/split_output.h"
#include "lib/repr/repr.h"
#include "lib/trace/input_set.h"

namespace rp::repr {

// Every process calls it with the same arguments. `files`: with
// passthrough a split trace's index, without the one stream process 0
// writes.
Status RunParallel(const StageConfig& config, dist::Comm& comm, trace::InputSet& input,
                   const dist::OutputFiles& files);

}  // namespace rp::repr

#endif  // RP_LIB_REPR_PARALLEL_H_
