// The options rp-diagnose and rp-diagnose-mpi share.
#ifndef RP_CMD_RP_DIAGNOSE_OPTIONS_H_
#define RP_CMD_RP_DIAGNOSE_OPTIONS_H_

#include "lib/cli/tool.h"
#include "lib/diagnose/diagnose.h"

namespace rp::diagnose {

// --threshold into `config`; Finish() sets it.
class DiagnoseOptions {
 public:
  DiagnoseOptions(CLI::App& app, Config* config) : config_(*config), percent_(100 * config->threshold) {
    app.add_option("--threshold", percent_, "drop findings that would save less than this % of run time")
        ->type_name("PERCENT")
        ->check(CLI::Range(0.0, 100.0))
        ->capture_default_str();
  }
  void Finish() { config_.threshold = percent_ / 100; }

 private:
  Config& config_;
  double percent_;
};

}  // namespace rp::diagnose

#endif  // RP_CMD_RP_DIAGNOSE_OPTIONS_H_
