// rp-phases on P processes (mpirun -np P rp-phases-mpi SPLIT -o OUT): each
// process reads its share of a split trace's parts (trace::InputSet::
// SelectParts) and writes one part of a split output; OUT, read through
// its index, is rp-phases' output on the whole trace, byte for byte.
//
// A record's phase is its rank's count of global synchronizations, known
// to the process that reads the rank. What crosses processes, once per
// window each reads: how far its ranks have got (the phases they have all
// left behind), and for each phase it has finished, the partial phase
// record of its ranks (first start, last end, closing exit, calls, its
// ranks' part of the signature, its last line): 64 bytes, whatever the
// ranks. A phase every process has
// finished is named (lib/phases' PhaseNamer, in phase order, the same on
// every process); its record goes into the part of the process that holds
// the previous phase's last line, right after it (the first phase's into
// the index), where the reader puts it back between the two phases. Lines
// wait in their windows until their phase is named. Records other than
// events that follow every event (rp-clocksync's summaries) go after the
// last line of all; one between events is refused.
#ifndef RP_LIB_PHASES_PARALLEL_H_
#define RP_LIB_PHASES_PARALLEL_H_

#include <functional>
#include <memory>
#include <string>

#include "lib/base/status.h"
#include "lib/dist/comm.h"
#include "lib/dist/split_output.h"
#include "lib/phases/phases.h"
#include "lib/trace/input_set.h"
#include "lib/trace/writer.h"

namespace rp::phases {


// Every process calls it with the same input and output. A process's error
// reaches the others at their next exchange: every process returns it.
Status RunParallel(const Config& config, dist::Comm& comm, trace::InputSet& input, const dist::OutputFiles& output);

}  // namespace rp::phases

#endif  // RP_LIB_PHASES_PARALLEL_H_
