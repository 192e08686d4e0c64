// The options rp-cpath and rp-cpath-mpi share.
#ifndef RP_CMD_RP_CPATH_OPTIONS_H_
#define RP_CMD_RP_CPATH_OPTIONS_H_

#include "lib/cli/tool.h"
#include "lib/cpath/cpath.h"

namespace rp::cpath {

// --no-zeroing, --top, --no-phases, --phase-ranks into `config`;
// Finish() sets what the flags negate.
class PathOptions {
 public:
  PathOptions(CLI::App& app, Config* config) : config_(*config) {
    app.add_flag("--no-zeroing", no_zeroing_,
                 "skip the what-if zeroing (one longest-path pass per site and per sampled function)");
    app.add_option("--top", config->top, "cp_top: the sites and functions with more than 1/M of the critical path")
        ->type_name("M")
        ->check(cli::Between(1, 1000));
    app.add_flag("--no-phases", no_phases_, "only whole-run summaries, even when rp-phases tagged the records");
    app.add_flag("--phase-ranks", config->phase_ranks, "per-phase imbalance per rank too");
  }
  void Finish() {
    config_.zeroing = !no_zeroing_;
    config_.phases = !no_phases_;
  }

 private:
  Config& config_;
  bool no_zeroing_ = false, no_phases_ = false;
};

}  // namespace rp::cpath

#endif  // RP_CMD_RP_CPATH_OPTIONS_H_
