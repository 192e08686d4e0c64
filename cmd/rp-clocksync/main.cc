// rp-clocksync: one global clock without causality violations.
#include <cmath>
#include <cstdlib>

#include "lib/cli/tool.h"
#include "lib/clocksync/clocksync.h"

int main(int argc, char** argv) {
  using rp::clocksync::Method;
  rp::cli::Tool tool("rp-clocksync", "Put every rank's times on rank 0's clock and repair causality violations.");
  rp::cli::IoOptions io;
  rp::clocksync::Config config;
  tool.AddInputs(&io);
  tool.AddHold(&io);
  tool.AddOutput(&io);
  auto& app = tool.app();
  tool.AddChoice<Method>("--method", &config.method,
                         {{"auto", Method::kAuto},
                          {"pingpong", Method::kPingpong},
                          {"gaps", Method::kGaps},
                          {"identity", Method::kIdentity}},
                         "pingpong: lines through the collector's MPI_Init/MPI_Finalize measurements; gaps: through "
                         "the exits of global synchronizations; identity: none; auto: pingpong when the trace has "
                         "them");
  bool no_repair = false, no_amortize = false;
  app.add_flag("--no-repair", no_repair, "only map the times, do not repair violations");
  app.add_option("--min-latency", config.min_latency, "ns a message takes at least (repair constraint)")
      ->type_name("NS")
      ->check(rp::cli::Between(int64_t{0}, int64_t{1'000'000'000}));
  app.add_flag("--no-amortize", no_amortize, "keep repair jumps, do not spread them over the time before");
  app.add_option("--max-slope", config.max_slope, "amortisation: how much faster a repaired clock may run")
      ->check(CLI::Validator(
          [](std::string& v) { return std::isnan(std::strtod(v.c_str(), nullptr)) ? "not a number: " + v : ""; },
          "", "a number"))
      ->type_name("X")
      ->check(rp::cli::Between(1e-6, 1.0));
  app.add_option("--gaps-tolerance", config.gaps_tolerance,
                 "gaps: ns a synchronization's exit gap may stray from the fitted line")
      ->type_name("NS")
      ->check(rp::cli::Positive());
  app.add_flag("--report", config.report, "print violations before and after, and each rank's clock, on stderr");
  tool.SetFooter(
      "Reads: rp-trace/1 with local times (rp-record's clock records for --method pingpong).\n"
      "Writes: the same records with times on rank 0's clock (header \"clock\":\"global\"),\n"
      "each window sorted by its new times, then a clock record per rank (method, offset\n"
      "at its first event, drift in ppm, events moved by the repair, largest move).\n"
      "\n"
      "Examples:\n"
      "  rp-clocksync --report run.ndjson.zst -o synced.ndjson.zst\n"
      "  rp-cat old-run.ndjson | rp-clocksync --method gaps | rp-phases | rp-cpath");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    config.repair = !no_repair;
    config.amortize = !no_amortize;
    RP_ASSIGN_OR_RETURN(rp::cli::Streams streams, tool.OpenStreams(config.method == Method::kGaps));
    config.read = streams.read;
    return rp::clocksync::Run(config, *streams.input, *streams.output);
  });
}
