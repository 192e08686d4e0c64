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

#include <string>
#include <string_view>

#include "lib/base/status.h"
#include "lib/dist/comm.h"
#include "lib/dist/judge.h"
#include "lib/dist/place.h"
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

  // This process's lines of `w` into its part (with passthrough), and the
  // place of its last line of a rank noted.
  Status PassLines(const window::Window& w, bool passthrough);
  // The process writing what follows the lines so far: the holder of the
  // last line over every process (process 0 before any, and for the one
  // stream without passthrough). Every process calls it.
  Expected<int> Writer(bool passthrough);
  // Records that follow the lines so far, from the writer: into its part,
  // or the one stream without passthrough.
  Status WriteAfterLines(std::string_view text, bool passthrough);
  // Process 0's `text` to `writer`, which writes it after its lines. Every
  // process calls it.
  Status SendToWriter(int writer, std::string text, bool passthrough);

  Comm& comm_;
  trace::InputSet& input_;
  SplitOutput out_;
  CommJudge judge_;
  window::WindowReader windows_;

 private:
  Place last_;  // this process's last line of a rank so far
  Placer placer_;
};

}  // namespace rp::dist

#endif  // RP_LIB_DIST_STAGE_H_
