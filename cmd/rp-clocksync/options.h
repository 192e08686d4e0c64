// rp-clocksync's options, shared by rp-clocksync and rp-clocksync-mpi.
#ifndef RP_CMD_RP_CLOCKSYNC_OPTIONS_H_
#define RP_CMD_RP_CLOCKSYNC_OPTIONS_H_

#include <cmath>
#include <cstdlib>
#include <string>

#include "lib/cli/tool.h"
#include "lib/clocksync/clocksync.h"

namespace rp::clocksync {

// Adds the options that fill `config`; Finish() sets what flags negate.
class Options {
 public:
  Options(cli::Tool& tool, Config* config) : config_(*config) {
    CLI::App& app = tool.app();
    tool.AddChoice<Method>("--method", &config->method,
                           {{"auto", Method::kAuto},
                            {"pingpong", Method::kPingpong},
                            {"gaps", Method::kGaps},
                            {"identity", Method::kIdentity}},
                           "pingpong: lines through the collector's MPI_Init/MPI_Finalize measurements; gaps: "
                           "through the exits of global synchronizations; identity: none; auto: pingpong when the "
                           "trace has them");
    app.add_flag("--no-repair", no_repair_, "only map the times, do not repair violations");
    app.add_option("--min-latency", config->min_latency, "ns a message takes at least (repair constraint)")
        ->type_name("NS")
        ->check(cli::Between(int64_t{0}, int64_t{1'000'000'000}));
    app.add_flag("--no-amortize", no_amortize_, "keep repair jumps, do not spread them over the time before");
    app.add_option("--max-slope", config->max_slope, "amortisation: how much faster a repaired clock may run")
        ->check(CLI::Validator(
            [](std::string& v) { return std::isnan(std::strtod(v.c_str(), nullptr)) ? "not a number: " + v : ""; },
            "", "a number"))
        ->type_name("X")
        ->check(cli::Between(1e-6, 1.0));
    app.add_option("--gaps-tolerance", config->gaps_tolerance,
                   "gaps: ns a synchronization's exit gap may stray from the fitted line")
        ->type_name("NS")
        ->check(cli::Positive());
    app.add_flag("--report", config->report,
                 "print violations before and after, and each rank's clock, on stderr");
  }

  void Finish() {
    config_.repair = !no_repair_;
    config_.amortize = !no_amortize_;
  }

 private:
  Config& config_;
  bool no_repair_ = false, no_amortize_ = false;
};

}  // namespace rp::clocksync

#endif  // RP_CMD_RP_CLOCKSYNC_OPTIONS_H_
