// OTF2 archives (Score-P, and any other OTF2 writer) in as an rp-trace
// stream, read with Debian's OTF2 library, so that every stage analyses
// traces users already have.
//
// What becomes what:
//   - ranks: the locations of the MPI COMM_LOCATIONS group, in its order;
//     other locations (OpenMP threads, GPU streams, metric locations) are
//     skipped and counted;
//   - mpi records: Enter/Leave of MPI regions rp records (lib/mpi's
//     table), filled from the MPI events between them: MpiSend / MpiRecv /
//     MpiIsend / MpiIrecvRequest / MpiIrecv / MpiIsendComplete /
//     MpiCollectiveEnd / NonBlockingCollective*. Peers and roots, ranks in
//     their communicator in OTF2, become world ranks; MPI regions rp does
//     not record (MPI_Comm_rank, MPI_Wtime, ...) count as computation, as
//     they do under rp-record;
//   - site records: the other regions (user functions, compiler
//     instrumentation), id = the OTF2 region id, line = the region's first
//     line (OTF2 does not record the line of a call). An MPI call's site
//     is the innermost such region around it, or the region an "rp::site"
//     attribute on its Enter names (archives rp-cat wrote);
//   - sample records: the computation between events, one per stretch
//     with one calling context (the regions open over it, innermost
//     first), at the stretch's end and weighted by its length, so that
//     lib/profile splits computation exactly by function;
//   - times: (timestamp - global offset) * 1e9 / timer resolution, ns;
//     OTF2 archives hold synchronised timestamps, so the header says
//     "clock":"global".
// Metric, one-sided, thread, I/O and other events are counted and skipped
// (ImportCounts::skipped), never fatal.
//
// A posted receive (MPI_Irecv, and a nonblocking collective) gets its
// source, tag, size and communicator from the event that completes it, as
// OTF2 records them only there; its record waits until then. Records are
// written in time order (header "order":"time"): a record is written once
// no open call on any rank can start before it.
#ifndef RP_LIB_OTF2_IMPORT_H_
#define RP_LIB_OTF2_IMPORT_H_

#include <cstdint>
#include <map>
#include <string>

#include "lib/base/status.h"
#include "lib/trace/writer.h"

namespace rp::otf2 {

struct ImportCounts {
  int64_t ranks = 0;
  int64_t mpi = 0;          // mpi records written
  int64_t samples = 0;      // sample records written
  int64_t local_calls = 0;  // MPI regions rp does not record, kept as computation
  int64_t skipped_locations = 0;       // not MPI ranks (threads, GPU, metrics)
  int64_t skipped_location_events = 0;  // their events, as their definitions count them
  std::string creator;                  // the archive's creator ("Score-P 7.1")
  // Events not turned into records, by kind ("metric", "rma", ...).
  std::map<std::string, int64_t> skipped;
};

// The anchor file (traces.otf2) or the directory holding it. Input errors
// name the archive and say what is wrong.
Expected<ImportCounts> Import(const std::string& archive, trace::Writer& out);

}  // namespace rp::otf2

#endif  // RP_LIB_OTF2_IMPORT_H_
