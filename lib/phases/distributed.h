// Where phases end, for a window read by several processes (the stages'
// -mpi binaries after rp-phases: rp-repr-mpi, rp-diagnose-mpi): the phase
// records any process read in the window are noted by every process, and
// the window's calls by phase are added up, so that every process decides
// the ends PhaseEnds decides on the whole window.
//
//   phases::SharedPhaseEnds ends;
//   RP_RETURN_IF_ERROR(ends.NoteRecords(dict));    // the prelude's, alike everywhere
//   for (each window w) {
//     RP_RETURN_IF_ERROR(ends.Share(comm, w));     // every process, in the same turn
//     for (int32_t p : ends.EndedBefore()) ...;
//     for (int32_t p : ends.EndedIn()) ...;
//   }
#ifndef RP_LIB_PHASES_DISTRIBUTED_H_
#define RP_LIB_PHASES_DISTRIBUTED_H_

#include <cstdint>
#include <map>
#include <vector>

#include "lib/base/status.h"
#include "lib/dist/comm.h"
#include "lib/phases/phase_ends.h"
#include "lib/window/window.h"

namespace rp::phases {

class SharedPhaseEnds {
 public:
  Status NoteRecords(const window::Dictionary& dict) { return ends_.NoteRecords(dict); }
  // The window's phase records and calls by phase, from every process.
  Status Share(dist::Comm& comm, const window::Window& w);
  // The same of one process reading the whole window.
  Status Note(const window::Window& w) {
    calls_ = PhaseEnds::Calls(w);
    return ends_.NoteRecords(w);
  }
  // PhaseEnds' answers for the window last shared.
  std::vector<int32_t> EndedBefore() { return ends_.EndedBefore(calls_); }
  std::vector<int32_t> EndedIn() { return ends_.EndedIn(calls_); }
  // PhaseEnds::Phased of the window last shared.
  bool Phased() const;
  const PhaseEnds& ends() const { return ends_; }
  int64_t cluster(int32_t phase) const { return ends_.cluster(phase); }
  const std::map<int32_t, int64_t>& calls() const { return calls_; }

 private:
  PhaseEnds ends_;
  std::map<int32_t, int64_t> calls_;
};

}  // namespace rp::phases

#endif  // RP_LIB_PHASES_DISTRIBUTED_H_
