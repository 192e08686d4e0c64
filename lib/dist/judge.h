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

// window::WarnAboutInput for the judged window readers of a parallel
// stage (SetJudge: windows numbered alike everywhere): every process's
// report added up (the cuts, judged alike, counted once; each first the
// one met first: by window, then phase, time and rank), warned of once,
// by the process for which `speak` is set. Every process calls it, in the
// same turn.
Status WarnAboutInputAcross(Comm& comm, const window::WindowReader& reader, bool speak);

}  // namespace rp::dist

#endif  // RP_LIB_DIST_JUDGE_H_
