// Where windows end in a distributed read: the window readers of all
// processes decide each global synchronization together (window::
// BoundaryJudge), by one all-reduce of their parts (48 bytes, whatever
// the processes).
//
//   dist::CommJudge judge(comm);
//   window::WindowReader reader(input);   // input.SelectParts(rank, size)
//   reader.SetJudge(&judge);
#ifndef RP_LIB_DIST_JUDGE_H_
#define RP_LIB_DIST_JUDGE_H_

#include "lib/dist/comm.h"
#include "lib/window/window.h"

namespace rp::dist {

class CommJudge : public window::BoundaryJudge {
 public:
  explicit CommJudge(Comm& comm) : comm_(comm) {}
  Expected<window::SyncParts> Judge(const window::SyncParts& mine) override;
  int64_t calls() const { return calls_; }

 private:
  Comm& comm_;
  int64_t calls_ = 0;
};

// window::WarnAboutInput for the window readers of a parallel stage:
// every process's report added up, each first the one met first (by
// window, then phase, time and rank; by phase, time and rank alone when
// the readers are not judged, `judged` false, and number their windows
// each its own way), warned of once, by the process for which `speak` is
// set. Judged windows end alike everywhere: their cuts are counted once.
// Every process calls it, in the same turn.
Status WarnAboutInputAcross(Comm& comm, const window::WindowReader& reader, bool speak, bool judged = true);

}  // namespace rp::dist

#endif  // RP_LIB_DIST_JUDGE_H_
