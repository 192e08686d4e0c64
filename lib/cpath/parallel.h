// rp-cpath on P processes (mpirun -np P rp-cpath-mpi SPLIT -o OUT): each
// process reads its share of a split trace's parts, and the critical path
// is found on the program activity graph split by ranks (the mpi-graph
// paper's distributed graph, §4.3; Scalasca's parallel replay): the
// window's messages and collectives matched across processes
// (lib/match/distributed.h), its longest paths replayed in rounds that
// carry only the lengths its ranks' partners need (lib/graph/
// distributed.h), the path decided where every rank's path shares it
// (lib/graph/distributed_path.h). OUT, read through its index, is
// rp-cpath's output on the whole trace, byte for byte.
//
// Each process writes its lines into its part of a split output; a
// window's cp_segment records, gathered by the process holding the
// window's last line, follow that line there (where the split reader puts
// them back), as do the phases' records and, after the last line of all,
// the run's. With --no-passthrough process 0 writes the cp_* records as
// one stream. What crosses processes, besides the match and the replay,
// is per window one all-reduce and the decided steps to their writer;
// every process's sums (Scope, NamedCode) once per phase and at the end.
//
// What-if zeroing replays rp-cpath's passes the same way (graph::
// ZeroAcross), sampled functions numbered alike on every process by name.
// Not here: --algo replay and heuristic.
#ifndef RP_LIB_CPATH_PARALLEL_H_
#define RP_LIB_CPATH_PARALLEL_H_

#include <functional>
#include <memory>
#include <string>

#include "lib/base/status.h"
#include "lib/cpath/cpath.h"
#include "lib/dist/comm.h"
#include "lib/dist/split_output.h"
#include "lib/trace/input_set.h"
#include "lib/trace/writer.h"

namespace rp::cpath {

// Every process calls it with the same arguments. `files`: with
// passthrough a split trace's index, without the one stream process 0
// writes.
Status RunParallel(const Config& config, dist::Comm& comm, trace::InputSet& input, const dist::OutputFiles& files);

}  // namespace rp::cpath

#endif  // RP_LIB_CPATH_PARALLEL_H_
