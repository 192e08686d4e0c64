// An rp-trace stream as a Perfetto timeline (rp-cat --to perfetto): open
// the file at ui.perfetto.dev (drag and drop) or in trace_processor.
//
// Tracks, under one root ordered as listed:
//   critical path   rp-cpath's cp_segment records, when the stream has
//                   them: one slice per step, named by rank and kind
//                   ("rank 3 compute", "rank 3 MPI_Recv", "rank 1→3
//                   transfer", "rank 3 wait");
//   rank R          each MPI call as a slice [t0, t1] named by its function,
//                   at its call site's source location, with its peer, tag,
//                   bytes, communicator and root as arguments and its seq
//                   (the record it came from); each point-to-point message
//                   a flow from the call that sent it to the call that
//                   completed its receive (lib/match pairs them);
//     rank R code   when the rank has samples: the sampled calling context
//                   of its computation as nested function slices, each
//                   computation with samples inside split over them as
//                   lib/profile splits it (in the samples' time order).
//                   Across an MPI call, the functions the next computation
//                   shares stay open, but none inside the function making
//                   the call (its site's) when that one is open, else none
//                   from the last sampled application function inwards.
//
// A window of the run: `phase` keeps the records rp-phases put in that
// phase; [begin, end] (ns) the calls that overlap it and the computation
// and path steps inside it. A message with an end outside is counted, not
// drawn.
#ifndef RP_LIB_PERFETTO_EXPORT_H_
#define RP_LIB_PERFETTO_EXPORT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "lib/base/status.h"
#include "lib/trace/input_set.h"
#include "lib/trace/io.h"
#include "lib/window/window.h"

namespace rp::perfetto {

struct ExportOptions {
  int64_t phase = -1;  // -1: every phase
  int64_t begin = INT64_MIN, end = INT64_MAX;
  window::ReadConfig read;  // --hold and the progress line
};

struct ExportCounts {
  int64_t ranks = 0;
  int64_t calls = 0;          // MPI call slices
  int64_t flows = 0;          // messages drawn
  int64_t flows_cut = 0;      // messages with an end outside the window
  int64_t code_slices = 0;    // function slices from samples
  int64_t path_steps = 0;     // critical path slices
  int64_t clipped = 0;        // slices that began before the previous one on their track ended
  int64_t unmatched = 0;      // sends and receives without a partner (lib/match)
  int64_t packets = 0;
  int64_t bytes_in = 0;       // packets' bytes before compression
};

Expected<ExportCounts> Export(trace::InputSet& input, std::unique_ptr<trace::ByteSink> out,
                              const ExportOptions& options);

}  // namespace rp::perfetto

#endif  // RP_LIB_PERFETTO_EXPORT_H_
