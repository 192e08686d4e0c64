// rp-diagnose: findings with severity, cause and remedy.
#include "lib/cli/tool.h"
#include "lib/diagnose/diagnose.h"
#include "lib/report/format_option.h"

int main(int argc, char** argv) {
  rp::cli::Tool tool("rp-diagnose",
                     "Diagnose why a run is slow: the problems that cost it time, most severe first, each with "
                     "where the time is lost, what causes it and what to do; and the run's POP efficiencies.");
  rp::cli::IoOptions io;
  rp::diagnose::Config config;
  tool.AddInputs(&io);
  tool.AddHold(&io);
  tool.AddOutput(&io);
  CLI::App& app = tool.app();
  double threshold_percent = 100 * config.threshold;
  app.add_option("--threshold", threshold_percent, "drop findings that would save less than this % of run time")
      ->type_name("PERCENT")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  bool no_passthrough = false;
  app.add_flag("--no-passthrough", no_passthrough, "write only the diagnosis records, not the input's");
  rp::report::FormatOption format(tool);
  tool.SetFooter(
      "Reads: rp-trace/1, after rp-clocksync and rp-phases.\n"
      "Writes: the input records, then efficiency records (POP's load balance, communication,\n"
      "serialisation, transfer and parallel efficiencies; the run's, then each phase cluster's)\n"
      "and finding records, most severe first: category, severity (the share of run time the\n"
      "fix would save), the MPI call and site where the time is lost, the causing functions and\n"
      "ranks, the numbers behind it and a remedy.\n"
      "\n"
      "Examples:\n"
      "  rp-clocksync run.ndjson.zst | rp-phases | rp-diagnose --format text\n"
      "  rp-diagnose --no-passthrough phased.ndjson.zst | rp-cat -t finding | jq -c '{category, severity}'");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    config.threshold = threshold_percent / 100;
    config.passthrough = !no_passthrough;
    RP_ASSIGN_OR_RETURN(rp::cli::Streams streams, tool.OpenStreams());
    config.read = streams.read;
    // A report renders the stage's own records: the input's are not needed.
    if (!format.records()) config.passthrough = false;
    return format.Run(*streams.output, [&](rp::trace::Writer& records) {
      return rp::diagnose::Run(config, *streams.input, records);
    });
  });
}
