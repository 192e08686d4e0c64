// An rp-trace stream out as an OTF2 archive (Vampir, otf2-print, Score-P's
// tools), written with Debian's OTF2 library.
//
// Each rank is one location (a "Master thread" in location group "MPI
// Rank r"); each mpi record is an Enter and a Leave of its MPI function's
// region with the MPI events OTF2 defines between them:
//   send-like calls   MpiSend / MpiIsend at entry;
//   receives          MpiRecv at exit, MpiIrecvRequest at entry and
//                     MpiIrecv in the call that completes it (with the
//                     source, tag and size the completion resolved);
//   completions       MpiIsendComplete / MpiIrecv /
//                     NonBlockingCollectiveComplete;
//   collectives       MpiCollectiveBegin / MpiCollectiveEnd, and
//                     NonBlockingCollectiveRequest for nonblocking ones.
// Peers and roots become ranks in their communicator, as OTF2 wants. Each
// call site becomes a region (its function, file and line) that an
// "rp::site" attribute on the call's Enter names, so that rp-cat --from
// otf2 gives the same mpi records back. Times are ns (timer resolution
// 1e9, offset 0) and must not be negative: run rp-clocksync first to put
// all ranks on one clock.
//
// Not written, and counted: samples, and the other record types.
//
// The archive is written into a temporary directory next to `dir` and
// renamed into place at the end, so an error leaves nothing half-written.
#ifndef RP_LIB_OTF2_EXPORT_H_
#define RP_LIB_OTF2_EXPORT_H_

#include <cstdint>
#include <map>
#include <string>

#include "lib/base/status.h"
#include "lib/trace/input_set.h"

namespace rp::otf2 {

struct ExportCounts {
  int64_t ranks = 0;
  int64_t mpi = 0;     // mpi records written as calls
  int64_t events = 0;  // OTF2 events written
  // Records and fields not written, by what they are.
  std::map<std::string, int64_t> skipped;
};

// `force`: replace an existing OTF2 archive directory at `dir`.
Expected<ExportCounts> Export(trace::InputSet& input, const std::string& dir, bool force);

}  // namespace rp::otf2

#endif  // RP_LIB_OTF2_EXPORT_H_
