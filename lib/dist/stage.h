// What every -mpi stage over a split trace holds and how it reads: this
// process's share of the parts, windows cut at clean global
// synchronizations alike on every process (judge.h), and a split output
// (split_output.h).
//
//   class ParallelX : public dist::WindowStage {
//     Status Start() override;                      // the prelude read, the output opened
//     Status AddWindow(window::Window& w) override;
//     Status Finish() override;
//   };
//   return ParallelX(comm, input, files, config.read).Run();
#ifndef RP_LIB_DIST_STAGE_H_
#define RP_LIB_DIST_STAGE_H_

#include "lib/base/status.h"
#include "lib/dist/comm.h"
#include "lib/dist/judge.h"
#include "lib/dist/split_output.h"
#include "lib/trace/input_set.h"
#include "lib/window/window.h"

namespace rp::dist {

class WindowStage {
 public:
  virtual ~WindowStage() = default;
  // Start, each window to AddWindow, then Finish.
  Status Run();

 protected:
  WindowStage(Comm& comm, trace::InputSet& input, const OutputFiles& files, const window::ReadConfig& read)
      : comm_(comm), input_(input), out_(comm, files), judge_(comm),
        windows_(input, window::Boundaries::kClean, read) {}
  virtual Status Start() = 0;
  virtual Status AddWindow(window::Window& w) = 0;
  virtual Status Finish() = 0;

  Comm& comm_;
  trace::InputSet& input_;
  SplitOutput out_;
  CommJudge judge_;
  window::WindowReader windows_;
};

}  // namespace rp::dist

#endif  // RP_LIB_DIST_STAGE_H_
