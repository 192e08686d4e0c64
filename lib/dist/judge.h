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

}  // namespace rp::dist

#endif  // RP_LIB_DIST_JUDGE_H_
